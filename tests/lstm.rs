//! The blog post's recurrent pieces against PyTorch (tests/fixtures/lstm.json, written by
//! tools/fixtures/lstm.py): `LstmCell` equal to `nn.LSTMCell` (initial weights bit for bit, steps
//! within 1e-6), and a bidirectional LSTM over padded, unsorted batches of different lengths equal
//! to PyTorch's packed one (outputs, final states and the input's gradient), with clear errors for
//! bad lengths and states.

use crate::common;

use attention_zoo::nn::LstmCell;
use attention_zoo::prelude::*;
use common::fixtures::{StateFx, TensorFx, assert_params, assert_tensor_close, load_as, values};
use serde::Deserialize;

/// `tests/fixtures/lstm.json`: `nn.LSTMCell` steps and packed bidirectional LSTMs.
#[derive(Deserialize)]
struct LstmFx {
    cells: Vec<CellCase>,
    packed: Vec<PackedCase>,
}

/// One `nn.LSTMCell`: its weights, a step from a given state and one from zeros.
#[derive(Deserialize)]
struct CellCase {
    seed: i64,
    input_size: usize,
    hidden_size: usize,
    state: StateFx,
    x: TensorFx,
    h0: TensorFx,
    c0: TensorFx,
    h1: TensorFx,
    c1: TensorFx,
    h_zero: TensorFx,
    c_zero: TensorFx,
}

/// One packed bidirectional LSTM over an unsorted padded batch, with a loss and its input gradient.
#[derive(Deserialize)]
struct PackedCase {
    seed: i64,
    input_size: usize,
    hidden_size: usize,
    layers: usize,
    lengths: Vec<usize>,
    state: StateFx,
    x: TensorFx,
    out: TensorFx,
    h_n: TensorFx,
    c_n: TensorFx,
    out_weights: TensorFx,
    loss: f64,
    x_grad: TensorFx,
}

fn fixture() -> LstmFx {
    load_as("lstm")
}

