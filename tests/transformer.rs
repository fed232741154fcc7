//! The Transformer lecture, completed, against PyTorch (tests/fixtures/transformer.json, written by
//! tools/fixtures/transformer.py): initial weights bit for bit, every layer's and the full
//! model's forward pass with dropout off and on, three Adam steps; the lecture's toy attention;
//! and the clear errors of the issue (all-masked rows, heads that do not divide `d_model`, ids
//! outside the vocabulary, sequences longer than `max_len`).

use crate::common;

use attention_zoo::prelude::*;
use attention_zoo::train::Optimizer;
use common::fixtures::*;
use common::round4;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Forward passes: |got - want| <= FORWARD * max(1, |want|) (relative for values above 1).
const FORWARD: f64 = 1e-6;
/// Three Adam steps of the full model.
const ADAM: f64 = 1e-5;

/// `tests/fixtures/transformer.json` (tools/fixtures/transformer.py).
#[derive(Deserialize)]
struct TransformerFx {
    sizes: Sizes,
    ids: Ids,
    inputs: InputsFx,
    masks: Masks,
    toy: Toy,
    pe_table_100: TensorFx,
    /// One case per seed: every layer and the model, drawn after `manual_seed(seed)`.
    cases: Vec<Case>,
}

#[derive(Deserialize)]
pub(crate) struct Sizes {
    d_model: usize,
    n_heads: usize,
    d_ff: usize,
    n_layers: usize,
    dropout: f64,
    src_vocab: usize,
    tgt_vocab: usize,
    pub(crate) adam_lr: f64,
}

/// Token ids, written as floats.
#[derive(Deserialize)]
struct Ids {
    src: TensorFx,
    tgt: TensorFx,
    tgt_out: TensorFx,
}

#[derive(Deserialize)]
struct InputsFx {
    x: TensorFx,
    res: TensorFx,
    memory: TensorFx,
    drop_x: TensorFx,
}

#[derive(Deserialize)]
struct Masks {
    create_mask_2_4: TensorFx,
    src_padding: TensorFx,
    tgt_mask: TensorFx,
}

/// 002's toy query, keys and values, and its masked example.
#[derive(Deserialize)]
struct Toy {
    q: TensorFx,
    k: TensorFx,
    v: TensorFx,
    out: TensorFx,
    weights: TensorFx,
    masked: ToyMasked,
}

#[derive(Deserialize)]
struct ToyMasked {
    q: TensorFx,
    k: TensorFx,
    v: TensorFx,
    out: TensorFx,
    weights: TensorFx,
}

/// A module's output in evaluation and in training mode (and its attention weights in both,
/// for the attention layers).
#[derive(Deserialize)]
struct Modes {
    eval: TensorFx,
    train: TensorFx,
    eval_weights: Option<TensorFx>,
    train_weights: Option<TensorFx>,
}

impl Modes {
    fn output(&self, mode: &str) -> &TensorFx {
        if mode == "train" { &self.train } else { &self.eval }
    }

    fn weights(&self, mode: &str) -> &TensorFx {
        let w = if mode == "train" { &self.train_weights } else { &self.eval_weights };
        w.as_ref().unwrap_or_else(|| panic!("no {mode} weights in the fixture"))
    }
}

#[derive(Deserialize)]
struct Case {
    seed: u64,
    /// `Dropout(p)` of the inputs' `drop_x`, by `p` ("0.3", "0.5").
    dropout: BTreeMap<String, TensorFx>,
    narrow: Narrow,
    vectorised: Vectorised,
    add_norm: Layer,
    pffn: Layer,
    encoder_layer: EncoderLayerFx,
    decoder_layer: DecoderLayerFx,
    embeddings: EmbeddingsFx,
    positional: Positional,
    transformer: TransformerCase,
    transformer_vectorised: Layer,
    transformer_xavier: Initial,
    adam: AdamFx,
}

#[derive(Deserialize)]
struct Narrow {
    state: StateFx,
    #[serde(rename = "self")]
    self_attention: Modes,
    cross: Modes,
    as_vectorised: Modes,
}

#[derive(Deserialize)]
struct Vectorised {
    state: StateFx,
    cross: Modes,
}

#[derive(Deserialize)]
struct Layer {
    state: StateFx,
    out: Modes,
}

#[derive(Deserialize)]
struct Initial {
    state: StateFx,
}

