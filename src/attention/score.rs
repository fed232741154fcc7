//! Alignment scores and alphas: the step-by-step pieces of the lecture as small pure functions,
//! and the scoring functions of the slides.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `D` dimensions.

use super::mask::MASK_FILL;
use crate::nn::ops::{masked_fill, softmax};
use crate::nn::shape::{Within, invalid};
use crate::nn::shape::{check_float, check_same_dtype, error, shape_error};
use candle_core::{D, DType, Result, Tensor};

/// Equal weights for every key: `(N, L, H) -> (N, 1, L)`, each `1/L` (the lecture's first,
/// naive `calc_alphas`).
pub fn uniform_alphas(keys: &Tensor) -> Result<Tensor> {
    let (n, l, _) = keys.dims3().map_err(|_| shape_error("uniform_alphas", "keys (N, L, H)", keys.dims()))?;
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

/// Dot products of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
pub fn dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys).within("dot_products")?;
    let rank = keys.rank();
    query.contiguous()?.matmul(&keys.transpose(rank - 2, rank - 1)?.contiguous()?)
}

/// Scaled dot products, divided by `sqrt(D)`.
pub fn scaled_dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys).within("scaled_dot_products")?;
    let d = query.dim(D::Minus1)?;
    dot_products(query, keys)? / (d as f64).sqrt()
}

/// Cosine similarity of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
pub fn cosine_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk(query, keys).within("cosine_products")?;
    let qn = query.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., Lq, 1)
    let kn = keys.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., L, 1)
    let rank = keys.rank();
    let norms = qn.matmul(&kn.transpose(rank - 2, rank - 1)?.contiguous()?)?;
    dot_products(query, keys)?.div(&norms.maximum(1e-8)?)
}

/// Attention scores from scaled dot products (the lecture's final `calc_alphas`):
/// `keys (N, L, H)`, `query (N, 1, H)` -> `(N, 1, L)`.
pub fn calc_alphas(keys: &Tensor, query: &Tensor) -> Result<Tensor> {
    softmax(&scaled_dot_products(query, keys)?)
}

/// The context vectors: `alphas (..., Lq, L)` times `values (..., L, H)` -> `(..., Lq, H)`.
pub fn context_vector(alphas: &Tensor, values: &Tensor) -> Result<Tensor> {
    // candle's matmul compares only the product of the batch dims: compare them one by one.
    let (a, v) = (alphas.dims(), values.dims());
    if a.len() < 2 || a.len() != v.len() || a[..a.len() - 2] != v[..v.len() - 2] || a[a.len() - 1] != v[v.len() - 2] {
        return Err(error(
            "context_vector",
            format!("expected alphas (..., Lq, L) and values (..., L, Dv) with the same batch dims and L, got {a:?} and {v:?}"),
        ));
    }
    check_float(alphas).within("context_vector")?;
    check_float(values).within("context_vector")?;
    check_same_dtype(&[("alphas", alphas), ("values", values)]).within("context_vector")?;
    alphas.contiguous()?.matmul(&values.contiguous()?)
}

/// Scaled dot-product attention for any batch shape: `(..., Lq, D)`, `(..., L, D)`,
/// `(..., L, Dv)` and an optional mask broadcasting to `(..., Lq, L)` -> (context
/// `(..., Lq, Dv)`, alphas `(..., Lq, L)`).
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
