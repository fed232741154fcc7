//! The fused GRU and LSTM steps (one graph node a time step from hidden size 8 on, `nn::cells`)
//! against the same arithmetic written out here as tensor operations from the layers' public
//! weights, and the GRU over a padded batch against each sequence run alone: the outputs and
//! final states within 1e-6 (the fused nodes take `exp` and `tanh` from `nn::fast_math`, a few
//! ulps from libm's, which the composed operations call), every gradient within 1e-5. The
//! fixtures check the fused steps against PyTorch too (`gru_translation`, hidden size 8, and
//! `lstm_translation`).

use crate::common::{self, fixtures::assert_tensor_close, weighted};
use attention_zoo::nn::{Gru, Lstm, LstmCell, RnnWeights, sigmoid};
use attention_zoo::prelude::*;
use candle_core::{Var, backprop::GradStore};

fn input_gates(w: &RnnWeights, x: &Tensor) -> Tensor {
    x.matmul(&w.weight_ih.tensor().t().unwrap()).unwrap().broadcast_add(&w.bias_ih.tensor()).unwrap()
}

fn hidden_gates(w: &RnnWeights, h: &Tensor) -> Tensor {
    h.matmul(&w.weight_hh.tensor().t().unwrap()).unwrap().broadcast_add(&w.bias_hh.tensor()).unwrap()
}

/// The input gates of every step at once, `(N, L, G*H)`, as a layer computes them (one product:
/// a product per step would round differently).
fn all_input_gates(w: &RnnWeights, x: &Tensor) -> Tensor {
    let (n, l, f) = x.dims3().unwrap();
    let g = input_gates(w, &x.reshape((n * l, f)).unwrap());
    let width = g.dim(1).unwrap();
    g.reshape((n, l, width)).unwrap()
}

fn step_of(g: &Tensor, t: usize) -> Tensor {
    g.narrow(1, t, 1).unwrap().squeeze(1).unwrap()
}

/// One GRU layer over `x (N, L, F)` from zeros, as composed tensor operations.
fn composed_gru(w: &RnnWeights, x: &Tensor, hd: usize) -> (Tensor, Tensor) {
    let n = x.dim(0).unwrap();
    let mut h = Tensor::zeros((n, hd), DType::F32, &Device::Cpu).unwrap();
    let mut outs = vec![];
    let all = all_input_gates(w, x);
    for t in 0..x.dim(1).unwrap() {
        let (gi, gh) = (step_of(&all, t), hidden_gates(w, &h));
        let part = |g: &Tensor, k: usize| g.narrow(1, k * hd, hd).unwrap();
        let r = sigmoid(&(part(&gi, 0) + part(&gh, 0)).unwrap()).unwrap();
        let z = sigmoid(&(part(&gi, 1) + part(&gh, 1)).unwrap()).unwrap();
        let nn = (part(&gi, 2) + (part(&gh, 2) * r).unwrap()).unwrap().tanh().unwrap();
        h = (((&h - &nn).unwrap() * z).unwrap() + nn).unwrap();
        outs.push(h.clone());
    }
    (Tensor::stack(&outs, 1).unwrap(), h)
}

/// One LSTM step from `(h, c)` and the step's input gates, as composed tensor operations.
fn composed_lstm_step(w: &RnnWeights, gi: &Tensor, h: &Tensor, c: &Tensor, hd: usize) -> (Tensor, Tensor) {
    let g = (gi + hidden_gates(w, h)).unwrap();
    let part = |k: usize| g.narrow(1, k * hd, hd).unwrap();
    let (i, f, o) = (sigmoid(&part(0)).unwrap(), sigmoid(&part(1)).unwrap(), sigmoid(&part(3)).unwrap());
    let c = ((f * c).unwrap() + (i * part(2).tanh().unwrap()).unwrap()).unwrap();
    let h = (o * c.tanh().unwrap()).unwrap();
    (h, c)
}