#[derive(Deserialize)]
struct EncoderLayerFx {
    state: StateFx,
    out: Modes,
    /// The self-attention weights of the training-mode pass.
    weights: TensorFx,
}

#[derive(Deserialize)]
struct DecoderLayerFx {
    state: StateFx,
    out: Modes,
    self_weights: TensorFx,
    cross_weights: TensorFx,
}

#[derive(Deserialize)]
struct EmbeddingsFx {
    state: StateFx,
    out: TensorFx,
}

#[derive(Deserialize)]
struct Positional {
    out: Modes,
}

#[derive(Deserialize)]
struct TransformerCase {
    state: StateFx,
    out: Modes,
    train_maps: MapsFx,
    memory: TensorFx,
    eval_logits: TensorFx,
    eval_maps: MapsFx,
}

/// Every layer's attention maps of one pass.
#[derive(Deserialize)]
struct MapsFx {
    encoder_self: Vec<TensorFx>,
    decoder_self: Vec<TensorFx>,
    cross: Vec<TensorFx>,
}

/// Three Adam steps of the full model: each step's loss, then the weights and logits.
#[derive(Deserialize)]
pub(crate) struct AdamFx {
    losses: Vec<f64>,
    state: StateFx,
    eval_logits: TensorFx,
}

fn fixture() -> TransformerFx {
    load_as("transformer")
}

fn seed_of(case: &Case) -> i128 {
    case.seed as i128
}

pub(crate) fn ids(v: &TensorFx) -> Tensor {
    v.tensor().to_dtype(DType::U32).unwrap()
}

struct Inputs {
    x: Tensor,
    res: Tensor,
    memory: Tensor,
    drop_x: Tensor,
    src: Tensor,
    tgt: Tensor,
    src_mask: Tensor,
    tgt_mask: Tensor,
}

fn inputs(fx: &TransformerFx) -> Inputs {
    let i = &fx.inputs;
    let (src, tgt) = (ids(&fx.ids.src), ids(&fx.ids.tgt));
    let src_mask = padding_mask(&src, 0).unwrap();
    let tgt_mask = create_mask(2, 5).unwrap().broadcast_add(&padding_mask(&tgt, 0).unwrap()).unwrap();
    Inputs { x: i.x.tensor(), res: i.res.tensor(), memory: i.memory.tensor(), drop_x: i.drop_x.tensor(), src, tgt, src_mask, tgt_mask }
}

fn config(fx: &TransformerFx) -> TransformerConfig {
    config_of(&fx.sizes)
}

/// The fixtures' model: the lecture's sizes and narrow heads.
pub(crate) fn config_of(s: &Sizes) -> TransformerConfig {
    TransformerConfig {
        d_model: s.d_model,
        n_heads: s.n_heads,
        d_ff: s.d_ff,
        n_layers: s.n_layers,
        dropout: s.dropout,
        ..TransformerConfig::new(s.src_vocab, s.tgt_vocab)
    }
}

/// Runs `f` in evaluation mode, then in training mode right after `manual_seed(seed + 100)` (as
/// the fixtures do), comparing the output (and the weights where there are some) with PyTorch's.
fn modes<M: Walk>(what: &str, m: &mut M, seed: i128, want: &Modes, mut f: impl FnMut(&mut M) -> (Tensor, Option<Tensor>)) -> f64 {
    let mut max = 0f64;
    for mode in ["eval", "train"] {
        m.set_training(mode == "train");
        assert_eq!(m.is_training(), mode == "train", "{what}: set_training");
        manual_seed(seed + 100).unwrap();
        let (out, weights) = f(m);
        max = max.max(close_relative(&format!("{what} ({mode})"), &out, want.output(mode), FORWARD));
        if let Some(w) = weights {
            max = max.max(close_relative(&format!("{what} weights ({mode})"), &w, want.weights(mode), FORWARD));
        }
    }
    max
}

#[test]
fn dropout_matches_pytorch_mask_and_scale_bit_for_bit() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    for case in &fx.cases {
        manual_seed(seed_of(case)).unwrap();
        for p in ["0.3", "0.5"] {
            let d = Dropout::new(p.parse().unwrap()).unwrap();
            close_relative(&format!("seed {} Dropout({p})", seed_of(case)), &d.forward(&inp.drop_x).unwrap(), &case.dropout[p], 0.0);
        }
    }
}

