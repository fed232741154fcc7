//! Reading the JSON fixtures written by `tools/fixtures` (PyTorch and NumPy's own numbers).

#![allow(dead_code)]

use attention_zoo::prelude::*;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A fixture file read into the test's own struct (serde derive): a missing or mistyped field
/// fails at load time, naming the file and the field.
pub fn load_as<T: DeserializeOwned>(name: &str) -> T {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `make fixtures`)"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A number as the fixtures write it: JSON has no NaN or infinities, so those are the strings
/// "nan", "inf" and "-inf".
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged)]
pub enum Num {
    Plain(f64),
    Word(#[serde(deserialize_with = "word")] f64),
}

fn word<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    let s = String::deserialize(d)?;
    s.parse::<f64>().map_err(|_| serde::de::Error::custom(format!("not a number: {s}")))
}

impl Num {
    pub fn get(self) -> f64 {
        match self {
            Num::Plain(x) | Num::Word(x) => x,
        }
    }
}

/// A list of fixture numbers as `f64`s.
pub fn nums(v: &[Num]) -> Vec<f64> {
    v.iter().map(|x| x.get()).collect()
}

/// A `{"shape": [...], "data": [...]}` fixture tensor.
#[derive(Clone, Debug, Deserialize)]
pub struct TensorFx {
    pub shape: Vec<usize>,
    pub data: Vec<Num>,
}

impl TensorFx {
    /// The values as a float32 tensor.
    pub fn tensor(&self) -> Tensor {
        let data: Vec<f32> = self.data.iter().map(|x| x.get() as f32).collect();
        Tensor::from_vec(data, self.shape.as_slice(), &Device::Cpu).expect("fixture tensor")
    }
}

/// Rows of token ids `[[4, 5, 0], ...]`.
#[derive(Clone, Debug, Deserialize)]
pub struct IdRowsFx(pub Vec<Vec<u32>>);

impl IdRowsFx {
    /// The rows as a `u32` tensor `(N, T)`.
    pub fn tensor(&self) -> Tensor {
        let (n, t) = (self.0.len(), self.0.first().map_or(0, Vec::len));
        Tensor::from_vec(self.0.concat(), (n, t), &Device::Cpu).expect("id rows")
    }
}

/// The sizes of a recurrent translator fixture (`gru_translation.json`, `lstm_translation.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct RecurrentSizes {
    pub embed_dim: usize,
    pub hidden_dim: usize,
    pub src_vocab: usize,
    pub tgt_vocab: usize,
}

/// A state dict `[[name, tensor], ...]`, in PyTorch's order.
#[derive(Clone, Debug, Deserialize)]
pub struct StateFx(pub Vec<(String, TensorFx)>);

impl StateFx {
    /// `(name, tensor)` pairs.
    pub fn tensors(&self) -> Vec<(String, Tensor)> {
        self.0.iter().map(|(n, t)| (n.clone(), t.tensor())).collect()
    }
}

pub fn values(t: &Tensor) -> Vec<f64> {
    t.flatten_all().and_then(|t| t.to_dtype(DType::F64)).and_then(|t| t.to_vec1::<f64>()).expect("tensor values")
}

/// Asserts two lists agree elementwise within `tol`, naming the first difference.
#[track_caller]
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {} values, expected {}", got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}[{i}]: got {g}, expected {w} (tolerance {tol})");
    }
}

/// The largest elementwise difference of two lists of the same length.
#[track_caller]
pub fn max_diff(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths");
    got.iter().zip(want).map(|(g, w)| (g - w).abs()).fold(0.0, f64::max)
}

/// Asserts `got` agrees with a fixture tensor within `tol * max(1, |want|)` (relative above 1)
/// and returns the largest absolute difference.
#[track_caller]
pub fn close_relative<W: AsTensor + ?Sized>(what: &str, got: &Tensor, want: &W, tol: f64) -> f64 {
    let want_t = want.as_tensor();
    assert_eq!(got.dims(), want_t.dims(), "{what}: shape");
    let mut max = 0f64;
    for (i, (a, b)) in values(got).iter().zip(values(&want_t)).enumerate() {
        let d = if *a == b { 0.0 } else { (a - b).abs() };
        assert!(d == 0.0 || d <= tol * b.abs().max(1.0), "{what}[{i}]: got {a}, expected {b} (tolerance {tol}, relative above 1)");
        max = max.max(d);
    }
    max
}

#[track_caller]
pub fn assert_tensor_close(what: &str, got: &Tensor, want: &Tensor, tol: f64) {
    assert_eq!(got.dims(), want.dims(), "{what}: shape");
    assert_close(what, &values(got), &values(want), tol);
}

/// A tensor to compare against: a fixture's [`TensorFx`], or a tensor computed in the test.
pub trait AsTensor {
    fn as_tensor(&self) -> Tensor;
}

impl AsTensor for TensorFx {
    fn as_tensor(&self) -> Tensor {
        self.tensor()
    }
}

impl AsTensor for Tensor {
    fn as_tensor(&self) -> Tensor {
        self.clone()
    }
}

/// Asserts a module's parameters equal a `[[name, tensor], ...]` fixture: same names, same
/// order, values within `tol`.
#[track_caller]
pub fn assert_params<M: Walk>(what: &str, m: &M, want: &StateFx, tol: f64) {
    let want = want.tensors();
    let got = m.named_parameters();
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    let want_names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, want_names, "{what}: parameter names and order");
    for ((n, p), (_, w)) in got.iter().zip(&want) {
        assert_tensor_close(&format!("{what}: {n}"), &p.tensor(), w, tol);
    }
}