#[test]
fn lstm_cell_is_pytorchs() {
    let _guard = common::serial();
    for case in fixture().cells {
        let what = format!("LSTMCell seed {}", case.seed);
        manual_seed(case.seed as i128).unwrap();
        let cell = LstmCell::new(case.input_size, case.hidden_size).unwrap();
        assert_params(&format!("{what}: bit for bit"), &cell, &case.state, 0.0);
        let (x, h0, c0) = (case.x.tensor(), case.h0.tensor(), case.c0.tensor());
        let (h1, c1) = cell.forward(&x, Some((&h0, &c0))).unwrap();
        assert_tensor_close(&format!("{what}: h'"), &h1, &case.h1.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: c'"), &c1, &case.c1.tensor(), 1e-6);
        let (hz, cz) = cell.forward(&x, None).unwrap();
        assert_tensor_close(&format!("{what}: h' from zeros"), &hz, &case.h_zero.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: c' from zeros"), &cz, &case.c_zero.tensor(), 1e-6);
    }
}

#[test]
fn padded_bidirectional_lstm_is_pytorchs_packed_one() {
    let _guard = common::serial();
    for case in fixture().packed {
        let lengths = &case.lengths;
        let what = format!("biLSTM seed {} lengths {lengths:?}", case.seed);
        manual_seed(case.seed as i128).unwrap();
        let lstm = Lstm::with_layers(case.input_size, case.hidden_size, case.layers, true).unwrap();
        assert_params(&format!("{what}: bit for bit"), &lstm, &case.state, 0.0);
        let x = Var::from_tensor(&case.x.tensor()).unwrap();
        let (out, (h_n, c_n)) = lstm.forward_padded(x.as_tensor(), lengths, None).unwrap();
        assert_tensor_close(&format!("{what}: outputs"), &out, &case.out.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: h_n"), &h_n, &case.h_n.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: c_n"), &c_n, &case.c_n.tensor(), 1e-6);
        // Padded steps are exactly zero.
        let (n, l, _) = out.dims3().unwrap();
        for (i, &len) in lengths.iter().enumerate().take(n) {
            if len < l {
                let pad = out.get(i).unwrap().narrow(0, len, l - len).unwrap();
                assert!(values(&pad).iter().all(|v| *v == 0.0), "{what}: row {i} past its length");
            }
        }
        let loss = ((out * case.out_weights.tensor()).unwrap().sum_all().unwrap()
            + (h_n.sum_all().unwrap() * 0.5).unwrap()
            + ((&c_n * &c_n).unwrap().sum_all().unwrap() * 0.25).unwrap())
        .unwrap();
        let want_loss = case.loss;
        assert!((loss.to_scalar::<f32>().unwrap() as f64 - want_loss).abs() < 1e-5, "{what}: loss");
        let grads = loss.backward().unwrap();
        assert_tensor_close(&format!("{what}: input gradient"), grads.get(x.as_tensor()).unwrap(), &case.x_grad.tensor(), 1e-5);
    }
}

fn refused<T: std::fmt::Debug>(what: &str, r: Result<T>, parts: &[&str]) {
    let e = r.expect_err(what).to_string();
    for p in parts {
        assert!(e.contains(p), "{what}: `{p}` missing from: {e}");
    }
}

#[test]
fn bad_lengths_and_states_are_clear_errors() {
    let _serial = common::serial(); // it draws from the shared default generator
    let lstm = Lstm::with_layers(3, 4, 1, true).unwrap();
    let x = Tensor::zeros((2, 5, 3), DType::F32, &Device::Cpu).unwrap();
    let module = "LSTM (padded batch)";
    refused("a length past the padding", lstm.forward_padded(&x, &[5, 6], None), &[module, "length 6 of sequence 1", "5 steps"]);
    refused("a zero length", lstm.forward_padded(&x, &[0, 2], None), &[module, "length 0 of sequence 0"]);
    refused("too few lengths", lstm.forward_padded(&x, &[3], None), &[module, "1 lengths for a batch of 2"]);
    let h = Tensor::zeros((1, 2, 4), DType::F32, &Device::Cpu).unwrap();
    refused("a one-direction state", lstm.forward_padded(&x, &[3, 2], Some((&h, &h))), &[module, "(2, 2, 4)", "[1, 2, 4]"]);
    let cell = LstmCell::new(3, 4).unwrap();
    let x2 = Tensor::zeros((2, 3), DType::F32, &Device::Cpu).unwrap();
    refused("a cell state of the wrong shape", cell.forward(&x2, Some((&h, &h))), &["LSTMCell", "[2, 4]", "[1, 2, 4]"]);
    refused("a cell input of the wrong width", cell.forward(&h, None), &["LSTMCell", "(N, 3)"]);
    refused("an empty cell", LstmCell::new(0, 4), &["LSTMCell", "input_size = 0"]);
}

/// A bidirectional LSTM over a batch without padding is the packed one with every length full
/// (itself PyTorch's, above), at sizes where the fused cell's outputs are not contiguous (H >= 8);
/// `reverse_time` of such a tensor is the reversal of its contiguous copy.
#[test]
fn bidirectional_lstm_without_padding_is_the_packed_one() {
    let _serial = common::serial();
    for (hidden, len) in [(4, 3), (8, 5), (16, 2)] {
        manual_seed(3).unwrap();
        let lstm = Lstm::with_layers(3, hidden, 2, true).unwrap();
        let x = attention_zoo::repro::randn(&[2, len, 3]).unwrap();
        let (out, (h, c)) = lstm.forward(&x, None).unwrap_or_else(|e| panic!("H = {hidden}, L = {len}: {e}"));
        let (packed, (ph, pc)) = lstm.forward_padded(&x, &[len, len], None).unwrap();
        for (a, b) in [(&out, &packed), (&h, &ph), (&c, &pc)] {
            assert_eq!(a.dims(), b.dims());
            let d = (a - b).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
            assert!(d <= 1e-6, "H = {hidden}, L = {len}: {d}");
        }
    }
    let t = Tensor::arange(0f32, 24., &Device::Cpu).unwrap().reshape((3, 4, 2)).unwrap().transpose(0, 1).unwrap();
    assert!(!t.is_contiguous());
    let want = reverse_time(&t.contiguous().unwrap()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert_eq!(reverse_time(&t).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap(), want);
}