#[test]
fn toy_attention_gives_the_lectures_numbers() {
    let fx = fixture().toy;
    let (k, v) = (fx.k.tensor(), fx.v.tensor());
    let q = fx.q.tensor();
    let (out, w) = scaled_dot_product_attention_additive(&q, &k, &v, None).unwrap();
    close_relative("toy output", &out, &fx.out, FORWARD);
    close_relative("toy weights", &w, &fx.weights, FORWARD);
    assert_eq!(round4(&values(&w)), vec![0., 0., 0.5, 0.5, 0., 1., 0., 0., 0.5, 0.5, 0., 0.]);
    assert_eq!(round4(&values(&out)), vec![550., 5.5, 0., 10., 0., 2., 5.5, 0., 1.5]);
    let m = &fx.masked;
    let mask = create_mask(2, 4).unwrap();
    let (out, w) = scaled_dot_product_attention_additive(&m.q.tensor(), &m.k.tensor(), &m.v.tensor(), Some(&mask)).unwrap();
    close_relative("masked output", &out, &m.out, FORWARD);
    close_relative("masked weights", &w, &m.weights, FORWARD);
}

#[test]
fn masks_match_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    close_relative("create_mask(2, 4)", &create_mask(2, 4).unwrap(), &fx.masks.create_mask_2_4, 0.0);
    close_relative("source padding mask", &inp.src_mask, &fx.masks.src_padding, 0.0);
    close_relative("target mask", &inp.tgt_mask, &fx.masks.tgt_mask, 0.0);
    let model = Transformer::from_config(&TransformerConfig { max_len: 10, ..config(&fx) }).unwrap();
    close_relative("Transformer::src_mask", &model.src_mask(&inp.src).unwrap().unwrap(), &fx.masks.src_padding, 0.0);
    close_relative("Transformer::tgt_mask", &model.tgt_mask(&inp.tgt).unwrap(), &fx.masks.tgt_mask, 0.0);
}

#[test]
fn attention_layers_match_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    let cfg = config(&fx);
    let mut max = 0f64;
    for case in &fx.cases {
        let seed = seed_of(case);
        let s = format!("seed {seed}");
        let c = &case.narrow;
        manual_seed(seed).unwrap();
        let mut mha = NarrowMultiHeadAttention::new(cfg.d_model, cfg.n_heads, cfg.dropout).unwrap();
        assert_params(&format!("{s} narrow"), &mha, &c.state, 0.0);
        let both = |r: MhaOutput| (r.output, Some(r.weights));
        max = max.max(modes(&format!("{s} narrow self"), &mut mha, seed, &c.self_attention, |m| {
            both(m.forward(&inp.x, &inp.x, &inp.x, Some(&inp.tgt_mask)).unwrap())
        }));
        max = max.max(modes(&format!("{s} narrow cross"), &mut mha, seed, &c.cross, |m| {
            both(m.forward(&inp.x, &inp.memory, &inp.memory, Some(&inp.src_mask)).unwrap())
        }));
        let mut vec = VectorisedMultiHeadAttention::from_narrow(&mha).unwrap();
        max = max.max(modes(&format!("{s} narrow as vectorised"), &mut vec, seed, &c.as_vectorised, |m| {
            both(m.forward(&inp.x, &inp.memory, &inp.memory, Some(&inp.src_mask)).unwrap())
        }));

        let c = &case.vectorised;
        manual_seed(seed).unwrap();
        let mut vec = VectorisedMultiHeadAttention::new(cfg.d_model, cfg.n_heads, cfg.dropout).unwrap();
        assert_params(&format!("{s} vectorised"), &vec, &c.state, 0.0);
        max = max.max(modes(&format!("{s} vectorised cross"), &mut vec, seed, &c.cross, |m| {
            both(m.forward(&inp.x, &inp.memory, &inp.memory, Some(&inp.src_mask)).unwrap())
        }));
    }
    eprintln!("attention layers: max |difference| {max:e}");
}

