//! Lecture part 2 (attention): the printed values, every scoring function, multi-head attention,
//! the blog's layer and the training run, against PyTorch (tests/fixtures/attention.json).

use crate::common;

use attention_zoo::attention::{cosine_products, scaled_dot_products};
use attention_zoo::prelude::*;
use common::fixtures::*;
use common::{corners, round4};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// `tests/fixtures/attention.json`: PyTorch's run of the lecture's part-2 cells.
#[derive(Deserialize)]
struct AttentionFx {
    steps: Steps,
    mask: MaskFx,
    source_mask_rule: SourceMaskRule,
    decoder_attn_outputs: Vec<Vec<f64>>,
    scores: Scores,
    multihead: Multihead,
    blog: Blog,
    initial_state: StateFx,
    train_100: Training,
}

/// The lecture's attention computed step by step for one query.
#[derive(Deserialize)]
struct Steps {
    query: TensorFx,
    uniform_context: TensorFx,
    alphas: TensorFx,
    scaled_products: TensorFx,
    scaled_context: TensorFx,
}

/// PyTorch's `(x != 0).all(axis=2).unsqueeze(1)` on points with some features zero, -0.0, NaN
/// and infinities.
#[derive(Deserialize)]
struct SourceMaskRule {
    source_seq: TensorFx,
    mask: TensorFx,
}

#[derive(Deserialize)]
struct MaskFx {
    mask: TensorFx,
    context: TensorFx,
}

/// Every scoring function on one query and keys, by name.
#[derive(Deserialize)]
struct Scores {
    keys: TensorFx,
    query: TensorFx,
    mask: TensorFx,
    cases: BTreeMap<String, ScoreCase>,
}

#[derive(Deserialize)]
struct ScoreCase {
    state: StateFx,
    alphas: TensorFx,
    context: TensorFx,
}

#[derive(Deserialize)]
struct Multihead {
    state: StateFx,
    keys: TensorFx,
    query: TensorFx,
    out: TensorFx,
    alphas: TensorFx,
}

/// The blog post's query-key-value layer.
#[derive(Deserialize)]
struct Blog {
    state: StateFx,
    x: TensorFx,
    y: TensorFx,
    #[serde(rename = "self")]
    self_attention: TensorFx,
    cross: TensorFx,
}

#[derive(Deserialize)]
struct Training {
    losses: Vec<f64>,
    val_losses: Vec<f64>,
    alphas_seq3: TensorFx,
}

fn fixture() -> AttentionFx {
    load_as("attention")
}

fn load_into<M: Walk>(m: &M, state_fx: &StateFx) {
    let s: HashMap<String, Tensor> = state_fx.tensors().into_iter().collect();
    m.load_state_dict(&s).unwrap();
}

#[test]
fn lecture_steps_give_the_printed_numbers() {
    let _serial = common::serial();
    let fx = fixture();
    let corners = corners();
    let source = corners.narrow(1, 0, 2).unwrap();
    manual_seed(21).unwrap();
    let states = Encoder::new(2, 2).unwrap().forward(&source).unwrap();
    manual_seed(21).unwrap();
    let mut decoder = Decoder::new(2, 2).unwrap();
    decoder.init_hidden(&states).unwrap();
    decoder.forward(&source.narrow(1, 1, 1).unwrap()).unwrap();
    let query = decoder.hidden.clone().unwrap().permute((1, 0, 2)).unwrap();
    let (keys, values) = (&states, &states);
    let steps = &fx.steps;
    assert_tensor_close("query", &query, &steps.query.tensor(), 1e-6);

    let uniform = context_vector(&uniform_alphas(keys).unwrap(), values).unwrap();
    assert_tensor_close("uniform context", &uniform, &steps.uniform_context.tensor(), 1e-6);
    assert_eq!(round4(&values_of(&uniform)), vec![0.1968, -0.2809]);

    let products = dot_products(&query, keys).unwrap();
    assert_eq!(round4(&values_of(&products)), vec![0.0569, 0.4821]);
    let alphas = softmax(&products).unwrap();
    assert_tensor_close("alphas", &alphas, &steps.alphas.tensor(), 1e-6);
    assert_eq!(round4(&values_of(&alphas)), vec![0.3953, 0.6047]);

    let scaled = scaled_dot_products(&query, keys).unwrap();
    assert_tensor_close("scaled products", &scaled, &steps.scaled_products.tensor(), 1e-6);
    let alphas = calc_alphas(keys, &query).unwrap();
    assert_eq!(round4(&values_of(&alphas)), vec![0.4254, 0.5746]);
    let context = context_vector(&alphas, values).unwrap();
    assert_tensor_close("scaled context", &context, &steps.scaled_context.tensor(), 1e-6);
    assert_eq!(round4(&values_of(&context)), vec![0.2138, -0.3175]);

    let q = batch_of_one(&[&[0.55, 0.95]]).unwrap();
    let k = batch_of_one(&[&[0.65, 0.2], &[0.85, -0.4], &[-0.95, -0.75]]).unwrap();
    let prod = dot_products(&q, &k).unwrap();
    assert_eq!(round4(&values_of(&prod)), vec![0.5475, 0.0875, -1.2350]);
    let a = softmax(&prod).unwrap();
    assert_eq!(round4(&values_of(&a)), vec![0.5557, 0.3508, 0.0935]);
    assert_eq!(round4(&values_of(&context_vector(&a, &k).unwrap())), vec![0.5706, -0.0993]);
}

