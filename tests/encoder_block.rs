//! The blog post's Transformer encoder block against PyTorch (tests/fixtures/blog.json and
//! tests/fixtures/pt/encoder_block.pt, written by tools/fixtures/blog.py): initial weights bit for
//! bit under `manual_seed`, then a PyTorch block's saved weights loaded by name reproduce its
//! output and per-head attention weights, key-padding mask included; bad masks are clear errors.

use crate::common;

use attention_zoo::models::TransformerEncoderBlock;
use attention_zoo::prelude::*;
use common::fixtures::{StateFx, TensorFx, assert_params, assert_tensor_close, load_as, values};
use serde::Deserialize;

/// `tests/fixtures/blog.json`: the block's sizes and initial weights, the `.pt` file of a trained
/// PyTorch block, and that block's outputs and attention weights on a padded batch.
#[derive(Deserialize)]
struct BlogFx {
    sizes: Sizes,
    initial: StateFx,
    file: String,
    x: TensorFx,
    mask: TensorFx,
    out: TensorFx,
    out_unmasked: TensorFx,
    weights: TensorFx,
}

#[derive(Deserialize)]
struct Sizes {
    seed: i64,
    embed_dim: usize,
    num_heads: usize,
    ffn_dim: usize,
    dropout: f64,
}

fn block(fx: &BlogFx) -> TransformerEncoderBlock {
    let s = &fx.sizes;
    manual_seed(s.seed as i128).unwrap();
    TransformerEncoderBlock::new(s.embed_dim, s.num_heads, s.ffn_dim, s.dropout).unwrap()
}

#[test]
fn the_block_starts_from_pytorchs_weights_and_reproduces_a_saved_one() {
    let _guard = common::serial();
    let fx: BlogFx = load_as("blog");
    let mut model = block(&fx);
    assert_params("initial weights, bit for bit", &model, &fx.initial, 0.0);
    let path = format!("{}/tests/fixtures/pt/{}", env!("CARGO_MANIFEST_DIR"), fx.file);
    model.load_pytorch(&path).unwrap();
    model.eval();
    let (x, mask) = (fx.x.tensor(), fx.mask.tensor());
    let out = model.forward(&x, Some(&mask)).unwrap();
    assert_tensor_close("output with the padding mask", &out, &fx.out.tensor(), 1e-6);
    let weights = model.weights.clone().unwrap();
    assert_tensor_close("attention weights per head", &weights, &fx.weights.tensor(), 1e-6);
    // Padding keys get exactly zero weight.
    let lengths = [5usize, 3, 1];
    for (i, &len) in lengths.iter().enumerate() {
        if len < 5 {
            let pad = weights.get(i).unwrap().narrow(2, len, 5 - len).unwrap();
            assert!(values(&pad).iter().all(|v| *v == 0.0), "row {i}: padding keys weighted");
        }
    }
    let unmasked = model.forward(&x, None).unwrap();
    assert_tensor_close("output without a mask", &unmasked, &fx.out_unmasked.tensor(), 1e-6);
}

#[test]
fn bad_padding_masks_are_clear_errors() {
    let _guard = common::serial(); // block() draws from the shared default generator
    let fx: BlogFx = load_as("blog");
    let mut model = block(&fx);
    let x = fx.x.tensor(); // (5, 3, 8)
    let wrong = Tensor::zeros((5, 3), DType::U8, &Device::Cpu).unwrap();
    let e = model.forward(&x, Some(&wrong)).unwrap_err().to_string();
    assert!(e.contains("PackedMultiheadAttention") && e.contains("(3, 5)") && e.contains("[5, 3]"), "{e}");
    let all = Tensor::ones((3, 5), DType::U8, &Device::Cpu).unwrap();
    let e = model.forward(&x, Some(&all)).unwrap_err().to_string();
    assert!(e.contains("-inf") || e.contains("masked"), "{e}");
    let flat = Tensor::zeros((5, 8), DType::F32, &Device::Cpu).unwrap();
    let e = model.forward(&flat, None).unwrap_err().to_string();
    assert!(e.contains("(L, N, 8)"), "{e}");
}