#[test]
fn narrow_and_vectorised_attention_agree_on_the_same_weights() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    manual_seed(5).unwrap();
    let narrow = NarrowMultiHeadAttention::new(8, 4, 0.3).unwrap();
    let vec = VectorisedMultiHeadAttention::from_narrow(&narrow).unwrap();
    assert_eq!(narrow.count_parameters(), vec.count_parameters(), "the same number of weights, laid out differently");
    assert_eq!(
        vec.named_parameters().iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["query.weight", "query.bias", "key.weight", "key.bias", "value.weight", "value.bias", "output.weight", "output.bias"]
    );
    let mut max = 0f64;
    for training in [false, true] {
        narrow.set_training(training);
        vec.set_training(training);
        for (q, kv, mask) in [(&inp.x, &inp.x, &inp.tgt_mask), (&inp.x, &inp.memory, &inp.src_mask)] {
            manual_seed(9).unwrap();
            let a = narrow.forward(q, kv, kv, Some(mask)).unwrap();
            manual_seed(9).unwrap();
            let b = vec.forward(q, kv, kv, Some(mask)).unwrap();
            max = max.max(close_relative(&format!("outputs (training {training})"), &b.output, &a.output, FORWARD));
            max = max.max(close_relative(&format!("weights (training {training})"), &b.weights, &a.weights, FORWARD));
        }
    }
    eprintln!("narrow vs vectorised: max |difference| {max:e}");
}

#[test]
fn sublayers_and_layers_match_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    let cfg = config(&fx);
    let (d, h, ff, p) = (cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout);
    let mut max = 0f64;
    for case in &fx.cases {
        let seed = seed_of(case);
        let s = format!("seed {seed}");
        manual_seed(seed).unwrap();
        let mut add_norm = AddNorm::new(d, p).unwrap();
        assert_params(&format!("{s} AddNorm"), &add_norm, &case.add_norm.state, 0.0);
        max = max
            .max(modes(&format!("{s} AddNorm"), &mut add_norm, seed, &case.add_norm.out, |m| (m.forward(&inp.x, &inp.res).unwrap(), None)));

        manual_seed(seed).unwrap();
        let mut pffn = PointwiseFeedforward::new(d, ff, p).unwrap();
        assert_params(&format!("{s} PointwiseFeedforward"), &pffn, &case.pffn.state, 0.0);
        max = max.max(modes(&format!("{s} PointwiseFeedforward"), &mut pffn, seed, &case.pffn.out, |m| (m.forward(&inp.x).unwrap(), None)));

        let c = &case.encoder_layer;
        manual_seed(seed).unwrap();
        let mut enc = EncoderLayer::new(d, h, ff, p).unwrap();
        assert_params(&format!("{s} EncoderLayer"), &enc, &c.state, 0.0);
        let mut last = None; // the weights of the last pass, in training mode
        max = max.max(modes(&format!("{s} EncoderLayer"), &mut enc, seed, &c.out, |m| {
            let out = m.forward(&inp.memory, Some(&inp.src_mask)).unwrap();
            last = Some(out.self_attention);
            (out.output, None)
        }));
        max = max.max(close_relative(&format!("{s} EncoderLayer weights (train)"), &last.unwrap(), &c.weights, FORWARD));

        let c = &case.decoder_layer;
        manual_seed(seed).unwrap();
        let mut dec = DecoderLayer::new(d, h, ff, p).unwrap();
        assert_params(&format!("{s} DecoderLayer"), &dec, &c.state, 0.0);
        let mut last = None;
        max = max.max(modes(&format!("{s} DecoderLayer"), &mut dec, seed, &c.out, |m| {
            let out = m.forward(&inp.x, &inp.memory, Some(&inp.src_mask), Some(&inp.tgt_mask)).unwrap();
            let output = out.output.clone();
            last = Some(out);
            (output, None)
        }));
        let last = last.unwrap();
        max = max.max(close_relative(&format!("{s} DecoderLayer self weights"), &last.self_attention, &c.self_weights, FORWARD));
        max = max.max(close_relative(&format!("{s} DecoderLayer cross weights"), &last.cross_attention, &c.cross_weights, FORWARD));

        manual_seed(seed).unwrap();
        let emb = Embeddings::new(cfg.src_vocab, d).unwrap();
        assert_params(&format!("{s} Embeddings"), &emb, &case.embeddings.state, 0.0);
        max = max.max(close_relative(&format!("{s} Embeddings"), &emb.forward(&inp.src).unwrap(), &case.embeddings.out, FORWARD));

        let mut pe = TransformerPositionalEncoding::new(d, p, 5000).unwrap();
        max =
            max.max(modes(&format!("{s} PositionalEncoding"), &mut pe, seed, &case.positional.out, |m| (m.forward(&inp.x).unwrap(), None)));
    }
    let table = transformer_encoding_table(5000, cfg.d_model).unwrap().narrow(0, 0, 100).unwrap();
    max = max.max(close_relative("positional encoding table, first 100 rows", &table, &fx.pe_table_100, FORWARD));
    eprintln!("sub-layers and layers: max |difference| {max:e}");
}

