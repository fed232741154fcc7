//! PyTorch's `nn.MultiheadAttention`, sequence-first, with one packed input projection and a
//! key-padding mask in PyTorch's sense: `True` (non-zero) means "ignore this key", the opposite
//! of the lecture's keep masks (1 = keep) and unlike its additive masks (`-inf` = ignore).

use super::additive_mask::scaled_dot_product_attention_additive;
use super::narrow::{MhaOutput, check_head_size};
use crate::nn::fused::dense;
use crate::nn::shape::{check_input_dtype, invalid, invalid_shape};
use crate::nn::{Dropout, Linear, Param, Walk, Walker, errors_as};
use crate::repro::uniform_init;
use candle_core::{DType, Device, Result, Tensor};

/// `nn.MultiheadAttention(embed_dim, num_heads, dropout)` as PyTorch builds it: `in_proj_weight
/// (3E, E)` holding the query, key and value projections one block under the other,
/// `in_proj_bias (3E)`, an `out_proj` linear layer, and dropout on the attention weights. Its
/// draws follow PyTorch's: `out_proj` first (its bias then set to 0), then Xavier for
/// `in_proj_weight`; `in_proj_bias` starts at 0.
#[derive(Clone, Debug)]
pub struct PackedMultiheadAttention {
    pub embed_dim: usize,
    pub num_heads: usize,
    pub in_proj_weight: Param,
    pub in_proj_bias: Param,
    pub out_proj: Linear,
    pub dropout: Dropout,
}

/// The additive mask `(N, 1, 1, S)` of a key-padding mask `(N, S)`: `-inf` where it is non-zero
/// ("ignore"), `0` elsewhere.
#[errors_as]
pub fn key_padding_to_additive(mask: &Tensor, n: usize, s: usize) -> Result<Tensor> {
    additive_key_padding(mask, n, s)
}

/// [`key_padding_to_additive`], refusing a mask of another shape or holding NaN as an input
/// refused at its caller's door (the caller's label names it).
fn additive_key_padding(mask: &Tensor, n: usize, s: usize) -> Result<Tensor> {
    if mask.dims() != [n, s] {
        return Err(invalid_shape(format!("a key_padding_mask (N, S) = ({n}, {s}), true where a key is padding"), mask.dims()));
    }
    let ignore = mask.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
    // a NaN is not "true" in PyTorch's boolean masks either; read as "ignore" it hid keys silently
    if let Some(k) = ignore.iter().position(|v| v.is_nan()) {
        return Err(invalid(format!("key_padding_mask[{}, {}] is NaN: expected true/false (or 1/0) per key", k / s.max(1), k % s.max(1))));
    }
    let additive: Vec<f32> = ignore.iter().map(|&v| if v != 0.0 { f32::NEG_INFINITY } else { 0.0 }).collect();
    Tensor::from_vec(additive, (n, 1, 1, s), mask.device())
}

impl PackedMultiheadAttention {
    #[errors_as]
    pub fn new(embed_dim: usize, num_heads: usize, dropout: f64) -> Result<Self> {
        check_head_size(embed_dim, num_heads)?;
        let out_proj = Linear::new(embed_dim, embed_dim)?;
        if let Some(b) = &out_proj.bias {
            b.set(&Tensor::zeros(embed_dim, DType::F32, &Device::Cpu)?)?;
        }
        let bound = (6.0 / (4 * embed_dim) as f64).sqrt(); // Xavier: fan_in E, fan_out 3E
        let in_proj_weight = Param::new(&uniform_init((3 * embed_dim, embed_dim), bound)?)?;
        let in_proj_bias = Param::new(&Tensor::zeros(3 * embed_dim, DType::F32, &Device::Cpu)?)?;
        Ok(PackedMultiheadAttention { embed_dim, num_heads, in_proj_weight, in_proj_bias, out_proj, dropout: Dropout::new(dropout)? })
    }

