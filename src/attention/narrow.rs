//! The Transformer lecture's narrow multi-head attention: each head projects `d_model` down to
//! `d_k = d_model / n_heads` for its queries, keys and values, so all heads together cost what
//! one full-width head would (compare the lecture's wide [`MultiHeadAttention`](super::MultiHeadAttention),
//! where every head is `d_model` wide).

use super::additive_mask::{additive_mask_problems, attend, attend_transposed};
use super::kv::{ProjectedKv, transposed};
use crate::nn::shape::{check_float, invalid, invalid_shape};
use crate::nn::{Dropout, Linear, Walk, errors_as};
use candle_core::{D, Result, Tensor};

/// What a multi-head attention returns: the output and every head's attention weights.
#[derive(Clone, Debug)]
pub struct MhaOutput {
    /// `(N, Lq, D)`.
    pub output: Tensor,
    /// `(N, n_heads, Lq, Lk)`: row `q` of head `h` sums to 1 over the keys.
    pub weights: Tensor,
}

/// Checks `n_heads` against `d_model` and returns `d_k = d_model / n_heads`.
pub(crate) fn check_head_size(d_model: usize, n_heads: usize) -> Result<usize> {
    if d_model == 0 || n_heads == 0 {
        return Err(invalid(format!("d_model and n_heads must be positive, got d_model = {d_model}, n_heads = {n_heads}")));
    }
    if !d_model.is_multiple_of(n_heads) {
        return Err(invalid(format!(
            "n_heads = {n_heads} does not divide d_model = {d_model}: every head gets d_model / n_heads dimensions"
        )));
    }
    Ok(d_model / n_heads)
}