fn maps_close(what: &str, got: &AttentionMaps, want: &MapsFx) -> f64 {
    let mut max = 0f64;
    let pairs = [
        ("encoder_self", &got.encoder_self, &want.encoder_self),
        ("decoder_self", &got.decoder_self, &want.decoder_self),
        ("cross", &got.cross, &want.cross),
    ];
    for (name, tensors, w) in pairs {
        assert_eq!(tensors.len(), w.len(), "{what} {name}: layers");
        for (i, (t, wt)) in tensors.iter().zip(w).enumerate() {
            max = max.max(close_relative(&format!("{what} {name} layer {i}"), t, wt, FORWARD));
        }
    }
    max
}

#[test]
fn the_transformer_matches_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    let mut max = 0f64;
    for case in &fx.cases {
        let seed = seed_of(case);
        let s = format!("seed {seed}");
        let c = &case.transformer;
        manual_seed(seed).unwrap();
        let mut model = Transformer::from_config(&config(&fx)).unwrap();
        assert_params(&format!("{s} Transformer"), &model, &c.state, 0.0);
        let mut last = None;
        max = max.max(modes(&format!("{s} Transformer"), &mut model, seed, &c.out, |m| {
            let out = m.forward_with_attention(&inp.src, &inp.tgt, None, None).unwrap();
            last = Some(out.maps);
            (out.logits, None)
        }));
        max = max.max(maps_close(&format!("{s} Transformer (train)"), &last.unwrap(), &c.train_maps));
        model.eval();
        let memory = model.encode(&inp.src, Some(&inp.src_mask)).unwrap();
        max = max.max(close_relative(&format!("{s} memory"), &memory, &c.memory, FORWARD));
        let logits = model.decode(&inp.tgt, &memory, Some(&inp.src_mask), Some(&inp.tgt_mask)).unwrap();
        max = max.max(close_relative(&format!("{s} encode then decode"), &logits, &c.eval_logits, FORWARD));
        assert_eq!(logits.dims(), [2, 5, 13]);
        let again = model.forward_with_attention(&inp.src, &inp.tgt, Some(&inp.src_mask), Some(&inp.tgt_mask)).unwrap();
        assert_eq!(values(&again.logits), values(&logits), "{s}: forward_with_attention equals encode then decode");
        max = max.max(maps_close(&format!("{s} Transformer (eval)"), &again.maps, &c.eval_maps));

        let c = &case.transformer_vectorised;
        manual_seed(seed).unwrap();
        let mut model = Transformer::from_config(&TransformerConfig { heads: HeadLayout::Vectorised, ..config(&fx) }).unwrap();
        assert_params(&format!("{s} Transformer (vectorised)"), &model, &c.state, 0.0);
        max = max.max(modes(&format!("{s} Transformer (vectorised)"), &mut model, seed, &c.out, |m| {
            (m.forward(&inp.src, &inp.tgt, None, None).unwrap(), None)
        }));

        // The Annotated Transformer's Xavier initialisation, drawn after the default one.
        manual_seed(seed).unwrap();
        let model =
            Transformer::from_config(&TransformerConfig { heads: HeadLayout::Vectorised, xavier_init: true, ..config(&fx) }).unwrap();
        assert_params(&format!("{s} Transformer (Xavier)"), &model, &case.transformer_xavier.state, 0.0);
    }
    eprintln!("Transformer forward: max |difference| {max:e}");
}

/// Mean cross-entropy of logits `(N, T, V)` against target ids, as `F.cross_entropy` computes it:
/// log-softmax (the row maximum subtracted first) and the mean negative log-likelihood.
fn cross_entropy(logits: &Tensor, targets: &Tensor) -> Tensor {
    let v = logits.dim(2).unwrap();
    let flat = logits.reshape(((), v)).unwrap();
    let rows = flat.dim(0).unwrap();
    let shifted = flat.broadcast_sub(&flat.max_keepdim(1).unwrap().detach()).unwrap();
    let log_probs = shifted.broadcast_sub(&shifted.exp().unwrap().sum_keepdim(1).unwrap().log().unwrap()).unwrap();
    let t: Vec<u32> = targets.flatten_all().unwrap().to_vec1().unwrap();
    let one_hot: Vec<f32> = t.iter().flat_map(|&k| (0..v as u32).map(move |j| f32::from(u8::from(j == k)))).collect();
    let one_hot = Tensor::from_vec(one_hot, (rows, v), &Device::Cpu).unwrap();
    (log_probs * one_hot).unwrap().sum_all().unwrap().neg().unwrap().affine(1.0 / rows as f64, 0.0).unwrap()
}