fn values_of(t: &Tensor) -> Vec<f64> {
    values(t)
}

#[test]
fn the_source_mask_hides_padding() {
    let _serial = common::serial();
    let fx = fixture();
    let source_seq = Tensor::new(&[[[-1f32, 1.], [0., 0.]]], &Device::Cpu).unwrap();
    let mask = source_mask(&source_seq).unwrap();
    assert_eq!(mask.dims(), [1, 1, 2]);
    assert_eq!(mask.dtype(), DType::U8);
    assert_close("mask", &values(&mask), &values(&fx.mask.mask.tensor()), 0.0);
    manual_seed(11).unwrap();
    let mut attn = Attention::new(2, None, false).unwrap();
    attn.init_keys(&Tensor::new(&[[[-0.38f32, 0.44], [0.85, -0.05]]], &Device::Cpu).unwrap()).unwrap();
    let context = attn.forward(&Tensor::new(&[[[-1f32, 1.]]], &Device::Cpu).unwrap(), Some(&mask)).unwrap();
    assert_eq!(values(attn.alphas.as_ref().unwrap()), vec![1.0, 0.0]);
    assert_tensor_close("masked context", &context, &fx.mask.context.tensor(), 1e-6);
}

#[test]
fn the_source_mask_keeps_a_point_only_when_every_feature_is_non_zero() {
    let _serial = common::serial();
    let fx = fixture();
    let source_seq = fx.source_mask_rule.source_seq.tensor();
    let want = fx.source_mask_rule.mask.tensor();
    // [0.5, 0], [0, -0.3], [0, 0], [1, 2]; [nan, 0], [inf, 1], [nan, -inf], [-0.0, 3]
    assert_eq!(values(&want), vec![0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0]);
    for dtype in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        let mask = source_mask(&source_seq.to_dtype(dtype).unwrap()).unwrap();
        assert_eq!((mask.dims(), mask.dtype()), (want.dims(), DType::U8), "{dtype:?}");
        assert_eq!(values(&mask), values(&want), "{dtype:?}");
    }
    // NaN counts as non-zero wherever it stands among the features.
    let nan_last = Tensor::new(&[[[1f32, f32::NAN], [0., f32::NAN], [f32::NAN, f32::NAN]]], &Device::Cpu).unwrap();
    assert_eq!(source_mask(&nan_last).unwrap().to_vec3::<u8>().unwrap(), vec![vec![vec![1u8, 0, 1]]]);
}

#[test]
fn the_source_mask_of_an_empty_batch_is_empty() {
    let _serial = common::serial();
    for (dims, want) in [((0, 3, 2), [0, 1, 3]), ((2, 0, 2), [2, 1, 0]), ((0, 0, 2), [0, 1, 0])] {
        let mask = source_mask(&Tensor::zeros(dims, DType::F32, &Device::Cpu).unwrap()).unwrap();
        assert_eq!((mask.dims(), mask.dtype()), (&want[..], DType::U8));
    }
    // No features: PyTorch's all() over nothing is true, so every point is kept.
    let mask = source_mask(&Tensor::zeros((2, 3, 0), DType::F32, &Device::Cpu).unwrap()).unwrap();
    assert_eq!(mask.to_vec3::<u8>().unwrap(), vec![vec![vec![1u8; 3]]; 2]);
}