fn input(n: usize, l: usize, f: usize) -> Var {
    Var::from_tensor(&attention_zoo::repro::randn((n, l, f)).unwrap()).unwrap()
}

fn same_values(what: &str, got: &Tensor, want: &Tensor) {
    assert_tensor_close(what, got, want, 1e-6);
}

/// Gradients within 1e-5.
fn same_grads(what: &str, fused: &GradStore, composed: &GradStore, tensors: &[(&str, Tensor)]) {
    common::same_grads(what, fused, composed, tensors, 1e-5);
}

#[test]
fn fused_gru_steps_equal_the_composed_arithmetic() {
    let _serial = common::serial();
    for hd in [8, 16, 37] {
        manual_seed(hd as i128).unwrap();
        let gru = Gru::new(5, hd).unwrap();
        let x = input(3, 4, 5);
        let (out, h_n) = gru.forward(x.as_tensor(), None).unwrap();
        let w = &gru.weights[0];
        let (want_out, want_h) = composed_gru(w, x.as_tensor(), hd);
        same_values(&format!("GRU {hd}: outputs"), &out, &want_out);
        same_values(&format!("GRU {hd}: h_n"), &h_n.squeeze(0).unwrap(), &want_h);
        let tensors = [
            ("x", x.as_tensor().clone()),
            ("weight_ih", w.weight_ih.tensor()),
            ("weight_hh", w.weight_hh.tensor()),
            ("bias_ih", w.bias_ih.tensor()),
            ("bias_hh", w.bias_hh.tensor()),
        ];
        let (fused, composed) = (weighted(&out).backward().unwrap(), weighted(&want_out).backward().unwrap());
        same_grads(&format!("GRU {hd}"), &fused, &composed, &tensors);
    }
}

#[test]
fn fused_lstm_steps_equal_the_composed_arithmetic() {
    let _serial = common::serial();
    for hd in [8, 20] {
        manual_seed(hd as i128).unwrap();
        let cell = LstmCell::new(6, hd).unwrap();
        let x = input(4, 1, 6);
        let x1 = x.as_tensor().squeeze(1).unwrap();
        let h0 = Var::from_tensor(&attention_zoo::repro::randn((4, hd)).unwrap()).unwrap();
        let c0 = Var::from_tensor(&attention_zoo::repro::randn((4, hd)).unwrap()).unwrap();
        let (h1, c1) = cell.forward(&x1, Some((h0.as_tensor(), c0.as_tensor()))).unwrap();
        let (want_h, want_c) = composed_lstm_step(&cell.weights, &input_gates(&cell.weights, &x1), h0.as_tensor(), c0.as_tensor(), hd);
        same_values(&format!("LSTMCell {hd}: h'"), &h1, &want_h);
        same_values(&format!("LSTMCell {hd}: c'"), &c1, &want_c);
        // both outputs carry gradient, as in a decoder that reads h' and passes c' on
        let loss = |h: &Tensor, c: &Tensor| (weighted(h) + weighted(&(c * 0.5).unwrap())).unwrap();
        let (fused, composed) = (loss(&h1, &c1).backward().unwrap(), loss(&want_h, &want_c).backward().unwrap());
        let w = &cell.weights;
        let tensors = [
            ("x", x.as_tensor().clone()),
            ("h", h0.as_tensor().clone()),
            ("c", c0.as_tensor().clone()),
            ("weight_ih", w.weight_ih.tensor()),
            ("weight_hh", w.weight_hh.tensor()),
            ("bias_ih", w.bias_ih.tensor()),
            ("bias_hh", w.bias_hh.tensor()),
        ];
        same_grads(&format!("LSTMCell {hd}"), &fused, &composed, &tensors);

        // the layer: three steps from zeros
        let lstm = Lstm::new(6, hd).unwrap();
        let xs = input(2, 3, 6);
        let (out, (h_n, c_n)) = lstm.forward(xs.as_tensor(), None).unwrap();
        let w = &lstm.weights[0];
        let zeros = Tensor::zeros((2, hd), DType::F32, &Device::Cpu).unwrap();
        let (mut h, mut c, mut outs) = (zeros.clone(), zeros, vec![]);
        let all = all_input_gates(w, xs.as_tensor());
        for t in 0..3 {
            (h, c) = composed_lstm_step(w, &step_of(&all, t), &h, &c, hd);
            outs.push(h.clone());
        }
        let want_out = Tensor::stack(&outs, 1).unwrap();
        same_values(&format!("LSTM {hd}: outputs"), &out, &want_out);
        same_values(&format!("LSTM {hd}: h_n"), &h_n.squeeze(0).unwrap(), &h);
        same_values(&format!("LSTM {hd}: c_n"), &c_n.squeeze(0).unwrap(), &c);
        let tensors = [("x", xs.as_tensor().clone()), ("weight_hh", w.weight_hh.tensor()), ("bias_ih", w.bias_ih.tensor())];
        let (fused, composed) = (weighted(&out).backward().unwrap(), weighted(&want_out).backward().unwrap());
        same_grads(&format!("LSTM {hd}"), &fused, &composed, &tensors);
    }
}