#[test]
fn three_adam_steps_of_the_transformer_match_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    let tgt_out = ids(&fx.ids.tgt_out);
    let lr = fx.sizes.adam_lr;
    let mut max = [0f64; 4];
    for case in &fx.cases {
        let seed = seed_of(case);
        manual_seed(seed).unwrap();
        let model = Transformer::from_config(&config(&fx)).unwrap();
        let gaps = adam_steps_match(
            &format!("seed {seed}"),
            &model,
            seed,
            (&inp.src, &inp.tgt, &tgt_out),
            &case.transformer.state,
            &case.adam,
            lr,
        );
        max.iter_mut().zip(gaps).for_each(|(m, g)| *m = m.max(g));
    }
    let [loss, weight, logit, key_bias] = max;
    eprintln!("Adam: max |difference| losses {loss:e}, weights {weight:e}, logits {logit:e}; keys' biases (noise) {key_bias:e}");
}

/// Three Adam steps of `model` (drawn with `manual_seed(seed)`, its initial weights `initial`)
/// in training mode after `manual_seed(seed + 200)`, on the cross-entropy of its logits for
/// `(src, tgt)` against `tgt_out`, checked against PyTorch's (`want`): each step's loss, every
/// weight, the logits in evaluation mode. Returns the largest differences of the losses, the
/// weights, the logits and the keys' biases.
pub(crate) fn adam_steps_match(
    what: &str,
    model: &Transformer,
    seed: i128,
    (src, tgt, tgt_out): (&Tensor, &Tensor, &Tensor),
    initial: &StateFx,
    want: &AdamFx,
    lr: f64,
) -> [f64; 4] {
    let (mut max_loss, mut max_weight, mut max_key_bias) = (0f64, 0f64, 0f64);
    let mut adam = Adam::new(model.parameters(), lr).unwrap();
    model.train();
    manual_seed(seed + 200).unwrap();
    for (step, w) in want.losses.iter().enumerate() {
        let loss = cross_entropy(&model.forward(src, tgt, None, None).unwrap(), tgt_out);
        let got = loss.to_scalar::<f32>().unwrap() as f64;
        assert!((got - w).abs() <= ADAM, "{what} loss of step {}: got {got}, expected {w}", step + 1);
        max_loss = max_loss.max((got - w).abs());
        adam.step(&loss.backward().unwrap()).unwrap();
    }
    // The keys' biases shift every score of a query by the same amount, which the softmax
    // ignores: their gradient is zero but for rounding, and Adam scales that rounding noise up
    // to about `lr` per step. They are checked to have moved by no more than that; everything
    // else, within ADAM.
    let initial: std::collections::HashMap<String, Tensor> = initial.tensors().into_iter().collect();
    for ((name, p), (want_name, w)) in model.named_parameters().iter().zip(want.state.tensors()) {
        assert_eq!(name, &want_name);
        if (name.contains("linear_Ks") || name.contains("key.")) && name.ends_with("bias") {
            let moved = values(&(p.tensor() - &initial[name]).unwrap()).into_iter().fold(0f64, |m, v| m.max(v.abs()));
            let d = values(&(p.tensor() - &w).unwrap()).into_iter().fold(0f64, |m, v| m.max(v.abs()));
            max_key_bias = max_key_bias.max(d);
            assert!(moved <= 3.0 * lr * 1.01, "{what} {name} moved by {moved}");
            continue;
        }
        let d = values(&(p.tensor() - &w).unwrap()).into_iter().fold(0f64, |m, v| m.max(v.abs()));
        assert!(d <= ADAM, "{what} {name} after {} Adam steps: max |difference| {d}", want.losses.len());
        max_weight = max_weight.max(d);
    }
    model.eval();
    let logits = model.forward(src, tgt, None, None).unwrap();
    let max_logit = close_relative(&format!("{what} logits after Adam"), &logits, &want.eval_logits, ADAM);
    [max_loss, max_weight, max_logit, max_key_bias]
}

