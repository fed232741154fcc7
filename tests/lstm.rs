//! The blog post's recurrent pieces against PyTorch (tests/fixtures/lstm.json, written by
//! tools/fixtures/lstm.py): `LstmCell` equal to `nn.LSTMCell` (initial weights bit for bit, steps
//! within 1e-6), and a bidirectional LSTM over padded, unsorted batches of different lengths equal
//! to PyTorch's packed one (outputs, final states and the input's gradient), with clear errors for
//! bad lengths and states.

use crate::common;

use attention_zoo::nn::LstmCell;
use attention_zoo::prelude::*;
use common::fixtures::{assert_tensor_close, load, state, tensor, usizes, values};
use serde_json::Value;

fn size(case: &Value, key: &str) -> usize {
    case[key].as_u64().unwrap_or_else(|| panic!("{key}")) as usize
}

fn same_weights<M: Walk>(what: &str, module: &M, want: &Value) {
    let want = state(want);
    let got = module.named_parameters();
    assert_eq!(
        got.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        want.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        "{what}: names"
    );
    for ((name, p), (_, w)) in got.iter().zip(&want) {
        assert_eq!(values(&p.tensor()), values(w), "{what}: {name} bit for bit");
    }
}

#[test]
fn lstm_cell_is_pytorchs() {
    let _guard = common::serial();
    for case in load("lstm")["cells"].as_array().unwrap() {
        let what = format!("LSTMCell seed {}", case["seed"]);
        manual_seed(size(case, "seed") as i128).unwrap();
        let cell = LstmCell::new(size(case, "input_size"), size(case, "hidden_size")).unwrap();
        same_weights(&what, &cell, &case["state"]);
        let (x, h0, c0) = (tensor(&case["x"]), tensor(&case["h0"]), tensor(&case["c0"]));
        let (h1, c1) = cell.forward(&x, Some((&h0, &c0))).unwrap();
        assert_tensor_close(&format!("{what}: h'"), &h1, &tensor(&case["h1"]), 1e-6);
        assert_tensor_close(&format!("{what}: c'"), &c1, &tensor(&case["c1"]), 1e-6);
        let (hz, cz) = cell.forward(&x, None).unwrap();
        assert_tensor_close(&format!("{what}: h' from zeros"), &hz, &tensor(&case["h_zero"]), 1e-6);
        assert_tensor_close(&format!("{what}: c' from zeros"), &cz, &tensor(&case["c_zero"]), 1e-6);
    }
}

#[test]
fn padded_bidirectional_lstm_is_pytorchs_packed_one() {
    let _guard = common::serial();
    for case in load("lstm")["packed"].as_array().unwrap() {
        let lengths = usizes(&case["lengths"]);
        let what = format!("biLSTM seed {} lengths {lengths:?}", case["seed"]);
        manual_seed(size(case, "seed") as i128).unwrap();
        let lstm = Lstm::with_layers(size(case, "input_size"), size(case, "hidden_size"), size(case, "layers"), true).unwrap();
        same_weights(&what, &lstm, &case["state"]);
        let x = Var::from_tensor(&tensor(&case["x"])).unwrap();
        let (out, (h_n, c_n)) = lstm.forward_padded(x.as_tensor(), &lengths, None).unwrap();
        assert_tensor_close(&format!("{what}: outputs"), &out, &tensor(&case["out"]), 1e-6);
        assert_tensor_close(&format!("{what}: h_n"), &h_n, &tensor(&case["h_n"]), 1e-6);
        assert_tensor_close(&format!("{what}: c_n"), &c_n, &tensor(&case["c_n"]), 1e-6);
        // Padded steps are exactly zero.
        let (n, l, _) = out.dims3().unwrap();
        for (i, &len) in lengths.iter().enumerate().take(n) {
            if len < l {
                let pad = out.get(i).unwrap().narrow(0, len, l - len).unwrap();
                assert!(values(&pad).iter().all(|v| *v == 0.0), "{what}: row {i} past its length");
            }
        }
        let loss = ((out * tensor(&case["out_weights"])).unwrap().sum_all().unwrap()
            + (h_n.sum_all().unwrap() * 0.5).unwrap()
            + ((&c_n * &c_n).unwrap().sum_all().unwrap() * 0.25).unwrap())
        .unwrap();
        let want_loss = case["loss"].as_f64().unwrap();
        assert!((loss.to_scalar::<f32>().unwrap() as f64 - want_loss).abs() < 1e-5, "{what}: loss");
        let grads = loss.backward().unwrap();
        assert_tensor_close(&format!("{what}: input gradient"), grads.get(x.as_tensor()).unwrap(), &tensor(&case["x_grad"]), 1e-5);
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