#[test]
fn fused_packed_lstm_equals_the_composed_arithmetic() {
    let _serial = common::serial();
    let (hd, lengths) = (9, [5usize, 2, 3]);
    manual_seed(7).unwrap();
    let lstm = Lstm::new(6, hd).unwrap();
    let xs = input(3, 5, 6);
    let (out, (h_n, c_n)) = lstm.forward_padded(xs.as_tensor(), &lengths, None).unwrap();
    // the step-by-step arithmetic: padded steps keep the state and output zeros
    let w = &lstm.weights[0];
    let keep: Vec<f32> = lengths.iter().flat_map(|&len| (0..5).map(move |t| if t < len { 1.0 } else { 0.0 })).collect();
    let keep = Tensor::from_vec(keep, (3, 5), &Device::Cpu).unwrap();
    let zeros = Tensor::zeros((3, hd), DType::F32, &Device::Cpu).unwrap();
    let (mut h, mut c, mut outs) = (zeros.clone(), zeros, vec![]);
    let all = all_input_gates(w, xs.as_tensor());
    for t in 0..5 {
        let k = keep.narrow(1, t, 1).unwrap();
        let not_k = k.affine(-1.0, 1.0).unwrap();
        let (h_new, c_new) = composed_lstm_step(w, &step_of(&all, t), &h, &c, hd);
        let blend = |new: &Tensor, old: &Tensor| (new.broadcast_mul(&k).unwrap() + old.broadcast_mul(&not_k).unwrap()).unwrap();
        (h, c) = (blend(&h_new, &h), blend(&c_new, &c));
        outs.push(h_new.broadcast_mul(&k).unwrap());
    }
    let want_out = Tensor::stack(&outs, 1).unwrap();
    same_values("packed LSTM: outputs", &out, &want_out);
    same_values("packed LSTM: h_n", &h_n.squeeze(0).unwrap(), &h);
    same_values("packed LSTM: c_n", &c_n.squeeze(0).unwrap(), &c);
    let loss = |o: &Tensor, h: &Tensor, c: &Tensor| ((weighted(o) + weighted(h)).unwrap() + weighted(&(c * 0.3).unwrap())).unwrap();
    let fused = loss(&out, &h_n.squeeze(0).unwrap(), &c_n.squeeze(0).unwrap()).backward().unwrap();
    let composed = loss(&want_out, &h, &c).backward().unwrap();
    let tensors = [
        ("x", xs.as_tensor().clone()),
        ("weight_ih", w.weight_ih.tensor()),
        ("weight_hh", w.weight_hh.tensor()),
        ("bias_ih", w.bias_ih.tensor()),
        ("bias_hh", w.bias_hh.tensor()),
    ];
    same_grads("packed LSTM", &fused, &composed, &tensors);
}