#[test]
fn set_training_reaches_every_dropout() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    manual_seed(0).unwrap();
    let model = Transformer::from_config(&config(&fx)).unwrap();
    assert!(model.is_training(), "starts in training mode, as PyTorch modules do");
    model.eval();
    let all_eval =
        model.encoder.layers.iter().all(|l| !l.mha.is_training() && !l.pffn.dropout.is_training() && !l.add_norm2.dropout.is_training())
            && model.decoder.layers.iter().all(|l| !l.cross_mha.is_training() && !l.add_norm3.dropout.is_training())
            && !model.src_pe.dropout.is_training()
            && !model.tgt_pe.dropout.is_training();
    assert!(all_eval);
    let a = model.forward(&inp.src, &inp.tgt, None, None).unwrap();
    let b = model.forward(&inp.src, &inp.tgt, None, None).unwrap();
    assert_eq!(values(&a), values(&b), "evaluation draws nothing");
}

#[test]
fn a_fully_masked_row_is_an_error_naming_the_module_and_the_row() {
    let _serial = common::serial();
    let fx = fixture();
    let inp = inputs(&fx);
    manual_seed(0).unwrap();
    let mha = NarrowMultiHeadAttention::new(8, 2, 0.0).unwrap();
    let ninf = f32::NEG_INFINITY;
    let mask = Tensor::new(&[[[0f32, 0., 0., 0., 0.], [ninf, ninf, ninf, ninf, ninf]]], &Device::Cpu).unwrap();
    let bad = mask.broadcast_as((2, 2, 5)).unwrap().pad_with_zeros(1, 0, 3).unwrap();
    let e = mha.forward(&inp.x, &inp.x, &inp.x, Some(&bad)).unwrap_err().to_string();
    assert!(e.starts_with("NarrowMultiHeadAttention:") && e.contains("row [0, 1]") && e.contains("all 5 keys"), "{e}");
    let vec = VectorisedMultiHeadAttention::from_narrow(&mha).unwrap();
    let e = vec.forward(&inp.x, &inp.x, &inp.x, Some(&bad)).unwrap_err().to_string();
    assert!(e.starts_with("VectorisedMultiHeadAttention:") && e.contains("row [0, 1]"), "{e}");
    let q = Tensor::zeros((2, 3), DType::F32, &Device::Cpu).unwrap();
    let row = Tensor::new(&[[0f32, 0.], [ninf, ninf]], &Device::Cpu).unwrap();
    let e = scaled_dot_product_attention_additive(&q, &q, &q, Some(&row)).unwrap_err().to_string();
    assert!(e.starts_with("scaled_dot_product_attention_additive:") && e.contains("row [1]"), "{e}");
    // A source of padding only: every key of its cross-attention and self-attention is masked.
    let model = Transformer::from_config(&config(&fx)).unwrap();
    let src = Tensor::new(&[[1u32, 2, 3], [0, 0, 0]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 2], [1, 2]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &tgt, None, None).unwrap_err().to_string();
    assert!(e.starts_with("Transformer: source 1 is all padding"), "{e}");
    // Plus and NaN are no additive masks.
    let plus = Tensor::new(&[[[0f32, f32::INFINITY, 0., 0., 0.]]], &Device::Cpu).unwrap();
    let e = mha.forward(&inp.x, &inp.x, &inp.x, Some(&plus)).unwrap_err().to_string();
    assert!(e.contains("finite values or -inf"), "{e}");
}

#[test]
fn heads_that_do_not_divide_d_model_are_an_error() {
    let _serial = common::serial();
    let e = NarrowMultiHeadAttention::new(8, 3, 0.1).unwrap_err().to_string();
    assert!(e.starts_with("NarrowMultiHeadAttention:") && e.contains("n_heads = 3 does not divide d_model = 8"), "{e}");
    let e = VectorisedMultiHeadAttention::new(10, 4, 0.1).unwrap_err().to_string();
    assert!(e.starts_with("VectorisedMultiHeadAttention:") && e.contains("n_heads = 4 does not divide d_model = 10"), "{e}");
    let cfg = TransformerConfig { d_model: 8, n_heads: 3, d_ff: 16, n_layers: 1, max_len: 10, ..TransformerConfig::new(11, 13) };
    let e = Transformer::from_config(&cfg).unwrap_err().to_string();
    assert!(e.starts_with("Transformer:") && e.contains("n_heads = 3 does not divide d_model = 8"), "{e}");
    let e = EncoderLayer::new(6, 4, 8, 0.1).unwrap_err().to_string();
    assert!(e.starts_with("EncoderLayer:") && e.contains("n_heads = 4 does not divide d_model = 6"), "{e}");
    for p in [-0.5, 1.5] {
        let e = AddNorm::new(4, p).unwrap_err().to_string();
        assert!(e.starts_with("AddNorm:\nDropout:") && e.contains(&p.to_string()), "{e}");
    }
}