#[test]
fn the_attention_decoder_gives_the_printed_outputs() {
    let _serial = common::serial();
    let fx = fixture();
    let source = Tensor::new(&[[[-1f32, -1.], [-1., 1.]]], &Device::Cpu).unwrap();
    manual_seed(21).unwrap();
    let mut encoder = Encoder::new(2, 2).unwrap();
    let mut decoder = DecoderAttn::new(2, 2).unwrap();
    decoder.init_hidden(&encoder.forward(&source).unwrap()).unwrap();
    let mut input = source.narrow(1, 1, 1).unwrap();
    let printed = [[-0.3555, -0.1220], [-0.2641, -0.2521]];
    for (i, want) in printed.iter().enumerate() {
        let out = decoder.forward(&input, None).unwrap();
        assert_close(&format!("step {i}"), &values(&out), &fx.decoder_attn_outputs[i], 1e-6);
        assert_eq!(round4(&values(&out)), want.to_vec());
        input = out;
    }
    // The same through the encoder-decoder without teacher forcing.
    manual_seed(21).unwrap();
    let encoder = Encoder::new(2, 2).unwrap();
    let decoder = DecoderAttn::new(2, 2).unwrap();
    let mut model = EncoderDecoderAttn::new(encoder, decoder, 2, 2, 0.0).unwrap();
    let full = Tensor::new(&[[[-1f32, -1.], [-1., 1.], [1., 1.], [1., -1.]]], &Device::Cpu).unwrap();
    let out = model.forward(&full).unwrap();
    assert_eq!(round4(&values(&out)), vec![-0.3555, -0.1220, -0.2641, -0.2521]);
    assert_eq!(model.alphas.as_ref().unwrap().dims(), [1, 2, 2]);
}

#[test]
fn every_scoring_function_matches_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let s = &fx.scores;
    let (keys, query, mask) = (s.keys.tensor(), s.query.tensor(), s.mask.tensor().to_dtype(DType::U8).unwrap());
    let cases = [
        ("scaled_dot", Score::ScaledDot),
        ("dot", Score::Dot),
        ("general", Score::General),
        ("additive", Score::Additive),
        ("cosine", Score::Cosine),
        ("location", Score::Location { source_len: 4 }),
    ];
    for (name, score) in cases {
        let case = &s.cases[name];
        // Same seed, same draws: the initial parameters equal PyTorch's.
        manual_seed(7).unwrap();
        let mut a = Attention::with_score(3, None, true, score).unwrap();
        assert_params("a", &a, &case.state, 0.0);
        a.init_keys(&keys).unwrap();
        let ctx = a.forward(&query, Some(&mask)).unwrap();
        assert_tensor_close(&format!("{name} alphas"), a.alphas.as_ref().unwrap(), &case.alphas.tensor(), 1e-6);
        assert_tensor_close(&format!("{name} context"), &ctx, &case.context.tensor(), 1e-6);
    }
    // Cosine by hand: parallel vectors score 1, opposite -1, orthogonal 0.
    let q = batch_of_one(&[&[1.0, 0.0]]).unwrap();
    let k = batch_of_one(&[&[2.0, 0.0], &[-3.0, 0.0], &[0.0, 5.0]]).unwrap();
    assert_close("cosine", &values(&cosine_products(&q, &k).unwrap()), &[1.0, -1.0, 0.0], 1e-6);
}

#[test]
fn gradients_reach_every_parameter_before_the_softmax() {
    let _serial = common::serial();
    let keys = attention_zoo::repro::randn((2, 4, 3)).unwrap();
    let query = attention_zoo::repro::randn((2, 2, 3)).unwrap();
    for score in [Score::ScaledDot, Score::Dot, Score::General, Score::Additive, Score::Cosine, Score::Location { source_len: 4 }] {
        let mut a = Attention::with_score(3, None, true, score).unwrap();
        a.init_keys(&keys).unwrap();
        let loss = a.forward(&query, None).unwrap().sqr().unwrap().sum_all().unwrap();
        let grads = loss.backward().unwrap();
        for (name, p) in a.named_parameters() {
            // The location-based score ignores the keys, so the key layer gets no gradient.
            if matches!(score, Score::Location { .. }) && name.starts_with("linear_key") {
                continue;
            }
            let g = grads.get(&p.tensor()).unwrap_or_else(|| panic!("{score:?}: no gradient for {name}"));
            let norm = g.sqr().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap();
            assert!(norm > 0.0, "{score:?}: zero gradient for {name}");
        }
    }
}

