//! The kernel wing's nodes that the parity tests reach only end to end, each against the
//! plain-candle composition it replaces: the layer-norm node against `layer_norm`'s composed
//! formula (which runs for float64), and the attention-LSTM decoder over a teacher-forced target
//! (one node, from hidden size 8) against the decoder's own steps, one after the other. Values
//! within 1e-5, gradients within 1e-4 (relative to 1 + |value|), several shapes, an empty batch
//! and padded sources included. (The linear, bias, ReLU and softmax nodes are checked in
//! `nn::fused::kernels_tests`; the recurrent cells in `fused_cells`.)

use crate::common::{self, fixtures::assert_tensor_close, weighted};
use attention_zoo::models::{LstmTranslator, LstmTranslatorConfig};
use attention_zoo::nn::layer_norm;
use attention_zoo::prelude::*;
use attention_zoo::repro::randn;
use candle_core::backprop::GradStore;

/// Gradients within 1e-4.
fn same_grads(what: &str, node: &GradStore, composed: &GradStore, tensors: &[(&str, Tensor)]) {
    common::same_grads(what, node, composed, tensors, 1e-4);
}

#[test]
fn the_layer_norm_node_equals_the_composed_formula() {
    let _serial = common::serial();
    manual_seed(5).unwrap();
    for dims in [vec![3, 5], vec![2, 3, 8], vec![4, 1], vec![1, 2, 33]] {
        let n = *dims.last().unwrap();
        let x = Var::from_tensor(&randn(dims.as_slice()).unwrap()).unwrap();
        let w = Var::from_tensor(&randn(n).unwrap()).unwrap();
        let b = Var::from_tensor(&randn(n).unwrap()).unwrap();
        // float32 on the CPU: the node; float64: the composition of candle's operations
        let node = layer_norm(&x, &w, &b, 1e-5).unwrap();
        let f64_of = |t: &Tensor| t.to_dtype(DType::F64).unwrap();
        let composed = layer_norm(&f64_of(&x), &f64_of(&w), &f64_of(&b), 1e-5).unwrap().to_dtype(DType::F32).unwrap();
        assert_tensor_close(&format!("layer_norm {dims:?}"), &node, &composed, 1e-5);
        let (gn, gc) = (weighted(&node).backward().unwrap(), weighted(&composed).backward().unwrap());
        same_grads(
            &format!("layer_norm {dims:?}"),
            &gn,
            &gc,
            &[("x", x.as_tensor().clone()), ("weight", w.as_tensor().clone()), ("bias", b.as_tensor().clone())],
        );
    }
    // no rows at all: an empty result, as PyTorch gives
    let (w, b) = (randn(4).unwrap(), randn(4).unwrap());
    assert_eq!(layer_norm(&randn((0, 4)).unwrap(), &w, &b, 1e-5).unwrap().dims(), [0, 4]);
}

/// The decoder's steps one after the other, as `LstmTranslator` runs them where the node does not
/// apply: the logits `(N, T, V)` and the weights `(N, T, S)`.
fn stepwise(model: &LstmTranslator, src: &Tensor, tgt: &Tensor) -> (Tensor, Tensor) {
    let state = model.encode(src).unwrap();
    let (mut h, mut c) = (state.h.clone(), state.c.clone());
    let (mut hs, mut alphas) = (vec![], vec![]);
    for k in 0..tgt.dim(1).unwrap() {
        let token = tgt.narrow(1, k, 1).unwrap().squeeze(1).unwrap();
        let ((h2, c2), a) = model.decoder.step(&token, &h, &c, &state.keys, &state.outputs, &state.mask).unwrap();
        (h, c) = (h2, c2);
        hs.push(h.clone());
        alphas.push(a);
    }
    (model.decoder.out.forward(&Tensor::stack(&hs, 1).unwrap()).unwrap(), Tensor::stack(&alphas, 1).unwrap())
}

#[test]
fn the_attention_lstm_decoder_node_equals_its_steps() {
    let _serial = common::serial();
    let ids = |rows: &[&[u32]]| Tensor::new(rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>(), &Device::Cpu).unwrap();
    // sources padded with 0 at the end (the second row has 2 tokens of 4), targets starting with <sos>
    let src = ids(&[&[4, 5, 6, 7], &[8, 9, 0, 0], &[5, 5, 5, 0]]);
    let tgt = ids(&[&[1, 6, 7, 8, 9], &[1, 4, 4, 0, 0], &[1, 9, 8, 7, 6]]);
    for (hidden_dim, bidirectional) in [(8, false), (8, true), (13, false)] {
        manual_seed(hidden_dim as i128).unwrap();
        let cfg = LstmTranslatorConfig { embed_dim: 6, hidden_dim, bidirectional, ..LstmTranslatorConfig::new(12, 11) };
        let mut model = LstmTranslator::new(&cfg).unwrap();
        let what = format!("hidden {hidden_dim}, bidirectional {bidirectional}");
        let logits = model.forward(&src, &tgt).unwrap();
        let alphas = model.alphas.clone().unwrap();
        let (want_logits, want_alphas) = stepwise(&model, &src, &tgt);
        assert_tensor_close(&format!("{what}: logits"), &logits, &want_logits, 1e-5);
        assert_tensor_close(&format!("{what}: alphas"), &alphas, &want_alphas, 1e-5);
        let (gn, gs) = (weighted(&logits).backward().unwrap(), weighted(&want_logits).backward().unwrap());
        let w = &model.decoder.cell.weights;
        let tensors = [
            ("cell.weight_ih", w.weight_ih.tensor()),
            ("cell.weight_hh", w.weight_hh.tensor()),
            ("cell.bias_ih", w.bias_ih.tensor()),
            ("cell.bias_hh", w.bias_hh.tensor()),
            ("attn.weight", model.decoder.attn.weight.tensor()),
            ("embed.weight", model.decoder.embed.weight.tensor()),
            ("encoder.embed.weight", model.encoder.embed.weight.tensor()),
        ];
        same_grads(&what, &gn, &gs, &tensors);
    }
}
