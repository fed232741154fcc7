//! The Transformer over sequences long enough for the crate's attention kernel (sources of 100
//! tokens, targets of 80: every attention has 64 keys or more, so the vectorised heads run
//! `nn::fused::flash`: tiled, an online softmax, the weights recomputed in the backward pass)
//! against PyTorch's lecture model on the same weights (`tests/fixtures/transformer.json`,
//! `long`): the logits, the logits with the maps asked for, and three Adam steps with dropout on.

use crate::common;
use crate::transformer::{AdamFx, Sizes, adam_steps_match, config_of, ids};
use attention_zoo::prelude::*;
use common::fixtures::*;
use serde::Deserialize;

/// Forward passes: |got - want| <= FORWARD * max(1, |want|), as for the short sequences.
const FORWARD: f64 = 1e-6;

#[derive(Deserialize)]
struct Fixture {
    sizes: Sizes,
    long: Long,
}

#[derive(Deserialize)]
struct Long {
    seed: u64,
    src: TensorFx,
    tgt: TensorFx,
    tgt_out: TensorFx,
    state: StateFx,
    eval_logits: TensorFx,
    adam: AdamFx,
}

fn setup() -> (Fixture, Transformer) {
    let fx: Fixture = load_as("transformer");
    let cfg = TransformerConfig { heads: HeadLayout::Vectorised, ..config_of(&fx.sizes) };
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
    let l = &fx.long;
    let batch = (&ids(&l.src), &ids(&l.tgt), &ids(&l.tgt_out));
    let [loss, weight, logit, _] = adam_steps_match("long sequences", &model, l.seed as i128, batch, &l.state, &l.adam, fx.sizes.adam_lr);
    eprintln!("long sequences, Adam: max |difference| losses {loss:e}, weights {weight:e}, logits {logit:e}");
}

/// Over 64 keys or more the weights a caller asks for are still part of the graph: a loss on
/// them alone reaches the query and key layers (the kernel, which gives no weights, serves only
/// the passes that ask for none).
#[test]
fn weights_asked_for_over_long_sequences_carry_gradients() {
    let _serial = common::serial();
    manual_seed(3).unwrap();
    let mha = VectorisedMultiHeadAttention::new(8, 2, 0.0).unwrap();
    let x = Tensor::randn(0f32, 1.0, (2, 70, 8), &Device::Cpu).unwrap();
    let out = mha.forward(&x, &x, &x, None).unwrap();
    let loss = out.weights.sqr().unwrap().sum_all().unwrap();
    let grads = loss.backward().unwrap();
    for (name, p) in mha.named_parameters() {
        let moves = grads.get(p.tensor().as_ref()).map(|g| values(g).iter().any(|v| *v != 0.0));
        let expected = name.starts_with("query") || name.starts_with("key");
        assert_eq!(moves.unwrap_or(false), expected, "{name}: a gradient from the weights alone");
    }
}