#[test]
fn token_ids_outside_the_vocabulary_are_an_error() {
    let _serial = common::serial();
    let fx = fixture();
    manual_seed(0).unwrap();
    let model = Transformer::from_config(&TransformerConfig { max_len: 10, ..config(&fx) }).unwrap();
    let src = Tensor::new(&[[1u32, 11, 3]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 2]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &tgt, None, None).unwrap_err().to_string();
    assert!(e.starts_with("Transformer:") && e.contains("Transformer::encode") && e.contains("id 11") && e.contains("[0, 11)"), "{e}");
    let src = Tensor::new(&[[1u32, 10, 3]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 13]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &tgt, None, None).unwrap_err().to_string();
    assert!(e.contains("Transformer::decode") && e.contains("Embeddings") && e.contains("id 13") && e.contains("[0, 13)"), "{e}");
    let e = Embeddings::new(5, 4).unwrap().forward(&Tensor::new(&[[1u32, 5]], &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("Embeddings:") && e.contains("id 5 (position 1)") && e.contains("for 5 embeddings"), "{e}");
}

#[test]
fn sequences_longer_than_max_len_are_an_error() {
    let _serial = common::serial();
    let fx = fixture();
    manual_seed(0).unwrap();
    let model = Transformer::from_config(&TransformerConfig { max_len: 4, ..config(&fx) }).unwrap();
    let src = Tensor::new(&[[1u32, 2, 3, 4, 5, 6]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 2]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &tgt, None, None).unwrap_err().to_string();
    assert!(
        e.starts_with("Transformer:") && e.contains("TransformerPositionalEncoding: a sequence of 6 steps is longer than max_len = 4"),
        "{e}"
    );
    let pe = TransformerPositionalEncoding::new(4, 0.1, 3).unwrap();
    let e = pe.forward(&Tensor::zeros((1, 5, 4), DType::F32, &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("TransformerPositionalEncoding:") && e.contains("5 steps") && e.contains("max_len = 3"), "{e}");
}

#[test]
fn shapes_that_do_not_fit_are_an_error_not_a_panic() {
    let _serial = common::serial();
    manual_seed(0).unwrap();
    let mha = NarrowMultiHeadAttention::new(8, 2, 0.0).unwrap();
    let x = Tensor::zeros((2, 3, 8), DType::F32, &Device::Cpu).unwrap();
    let other = Tensor::zeros((3, 4, 8), DType::F32, &Device::Cpu).unwrap();
    let e = mha.forward(&x, &other, &other, None).unwrap_err().to_string();
    assert!(e.starts_with("NarrowMultiHeadAttention:") && e.contains("same N"), "{e}");
    let mask = Tensor::zeros((2, 3, 5), DType::F32, &Device::Cpu).unwrap();
    let e = mha.forward(&x, &x, &x, Some(&mask)).unwrap_err().to_string();
    assert!(e.contains("additive mask") && e.contains("[2, 3, 5]"), "{e}");
    let ids = Tensor::new(&[[1u32, 2]], &Device::Cpu).unwrap();
    let model = Transformer::from_config(&TransformerConfig {
        d_model: 4,
        n_heads: 2,
        d_ff: 8,
        n_layers: 1,
        max_len: 8,
        ..TransformerConfig::new(5, 5)
    })
    .unwrap();
    let two = Tensor::new(&[[1u32, 2], [3, 4]], &Device::Cpu).unwrap();
    let e = model.forward(&ids, &two, None, None).unwrap_err().to_string();
    assert!(e.starts_with("Transformer:") && e.contains("batch size"), "{e}");
    let flat = Tensor::new(&[1u32, 2], &Device::Cpu).unwrap();
    assert!(model.forward(&flat, &ids, None, None).unwrap_err().to_string().contains("(N, L)"));
    assert!(create_mask(0, 3).is_err() && Dropout::new(f64::NAN).is_err());
}
