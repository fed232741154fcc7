//! The Transformer over sequences long enough for the crate's attention kernel (sources of 100
//! tokens, targets of 80: every attention has 64 keys or more, so the vectorised heads run
//! `nn::fused::flash`: tiled, an online softmax, the weights recomputed in the backward pass)
//! against PyTorch's lecture model on the same weights (`tests/fixtures/transformer.json`,
//! `long`): the logits, the logits with the maps asked for, and three Adam steps with dropout on.

use crate::common;
use attention_zoo::prelude::*;
use attention_zoo::train::{Adam, CrossEntropyLoss, Loss, Optimizer};
use common::fixtures::*;
use serde::Deserialize;

/// Forward passes: |got - want| <= FORWARD * max(1, |want|), as for the short sequences.
const FORWARD: f64 = 1e-6;
/// After three Adam steps, as for the short sequences.
const ADAM: f64 = 1e-5;

#[derive(Deserialize)]
struct Fixture {
    sizes: Sizes,
    long: Long,
}

#[derive(Deserialize)]
struct Sizes {
    d_model: usize,
    n_heads: usize,
    d_ff: usize,
    n_layers: usize,
    dropout: f64,
    src_vocab: usize,
    tgt_vocab: usize,
    adam_lr: f64,
}

#[derive(Deserialize)]
struct Long {
    seed: u64,
    src: TensorFx,
    tgt: TensorFx,
    tgt_out: TensorFx,
    state: StateFx,
    eval_logits: TensorFx,
    adam: Adam3,
}

#[derive(Deserialize)]
struct Adam3 {
    losses: Vec<f64>,
    state: StateFx,
    eval_logits: TensorFx,
}

fn ids(v: &TensorFx) -> Tensor {
    v.tensor().to_dtype(DType::U32).unwrap()
}

fn setup() -> (Fixture, Transformer) {
    let fx: Fixture = load_as("transformer");
    let s = &fx.sizes;
    let cfg = TransformerConfig {
        d_model: s.d_model,
        n_heads: s.n_heads,
        d_ff: s.d_ff,
        n_layers: s.n_layers,
        dropout: s.dropout,
        heads: HeadLayout::Vectorised,
        ..TransformerConfig::new(s.src_vocab, s.tgt_vocab)
    };
    manual_seed(fx.long.seed as i128).unwrap();
    let model = Transformer::from_config(&cfg).unwrap();
    assert_params("long sequences", &model, &fx.long.state, 0.0);
    (fx, model)
}

#[test]
fn logits_over_long_sequences_match_pytorch() {
    let _serial = common::serial();
    let (fx, model) = setup();
    let (src, tgt) = (ids(&fx.long.src), ids(&fx.long.tgt));
    assert!(src.dim(1).unwrap() >= 64 && tgt.dim(1).unwrap() >= 64, "long enough for the kernel");
    model.eval();
    let logits = model.forward(&src, &tgt, None, None).unwrap();
    let d = close_relative("logits", &logits, &fx.long.eval_logits, FORWARD);
    let with_maps = model.forward_with_attention(&src, &tgt, None, None).unwrap();
    let dm = close_relative("logits, the maps asked for", &with_maps.logits, &fx.long.eval_logits, FORWARD);
    for map in with_maps.maps.encoder_self.iter().chain(&with_maps.maps.decoder_self).chain(&with_maps.maps.cross) {
        let sums = map.sum(3).unwrap();
        let gap = values(&sums).into_iter().fold(0f64, |m, v| m.max((v - 1.0).abs()));
        assert!(gap < 1e-5, "every row of weights sums to 1, off by {gap}");
    }
    eprintln!("long sequences: max |difference| of the logits {d:e}, with the maps {dm:e}");
}

#[test]
fn three_adam_steps_over_long_sequences_match_pytorch() {
    let _serial = common::serial();
    let (fx, model) = setup();
    let (src, tgt, tgt_out) = (ids(&fx.long.src), ids(&fx.long.tgt), ids(&fx.long.tgt_out));
    let want = &fx.long.adam;
    let mut adam = Adam::new(model.parameters(), fx.sizes.adam_lr).unwrap();
    model.train();
    manual_seed(fx.long.seed as i128 + 200).unwrap();
    for (step, w) in want.losses.iter().enumerate() {
        let logits = model.forward(&src, &tgt, None, None).unwrap();
        let loss = CrossEntropyLoss::new().loss(&logits.flatten_to(1).unwrap(), &tgt_out.flatten_all().unwrap()).unwrap();
        let got = loss.to_scalar::<f32>().unwrap() as f64;
        assert!((got - w).abs() <= ADAM, "loss of step {}: got {got}, expected {w}", step + 1);
        adam.step(&loss.backward().unwrap()).unwrap();
    }
    // The keys' biases shift every score of a query by the same amount, which the softmax ignores:
    // their gradient is zero but for rounding, which Adam scales up to about `lr` a step.
    let lr = fx.sizes.adam_lr;
    let initial: std::collections::HashMap<String, Tensor> = fx.long.state.tensors().into_iter().collect();
    let mut max = 0f64;
    for ((name, p), (want_name, w)) in model.named_parameters().iter().zip(want.state.tensors()) {
        assert_eq!(name, &want_name);
        let gap = |a: &Tensor, b: &Tensor| values(&(a - b).unwrap()).into_iter().fold(0f64, |m, v| m.max(v.abs()));
        if name.ends_with("key.bias") {
            let moved = gap(&p.tensor(), &initial[name]);
            assert!(moved <= 3.0 * lr * 1.01, "{name} moved by {moved}");
            continue;
        }
        let d = gap(&p.tensor(), &w);
        assert!(d <= ADAM, "{name} after three Adam steps: max |difference| {d}");
        max = max.max(d);
    }
    model.eval();
    let logits = model.forward(&src, &tgt, None, None).unwrap();
    let dl = close_relative("logits after Adam", &logits, &want.eval_logits, ADAM);
    eprintln!("long sequences, Adam: max |difference| weights {max:e}, logits {dl:e}");
}