/// `Gru::forward_padded` (what PyTorch gets from `pack_padded_sequence`) against each sequence
/// run alone by `Gru::forward` from its own initial state, for the step-by-step (hidden size 4)
/// and fused (16) layers, one and two directions, two layers, with a batch where one sequence
/// fills it and one where none does: the outputs at the real steps and the final states within
/// 1e-6, exact zeros at every padded step, every gradient (input, initial state, all weights)
/// within 1e-5. What lies in the padding of the input does not matter.
#[test]
fn padded_gru_equals_each_sequence_alone() {
    let _serial = common::serial();
    let l = 5;
    for (hd, bidirectional, lengths) in
        [(4, false, [5usize, 2, 4]), (4, true, [3, 1, 4]), (16, false, [5, 2, 4]), (16, true, [5, 2, 4]), (16, true, [3, 1, 4])]
    {
        let what = format!("padded GRU {hd}, bidirectional {bidirectional}, lengths {lengths:?}");
        manual_seed(hd as i128).unwrap();
        let gru = Gru::with_layers(3, hd, 2, bidirectional).unwrap();
        let x = input(3, l, 3);
        let h0 = Var::from_tensor(&attention_zoo::repro::randn((gru.weights.len(), 3, hd)).unwrap()).unwrap();
        let (out, h_n) = gru.forward_padded(x.as_tensor(), &lengths, Some(h0.as_tensor())).unwrap();
        let width = out.dim(2).unwrap();
        let (mut alone_out, mut alone_h) = (vec![], vec![]);
        for (i, &len) in lengths.iter().enumerate() {
            let row_h0 = h0.as_tensor().narrow(1, i, 1).unwrap();
            let (o, h) = gru.forward(&x.as_tensor().narrow(0, i, 1).unwrap().narrow(1, 0, len).unwrap(), Some(&row_h0)).unwrap();
            let pad = Tensor::zeros((1, l - len, width), DType::F32, &Device::Cpu).unwrap();
            alone_out.push(if len < l { Tensor::cat(&[o, pad], 1).unwrap() } else { o });
            alone_h.push(h);
        }
        let (want_out, want_h) = (Tensor::cat(&alone_out, 0).unwrap(), Tensor::cat(&alone_h, 1).unwrap());
        same_values(&format!("{what}: outputs"), &out, &want_out);
        same_values(&format!("{what}: h_n"), &h_n, &want_h);
        for (i, &len) in lengths.iter().enumerate().filter(|(_, len)| **len < l) {
            let padding = out.narrow(0, i, 1).unwrap().narrow(1, len, l - len).unwrap().abs().unwrap().sum_all().unwrap();
            assert_eq!(padding.to_scalar::<f32>().unwrap(), 0.0, "{what}: outputs at the padding of sequence {i}");
        }
        let loss = |o: &Tensor, h: &Tensor| (weighted(o) + weighted(h)).unwrap();
        let (padded, alone) = (loss(&out, &h_n).backward().unwrap(), loss(&want_out, &want_h).backward().unwrap());
        let mut tensors = vec![("x", x.as_tensor().clone()), ("h0", h0.as_tensor().clone())];
        for w in &gru.weights {
            tensors.extend([
                ("weight_ih", w.weight_ih.tensor()),
                ("weight_hh", w.weight_hh.tensor()),
                ("bias_ih", w.bias_ih.tensor()),
                ("bias_hh", w.bias_hh.tensor()),
            ]);
        }
        same_grads(&what, &padded, &alone, &tensors);
    }
    let gru = Gru::new(3, 8).unwrap();
    let x = input(2, 4, 3);
    for bad in [vec![4], vec![0, 3], vec![5, 1]] {
        let e = gru.forward_padded(x.as_tensor(), &bad, None).unwrap_err().to_string();
        assert!(e.contains("GRU (padded batch)") && e.contains("length"), "lengths {bad:?}: {e}");
    }
}
