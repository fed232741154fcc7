//! Alignment scores and alphas: the step-by-step pieces of the lecture as small pure functions,
//! and the scoring functions of the slides.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `D` dimensions.

use super::mask::MASK_FILL;
use crate::nn::ops::{masked_fill, softmax};
use crate::nn::shape::{check_float, check_same_dtype, invalid, invalid_shape};
use crate::nn::{Linear, errors_as};
use candle_core::{D, DType, Result, Tensor};

/// Equal weights for every key: `(N, L, H) -> (N, 1, L)`, each `1/L` (the lecture's first,
/// naive `calc_alphas`).
#[errors_as]
pub fn uniform_alphas(keys: &Tensor) -> Result<Tensor> {
    let (n, l, _) = keys.dims3().map_err(|_| invalid_shape("keys (N, L, H)", keys.dims()))?;
    Tensor::ones((n, 1, l), DType::F32, keys.device())? / l as f64
}

fn check_qk(query: &Tensor, keys: &Tensor) -> Result<()> {
    check_float(query)?;
    check_float(keys)?;
    check_same_dtype(&[("query", query), ("keys", keys)])?;
    let (q, k) = (query.dims(), keys.dims());
    if q.len() < 2 || q.len() != k.len() || q[..q.len() - 2] != k[..k.len() - 2] || q[q.len() - 1] != k[k.len() - 1] {
        return Err(invalid(format!(
            "expected query (..., Lq, D) and keys (..., L, D) with the same batch dims and D, got {q:?} and {k:?}"
        )));
    }
    Ok(())
}

/// PyTorch's `torch.bmm(a, b)` (any batch dims), unchecked: `(..., M, K)`, `(..., K, P)` ->
/// `(..., M, P)`. Both are made contiguous first (free when they are: keys laid out transposed
/// in memory, `Attention::init_keys`'s, give a contiguous `keys.t()`).
pub(crate) fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.contiguous()?.matmul(&b.contiguous()?)
}

/// Dot products of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
#[errors_as]
pub fn dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys)?;
    bmm(query, &keys.t()?)
}

/// Scaled dot products, divided by `sqrt(D)`.
#[errors_as]
pub fn scaled_dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys)?;
    let d = query.dim(D::Minus1)?;
    bmm(query, &keys.t()?)? / (d as f64).sqrt()
}

/// Cosine similarity of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
#[errors_as]
pub fn cosine_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys)?;
    cosines(query, keys)
}

/// [`cosine_products`], unchecked.
fn cosines(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    let qn = query.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., Lq, 1)
    let kn = keys.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., L, 1)
    let norms = bmm(&qn, &kn.t()?)?;
    bmm(query, &keys.t()?)?.div(&norms.maximum(1e-8)?)
}

/// Attention scores from scaled dot products (the lecture's final `calc_alphas`):
/// `keys (N, L, H)`, `query (N, 1, H)` -> `(N, 1, L)`. (No label of its own: its errors are
/// [`scaled_dot_products`]'s, named so, as they always were.)
pub fn calc_alphas(keys: &Tensor, query: &Tensor) -> Result<Tensor> {
    softmax(&scaled_dot_products(query, keys)?)
}

/// The context vectors: `alphas (..., Lq, L)` times `values (..., L, H)` -> `(..., Lq, H)`.
#[errors_as]
pub fn context_vector(alphas: &Tensor, values: &Tensor) -> Result<Tensor> {
    check_alphas_values(alphas, values)?;
    bmm(alphas, values)
}

/// Checks alphas `(..., Lq, L)` and values `(..., L, Dv)`: candle's matmul compares only the
/// product of the batch dims, so they are compared one by one.
fn check_alphas_values(alphas: &Tensor, values: &Tensor) -> Result<()> {
    let (a, v) = (alphas.dims(), values.dims());
    if a.len() < 2 || a.len() != v.len() || a[..a.len() - 2] != v[..v.len() - 2] || a[a.len() - 1] != v[v.len() - 2] {
        return Err(invalid(format!(
            "expected alphas (..., Lq, L) and values (..., L, Dv) with the same batch dims and L, got {a:?} and {v:?}"
        )));
    }
    check_float(alphas)?;
    check_float(values)?;
    check_same_dtype(&[("alphas", alphas), ("values", values)])
}

