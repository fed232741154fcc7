//! The blog post's Transformer encoder block against PyTorch (tests/fixtures/blog.json and
//! tests/fixtures/pt/encoder_block.pt, written by tools/fixtures/blog.py): initial weights bit for
//! bit under `manual_seed`, then a PyTorch block's saved weights loaded by name reproduce its
//! output and per-head attention weights, key-padding mask included; bad masks are clear errors.

use crate::common;

use attention_zoo::models::TransformerEncoderBlock;
use attention_zoo::prelude::*;
use common::fixtures::{assert_tensor_close, load, state, tensor, values};

fn block(fx: &serde_json::Value) -> TransformerEncoderBlock {
    let s = &fx["sizes"];
    let size = |k: &str| s[k].as_u64().unwrap() as usize;
    manual_seed(size("seed") as i128).unwrap();
    TransformerEncoderBlock::new(size("embed_dim"), size("num_heads"), size("ffn_dim"), s["dropout"].as_f64().unwrap()).unwrap()
}

#[test]
fn the_block_starts_from_pytorchs_weights_and_reproduces_a_saved_one() {
    let _guard = common::serial();
    let fx = load("blog");
    let mut model = block(&fx);
    let want = state(&fx["initial"]);
    let got = model.named_parameters();
    assert_eq!(got.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), want.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>());
    for ((name, p), (_, w)) in got.iter().zip(&want) {
        assert_eq!(values(&p.tensor()), values(w), "initial {name}, bit for bit");
    }
    let path = format!("{}/tests/fixtures/pt/{}", env!("CARGO_MANIFEST_DIR"), fx["file"].as_str().unwrap());
    model.load_pytorch(&path).unwrap();
    model.eval();
    let (x, mask) = (tensor(&fx["x"]), tensor(&fx["mask"]));
    let out = model.forward(&x, Some(&mask)).unwrap();
    assert_tensor_close("output with the padding mask", &out, &tensor(&fx["out"]), 1e-6);
    let weights = model.weights.clone().unwrap();
    assert_tensor_close("attention weights per head", &weights, &tensor(&fx["weights"]), 1e-6);
    // Padding keys get exactly zero weight.
    let lengths = [5usize, 3, 1];
    for (i, &len) in lengths.iter().enumerate() {
        if len < 5 {
            let pad = weights.get(i).unwrap().narrow(2, len, 5 - len).unwrap();
            assert!(values(&pad).iter().all(|v| *v == 0.0), "row {i}: padding keys weighted");
        }
    }
    let unmasked = model.forward(&x, None).unwrap();
    assert_tensor_close("output without a mask", &unmasked, &tensor(&fx["out_unmasked"]), 1e-6);
}

#[test]
fn bad_padding_masks_are_clear_errors() {
    let _guard = common::serial(); // block() draws from the shared default generator
    let fx = load("blog");
    let mut model = block(&fx);
    let x = tensor(&fx["x"]); // (5, 3, 8)
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