#[test]
fn multi_head_attention_and_the_blog_layer_match_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let m = &fx.multihead;
    manual_seed(17).unwrap();
    let mut mha = MultiHeadAttention::new(3, 2, None, true).unwrap();
    assert_params("mha", &mha, &m.state, 0.0);
    mha.init_keys(&m.keys.tensor()).unwrap();
    let out = mha.forward(&m.query.tensor(), None).unwrap();
    assert_tensor_close("multi-head output", &out, &m.out.tensor(), 1e-6);
    assert_tensor_close("multi-head alphas", &mha.alphas().unwrap(), &m.alphas.tensor(), 1e-6);

    let b = &fx.blog;
    manual_seed(19).unwrap();
    let mut blog = AttentionLayer::new(3, 4).unwrap();
    load_into(&blog, &b.state);
    let (x, y) = (b.x.tensor(), b.y.tensor());
    assert_tensor_close("blog self-attention", &blog.forward(&x, &x, &x).unwrap(), &b.self_attention.tensor(), 1e-6);
    assert_tensor_close("blog cross-attention", &blog.forward(&y, &x, &x).unwrap(), &b.cross.tensor(), 1e-6);
}

#[test]
fn training_with_attention_matches_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let full_train = generate_sequences(256, false, 13).unwrap().to_tensor().unwrap();
    let full_test = generate_sequences(128, false, 19).unwrap().to_tensor().unwrap();
    let train = TensorDataset::new(&full_train, &full_train.narrow(1, 2, 2).unwrap()).unwrap();
    let test = TensorDataset::new(&full_test.narrow(1, 0, 2).unwrap(), &full_test.narrow(1, 2, 2).unwrap()).unwrap();
    manual_seed(23).unwrap();
    let model = EncoderDecoderAttn::new(Encoder::new(2, 2).unwrap(), DecoderAttn::new(2, 2).unwrap(), 2, 2, 0.5).unwrap();
    assert_params("model", &model, &fx.initial_state, 0.0);
    let optimizer = Adam::new(model.parameters(), 0.01).unwrap();
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    sbs.progress_every = 0;
    sbs.set_loaders(DataLoader::shuffled(train, 16, Generator::default()).unwrap(), Some(DataLoader::new(test, 16).unwrap()));
    sbs.train(100).unwrap();
    let want = &fx.train_100;
    let (losses, val) = (&want.losses, &want.val_losses);
    assert_close("first losses", &round4(&sbs.losses[..5]), &round4(&losses[..5]), 1e-4);
    assert_close("first validation losses", &round4(&sbs.val_losses[..5]), &round4(&val[..5]), 1e-4);
    let (last, last_val) = (sbs.losses[99], sbs.val_losses[99]);
    assert!((last / 0.011876 - 1.0).abs() < 0.01, "final loss {last}, PyTorch 0.011876");
    assert!((last_val / 0.013366 - 1.0).abs() < 0.01, "final validation loss {last_val}, PyTorch 0.013366");
    sbs.predict(&full_train.narrow(0, 3, 1).unwrap().narrow(1, 0, 2).unwrap()).unwrap();
    let alphas = sbs.model.alphas.clone().unwrap();
    assert_close("alphas of sequence 3", &values(&alphas), &[0.9649, 0.0351, 0.0757, 0.9243], 0.005);
    assert_tensor_close("alphas of sequence 3 (PyTorch)", &alphas, &want.alphas_seq3.tensor(), 0.005);
}

#[test]
fn bad_shapes_and_missing_keys_give_clear_errors() {
    let _serial = common::serial();
    let mut attn = Attention::new(2, None, false).unwrap();
    let q = Tensor::zeros((1, 1, 2), DType::F32, &Device::Cpu).unwrap();
    let e = attn.forward(&q, None).unwrap_err().to_string();
    assert!(e.contains("init_keys"), "{e}");
    attn.init_keys(&Tensor::zeros((1, 3, 2), DType::F32, &Device::Cpu).unwrap()).unwrap();
    let e = attn.forward(&Tensor::zeros((1, 1, 5), DType::F32, &Device::Cpu).unwrap(), None).unwrap_err().to_string();
    assert!(e.contains("Attention") && e.contains("[1, 1, 5]") && e.contains("[1, 3, 2]"), "{e}");
    let bad_mask = Tensor::ones((1, 1, 4), DType::U8, &Device::Cpu).unwrap();
    let e = attn.forward(&q, Some(&bad_mask)).unwrap_err().to_string();
    assert!(e.contains("mask") && e.contains("[1, 1, 4]"), "{e}");
    let e = Attention::new(2, None, false)
        .unwrap()
        .init_keys(&Tensor::zeros((1, 3, 4), DType::F32, &Device::Cpu).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("init_keys") && e.contains("[1, 3, 4]"), "{e}");
    let e = dot_products(
        &Tensor::zeros((1, 1, 2), DType::F32, &Device::Cpu).unwrap(),
        &Tensor::zeros((1, 3, 3), DType::F32, &Device::Cpu).unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("dot_products") && e.contains("[1, 1, 2]") && e.contains("[1, 3, 3]"), "{e}");
}