/// Scaled dot-product attention for any batch shape: `(..., Lq, D)`, `(..., L, D)`,
/// `(..., L, Dv)` and an optional mask broadcasting to `(..., Lq, L)` -> (context
/// `(..., Lq, Dv)`, alphas `(..., Lq, L)`). (No label of its own: its errors are
/// [`scaled_dot_products`]'s and [`context_vector`]'s, named so, as they always were.)
pub fn scaled_dot_product_attention(query: &Tensor, keys: &Tensor, values: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let mut scores = scaled_dot_products(query, keys)?;
    if let Some(m) = mask {
        scores = masked_fill(&scores, m, MASK_FILL)?;
    }
    let alphas = softmax(&scores)?;
    Ok((context_vector(&alphas, values)?, alphas))
}

/// The scoring functions of the slides. Each turns a projected query and the projected keys
/// into alignment scores `(N, Lq, L)`; the softmax makes them alphas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// `q·k / sqrt(d_k)` (Vaswani 2017), the default.
    ScaledDot,
    /// `q·k` (Luong 2015).
    Dot,
    /// `qᵀ W k`, a trainable `W` (Luong 2015, "general").
    General,
    /// `vᵀ tanh(W [q; k])` (Bahdanau 2015, "additive").
    Additive,
    /// `cos(q, k)` (Graves 2014, "content-based").
    Cosine,
    /// `W q`, one score per source position whatever the keys (Luong 2015, "location-based");
    /// needs the source length.
    Location { source_len: usize },
}

impl Score {
    /// The score's own layers, drawn after the query, key and value layers (as PyTorch draws
    /// them): `W` of the general and additive scores and `W_a` of the location-based one, and
    /// `v` of the additive score.
    pub(crate) fn layers(self, hidden_dim: usize) -> Result<(Option<Linear>, Option<Linear>)> {
        Ok(match self {
            Score::General => (Some(Linear::with_bias(hidden_dim, hidden_dim, false)?), None),
            Score::Additive => {
                (Some(Linear::with_bias(2 * hidden_dim, hidden_dim, false)?), Some(Linear::with_bias(hidden_dim, 1, false)?))
            }
            Score::Location { source_len } => (Some(Linear::new(hidden_dim, source_len)?), None),
            Score::ScaledDot | Score::Dot | Score::Cosine => (None, None),
        })
    }

    /// The scores of projected queries `(N, Lq, H)` against projected keys `(N, L, H)`, with the
    /// score's own layers (what [`Score::layers`] made): `(N, Lq, L)`. Unchecked: the caller
    /// checks the shapes.
    pub(crate) fn scores(self, q: &Tensor, keys: &Tensor, w: Option<&Linear>, v: Option<&Linear>) -> Result<Tensor> {
        match (self, w, v) {
            (Score::ScaledDot, ..) => bmm(q, &keys.t()?)? / (q.dim(D::Minus1)? as f64).sqrt(),
            (Score::Dot, ..) => bmm(q, &keys.t()?),
            (Score::Cosine, ..) => cosines(q, keys),
            (Score::General, Some(w), _) => bmm(q, &w.forward(keys)?.t()?),
            (Score::Additive, Some(w), Some(v)) => v.forward(&Score::additive_hidden(q, keys, w)?)?.squeeze(3),
            (Score::Location { .. }, Some(w), _) => w.forward(q),
            _ => Err(invalid(format!("the {self:?} score's parameters are missing"))),
        }
    }

    /// The additive score's hidden vector of every (query, key) pair, `tanh(W [q; k])`:
    /// `(N, Lq, H)` and `(N, L, H)` -> `(N, Lq, L, H)`, which `v` turns into the scores.
    pub(crate) fn additive_hidden(q: &Tensor, keys: &Tensor, w: &Linear) -> Result<Tensor> {
        let ((n, lq, h), l) = (q.dims3()?, keys.dim(1)?);
        // Every (query, key) pair: (N, Lq, L, 2H) -> tanh(W [q; k]).
        let qe = q.unsqueeze(2)?.broadcast_as((n, lq, l, h))?;
        let ke = keys.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
        let pair = Tensor::cat(&[qe, ke], 3)?;
        w.forward(&pair)?.tanh()
    }
}