/// Checks a query `(N, Lq, D)`, keys and values `(N, Lk, D)` and an optional additive mask
/// `(1 or N, 1 or Lq, Lk)`; returns `(N, Lq, Lk)`.
pub(crate) fn check_qkv(d_model: usize, q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<[usize; 3]> {
    for t in [q, k, v] {
        check_float(t)?;
    }
    let (n, lq, lk) = match (q.dims(), k.dims(), v.dims()) {
        (&[n, lq, dq], &[nk, lk, dk], &[nv, lv, dv])
            if dq == d_model && dk == d_model && dv == d_model && nk == n && nv == n && lv == lk =>
        {
            (n, lq, lk)
        }
        (a, b, c) => {
            return Err(invalid(format!(
                "expected query (N, Lq, {d_model}), key and value (N, Lk, {d_model}) with the same N and Lk, got {a:?}, {b:?} and {c:?}"
            )));
        }
    };
    if lk == 0 {
        return Err(invalid_shape(format!("keys (N, Lk, {d_model}) with Lk > 0"), k.dims()));
    }
    if let Some(m) = mask {
        if m.rank() != 3 {
            return Err(invalid_shape(format!("an additive mask of shape (1 or {n}, 1 or {lq}, {lk})"), m.dims()));
        }
        additive_mask_problems(m, &[n, lq, lk])?;
    }
    Ok([n, lq, lk])
}

/// The lecture's `MultiHeadAttention(d_model, num_heads, p_drop)`, narrow: per head a
/// `Linear(d_model, d_k)` each for the queries, keys and values (`d_k = d_model / n_heads`), scaled
/// dot-product attention with an optional additive mask, the heads' outputs concatenated, an output
/// `Linear(d_model, d_model)` and dropout.
///
/// Parameters as PyTorch registers them with `nn.ModuleList`s: `linear_Qs.{h}`, `linear_Ks.{h}`,
/// `linear_Vs.{h}`, then `mha_linear`, drawn in that order. Starts in training mode, as PyTorch
/// modules do.
#[derive(Clone, Debug, Walk)]
pub struct NarrowMultiHeadAttention {
    #[walk(skip)]
    pub d_model: usize,
    #[walk(skip)]
    pub n_heads: usize,
    /// `d_model / n_heads`, every head's width.
    #[walk(skip)]
    pub d_k: usize,
    #[walk(rename = "linear_Qs")]
    pub linear_qs: Vec<Linear>,
    #[walk(rename = "linear_Ks")]
    pub linear_ks: Vec<Linear>,
    #[walk(rename = "linear_Vs")]
    pub linear_vs: Vec<Linear>,
    pub mha_linear: Linear,
    pub dropout: Dropout,
}

impl NarrowMultiHeadAttention {
    /// `n_heads` must divide `d_model`; `p_drop` in `[0, 1]`.
    #[errors_as]
    pub fn new(d_model: usize, n_heads: usize, p_drop: f64) -> Result<Self> {
        let d_k = check_head_size(d_model, n_heads)?;
        let dropout = Dropout::new(p_drop)?;
        let linear_qs = (0..n_heads).map(|_| Linear::new(d_model, d_k)).collect::<Result<Vec<_>>>()?;
        let linear_ks = (0..n_heads).map(|_| Linear::new(d_model, d_k)).collect::<Result<Vec<_>>>()?;
        let linear_vs = (0..n_heads).map(|_| Linear::new(d_model, d_k)).collect::<Result<Vec<_>>>()?;
        let mha_linear = Linear::new(d_model, d_model)?;
        Ok(NarrowMultiHeadAttention { d_model, n_heads, d_k, linear_qs, linear_ks, linear_vs, mha_linear, dropout })
    }

    /// Attention of the queries over the keys and values, head by head; returns the output and
    /// the weights it computed (nothing is kept).
    /// Self-attention passes the same tensor three times; cross-attention the decoder's states as
    /// `query` and the encoder's as `key` and `value`.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, D)`; `key`, `value`: `(N, Lk, D)` with `D = d_model`
    /// - `mask`: optional additive mask `(1 or N, 1 or Lq, Lk)`: the causal mask `(N, Lq, Lq)`, a padding mask `(N, 1, Lk)`
    /// - returns the output `(N, Lq, D)` and the weights `(N, n_heads, Lq, Lk)`
    #[errors_as]
    pub fn forward(&self, query: &Tensor, key: &Tensor, value: &Tensor, mask: Option<&Tensor>) -> Result<MhaOutput> {
        check_qkv(self.d_model, query, key, value, mask)?;
        let (mut outputs, mut weights) = (vec![], vec![]);
        for ((linear_q, linear_k), linear_v) in self.linear_qs.iter().zip(&self.linear_ks).zip(&self.linear_vs) {
            let q = linear_q.forward(query)?;
            let k = linear_k.forward(key)?;
            let v = linear_v.forward(value)?;
            // scaled_dot_product_attention_additive's arithmetic; check_qkv has checked the inputs once
            let (o, w) = attend(&q, &k, &v, mask)?;
            outputs.push(o);
            weights.push(w);
        }
        let concatenated = Tensor::cat(&outputs, D::Minus1)?;
        let output = self.dropout.forward(&self.mha_linear.forward(&concatenated)?)?;
        Ok(MhaOutput { output, weights: Tensor::stack(&weights, 1)? })
    }

    /// The keys and values projected by every head, `(N, Lk, d_k)` each: what
    /// [`NarrowMultiHeadAttention::attend_kv`] reads (incremental decoding keeps them).
    pub(crate) fn project_kv(&self, key: &Tensor, value: &Tensor) -> Result<ProjectedKv> {
        let keys_t = self.linear_ks.iter().map(|l| transposed(&l.forward(key)?)).collect::<Result<_>>()?;
        let values = self.linear_vs.iter().map(|l| l.forward(value)).collect::<Result<_>>()?;
        Ok(ProjectedKv { keys_t, values })
    }

    /// The queries' attention over keys and values projected already (incremental decoding:
    /// [`NarrowMultiHeadAttention::forward`]'s arithmetic, the keys kept transposed), without
    /// checks (the callers check the shapes and the mask).
    pub(crate) fn attend_kv(&self, query: &Tensor, kv: &ProjectedKv, mask: Option<&Tensor>) -> Result<MhaOutput> {
        let (mut outputs, mut weights) = (vec![], vec![]);
        for ((l, k_t), v) in self.linear_qs.iter().zip(&kv.keys_t).zip(&kv.values) {
            let (o, w) = attend_transposed(&l.forward(query)?, k_t, v, mask)?;
            outputs.push(o);
            weights.push(w);
        }
        let output = self.dropout.forward(&self.mha_linear.forward(&Tensor::cat(&outputs, D::Minus1)?)?)?;
        Ok(MhaOutput { output, weights: Tensor::stack(&weights, 1)? })
    }

    /// Every head's projected queries `(N, n_heads, Lq, d_k)` and keys `(N, n_heads, Lk, d_k)`, by
    /// its own layers (for the score terms), unchecked.
    pub(crate) fn project_qk(&self, query: &Tensor, key: &Tensor) -> Result<(Tensor, Tensor)> {
        let qs = self.linear_qs.iter().map(|l| l.forward(query)).collect::<Result<Vec<_>>>()?;
        let ks = self.linear_ks.iter().map(|l| l.forward(key)).collect::<Result<Vec<_>>>()?;
        Ok((Tensor::stack(&qs, 1)?, Tensor::stack(&ks, 1)?))
    }
}