    /// Projects `x (L, N, E)` with block `k` (0 query, 1 key, 2 value) of the packed projection
    /// and splits the heads: `(N, H, L, E / H)`.
    fn project(&self, x: &Tensor, k: usize) -> Result<Tensor> {
        let e = self.embed_dim;
        let (l, n, _) = x.dims3()?;
        let w = self.in_proj_weight.tensor().narrow(0, k * e, e)?;
        let b = self.in_proj_bias.tensor().narrow(0, k * e, e)?;
        let y = dense::linear(x, &w, Some(&b))?; // (L, N, E)
        y.reshape((l, n, self.num_heads, e / self.num_heads))?.permute((1, 2, 0, 3))?.contiguous()
    }

    /// Attention of `query` over `key`/`value`, sequence-first as PyTorch's default
    /// (`batch_first=False`).
    ///
    /// # Shapes
    /// - `query`: `(L, N, E)`; `key`, `value`: `(S, N, E)`
    /// - `key_padding_mask`: optional `(N, S)`, non-zero (`true`) where a key is padding
    /// - returns the output `(L, N, E)` and the weights `(N, H, L, S)` (PyTorch's own averages
    ///   them over the heads: take `weights.mean(1)`)
    #[errors_as]
    pub fn forward(&self, query: &Tensor, key: &Tensor, value: &Tensor, key_padding_mask: Option<&Tensor>) -> Result<MhaOutput> {
        let [l, n, s] = self.check_inputs(query, key, value)?;
        let mask = key_padding_mask.map(|m| additive_key_padding(m, n, s)).transpose()?;
        if n == 0 {
            return self.empty_batch(l, s, query.device());
        }
        let q = self.project(query, 0)?;
        let k = self.project(key, 1)?;
        let v = self.project(value, 2)?;
        let (context, weights) = scaled_dot_product_attention_additive(&q, &k, &v, mask.as_ref())?;
        let weights = self.dropout.forward(&weights)?;
        let context = if self.dropout.is_training() && self.dropout.p > 0.0 { weights.matmul(&v)? } else { context };
        let context = context.permute((2, 0, 1, 3))?.reshape((l, n, self.embed_dim))?;
        Ok(MhaOutput { output: self.out_proj.forward(&context)?, weights })
    }

    /// [`PackedMultiheadAttention::forward`]'s door: the sizes (public fields) against each other
    /// and the weights, float32 sequence-first `query (L, N, E)`, `key` and `value (S, N, E)`.
    /// Returns `[L, N, S]`.
    fn check_inputs(&self, query: &Tensor, key: &Tensor, value: &Tensor) -> Result<[usize; 3]> {
        let e = self.embed_dim;
        check_head_size(e, self.num_heads)?;
        if self.in_proj_weight.dims() != [e.saturating_mul(3), e] {
            return Err(invalid(format!("embed_dim = {e} does not fit in_proj_weight {:?}", self.in_proj_weight.dims())));
        }
        let dims = |t: &Tensor, what: &str| match t.dims() {
            &[l, n, d] if d == e && l > 0 => Ok((l, n)),
            d => Err(invalid_shape(format!("a sequence-first {what} (L, N, {e})"), d)),
        };
        for t in [query, key, value] {
            check_input_dtype(t, DType::F32)?;
        }
        let (l, n) = dims(query, "query")?;
        let (s, nk) = dims(key, "key")?;
        if value.dims() != key.dims() || nk != n {
            return Err(invalid(format!("query {:?}, key {:?} and value {:?} do not fit", query.dims(), key.dims(), value.dims())));
        }
        Ok([l, n, s])
    }

    /// An empty batch's empty output `(L, 0, E)` and weights `(0, H, L, S)`, as PyTorch gives.
    fn empty_batch(&self, l: usize, s: usize, device: &Device) -> Result<MhaOutput> {
        let output = Tensor::zeros((l, 0, self.embed_dim), DType::F32, device)?;
        let weights = Tensor::zeros((0, self.num_heads, l, s), DType::F32, device)?;
        Ok(MhaOutput { output, weights })
    }
}

// By hand: `in_proj_weight` and `in_proj_bias` are parameters of this module itself, not children.
impl Walk for PackedMultiheadAttention {
    fn walk(&self, w: &mut Walker) {
        w.param("in_proj_weight", &self.in_proj_weight);
        w.param("in_proj_bias", &self.in_proj_bias);
        w.child("out_proj", &self.out_proj);
        w.child("dropout", &self.dropout);
    }
}
