//! The Transformer lecture's additive masks and the attention that adds them: 0 where a query may
//! look at a key, `-inf` where it may not, added to the scaled scores before the softmax (the
//! lecture's keep/drop masks of [`super::mask`] fill with -1e9 instead).
//!
//! A row that masks every key would make the softmax `0/0 = NaN`; it is an error naming the
//! module and the row instead.

use super::unused_weights::are_unused;
use crate::nn::errors_as;
use crate::nn::fused::flash::flash_attention;
use crate::nn::fused::masked_softmax::masked_softmax;
use crate::nn::shape::{check_float, check_size, invalid, invalid_shape};
use candle_core::{D, DType, Device, Result, Tensor};

/// The lecture's `create_mask(batch_size, seq_len)`: the additive causal mask `(B, T, T)`, 0 on
/// and below the diagonal, `-inf` above it (position `i` may look at positions `0..=i`).
///
/// ```
/// use attention_zoo::prelude::*;
/// # fn main() -> Result<()> {
/// let mask = create_mask(1, 3)?;
/// let ninf = f32::NEG_INFINITY;
/// assert_eq!(mask.to_vec3::<f32>()?, vec![vec![vec![0., ninf, ninf], vec![0., 0., ninf], vec![0., 0., 0.]]]);
/// # Ok(())
/// # }
/// ```
#[errors_as]
pub fn create_mask(batch_size: usize, seq_len: usize) -> Result<Tensor> {
    if batch_size == 0 || seq_len == 0 {
        return Err(invalid(format!("batch_size and seq_len must be positive, got {batch_size} and {seq_len}")));
    }
    check_size(&[batch_size, seq_len, seq_len])?;
    let row: Vec<f32> = (0..seq_len).flat_map(|i| (0..seq_len).map(move |j| if j > i { f32::NEG_INFINITY } else { 0.0 })).collect();
    Tensor::from_vec(row, (1, seq_len, seq_len), &Device::Cpu)?.repeat((batch_size, 1, 1))
}

/// The additive padding mask of a batch of token ids: 0 for tokens, `-inf` where the id is
/// `pad_id`, shaped `(N, 1, L)` so that it broadcasts over every query (`(N, Lq, L)`).
///
/// # Shapes
/// - `ids`: `(N, L)`, integer ids (u8, u32, i64) or whole floats
/// - returns `(N, 1, L)`, float32
#[errors_as]
pub fn padding_mask(ids: &Tensor, pad_id: u32) -> Result<Tensor> {
    let (n, l) = ids.dims2().map_err(|_| invalid_shape("token ids of shape (N, L)", ids.dims()))?;
    padding_mask_of(&ids_values(ids)?, (n, l), pad_id, ids.device())
}

/// [`padding_mask`] of ids already read (`N * L` of them, row-major, as [`ids_values`] reads
/// them), for a caller that reads them for a check of its own too.
pub(crate) fn padding_mask_of(values: &[f64], (n, l): (usize, usize), pad_id: u32, device: &Device) -> Result<Tensor> {
    let mask: Vec<f32> = values.iter().map(|&v| if v == pad_id as f64 { f32::NEG_INFINITY } else { 0.0 }).collect();
    Tensor::from_vec(mask, (n, 1, l), device)
}

/// The additive mask of a decoder's input: the causal mask ([`create_mask`]) plus, with a
/// `pad_id`, the padding mask of the same ids ([`padding_mask`]).
///
/// # Shapes
/// - `ids`: `(N, T)`, integer ids (u8, u32, i64) or whole floats
/// - returns `(N, T, T)`, float32
#[errors_as]
pub fn target_mask(ids: &Tensor, pad_id: Option<u32>) -> Result<Tensor> {
    let (n, t) = ids.dims2().map_err(|_| invalid_shape("token ids of shape (N, T)", ids.dims()))?;
    let causal = create_mask(n, t)?;
    match pad_id {
        Some(pad) => causal.broadcast_add(&padding_mask(ids, pad)?),
        None => Ok(causal),
    }
}

/// Token ids as f64 values, refusing dtypes that cannot hold ids (an input refused at its
/// caller's door: the caller's label names it).
pub(crate) fn ids_values(ids: &Tensor) -> Result<Vec<f64>> {
    match ids.dtype() {
        DType::U8 | DType::U32 | DType::I64 | DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
            ids.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()
        }
        d => Err(invalid(format!("expected integer ids (u8, u32, i64) or whole floats, got dtype {d:?}"))),
    }
}

/// Checks an additive mask against scores `(..., Lq, Lk)`: a floating-point tensor whose dims,
/// aligned from the right, are each 1 or the scores' (the last one exactly `Lk`); values 0 or
/// finite, or `-inf`; and no row of `-inf` only (every key masked: the softmax would be NaN).
/// Its errors read `check_additive_mask: ...`.
#[errors_as]
pub fn check_additive_mask(mask: &Tensor, scores_dims: &[usize]) -> Result<()> {
    additive_mask_problems(mask, scores_dims)
}

/// [`check_additive_mask`] unlabelled ([`invalid`]): the public function whose door checks a
/// mask labels it.
pub(crate) fn additive_mask_problems(mask: &Tensor, scores_dims: &[usize]) -> Result<()> {
    check_float(mask)?;
    let (m, s) = (mask.dims(), scores_dims);
    let lk = s.last().copied().unwrap_or(0);
    let fits =
        m.len() <= s.len() && m.last() == Some(&lk) && m.iter().rev().zip(s.iter().rev()).all(|(&a, &b)| a == 1 || a == b) && m.len() >= 2;
    if !fits {
        let expected = format!("an additive mask broadcasting to the scores {s:?} (each dim 1 or the scores', the last {lk})");
        return Err(invalid_shape(expected, m));
    }
    let values = mask.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()?;
    if let Some((k, v)) = values.iter().enumerate().find(|(_, v)| v.is_nan() || **v == f32::INFINITY) {
        return Err(invalid(format!("an additive mask holds finite values or -inf, got {v} at flat position {k} of {m:?}")));
    }
    if let Some(r) = values.chunks(lk).position(|row| row.iter().all(|v| *v == f32::NEG_INFINITY)) {
        let mut index = vec![0; m.len() - 1];
        let mut rest = r;
        for (i, d) in m[..m.len() - 1].iter().enumerate().rev() {
            index[i] = rest % d;
            rest /= d;
        }
        return Err(invalid(format!(
            "row {index:?} of the mask {m:?} is -inf for all {lk} keys: a query that may look at no key has no attention weights \
                 (the softmax would be NaN)"
        )));
    }
    Ok(())
}

/// Scaled dot products, plus the mask, softmax and the weighted values, without checks: the
/// callers have checked the shapes and the mask. `(…, Lq, d)`, `(…, Lk, d)`, `(…, Lk, dv)` ->
/// (output `(…, Lq, dv)`, weights `(…, Lq, Lk)`).
pub(crate) fn attend(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let rank = k.rank();
    attend_transposed(q, &k.transpose(rank - 2, rank - 1)?.contiguous()?, v, mask)
}

/// [`attend`] with the keys given transposed, `(…, d, Lk)` contiguous (what it makes of them), so
/// that keys kept for many queries (a decoder's cache) are transposed once. Inside
/// [`weights_unused`](super::unused_weights::weights_unused) the attention kernel may take the
/// heads, and then the weights handed back are empty `(…, Lq, 0)`.
pub(crate) fn attend_transposed(q: &Tensor, k_t: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let d = q.dim(D::Minus1)?;
    // as `scores / sqrt(d)`: candle divides by a scalar as a product with its reciprocal
    let scale = 1.0 / (d as f64).sqrt();
    if are_unused()
        && let Some(output) = flash_attention(q, k_t, v, scale, mask)?
    {
        let mut none = q.dims()[..q.rank() - 1].to_vec();
        none.push(0);
        return Ok((output, Tensor::zeros(none, q.dtype(), q.device())?));
    }
    let scores = q.contiguous()?.matmul(k_t)?;
    let weights = masked_softmax(&scores, scale, mask)?;
    let output = weights.matmul(&v.contiguous()?)?;
    Ok((output, weights))
}

/// The lecture's `scaled_dot_product_attention(Q, K, V, mask)`: `softmax(Q Kᵀ / sqrt(d_k) + mask) V`,
/// with an additive mask (0 allowed, `-inf` masked) and any batch dims. Returns
/// `(output, attention_weights)`.
///
/// # Shapes
/// - `query`: `(..., Lq, d_k)`; `keys`: `(..., Lk, d_k)`; `values`: `(..., Lk, d_v)`, the same batch dims `...`
/// - `mask`: optional, broadcasting to `(..., Lq, Lk)` (the causal mask `(N, Lq, Lq)`, a padding mask `(N, 1, Lk)`)
/// - returns the output `(..., Lq, d_v)` and the weights `(..., Lq, Lk)`
#[errors_as]
pub fn scaled_dot_product_attention_additive(
    query: &Tensor,
    keys: &Tensor,
    values: &Tensor,
    mask: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    check_qkv_any_batch(query, keys, values, mask)?;
    attend(query, keys, values, mask)
}

/// [`scaled_dot_product_attention_additive`]'s door: float query `(..., Lq, d_k)`, keys
/// `(..., Lk, d_k)` and values `(..., Lk, d_v)` with the same batch dims and `Lk > 0`, and an
/// additive mask broadcasting to the scores `(..., Lq, Lk)`.
fn check_qkv_any_batch(query: &Tensor, keys: &Tensor, values: &Tensor, mask: Option<&Tensor>) -> Result<()> {
    for t in [query, keys, values] {
        check_float(t)?;
    }
    let (q, k, v) = (query.dims(), keys.dims(), values.dims());
    let r = q.len();
    let same_batch = r >= 2 && k.len() == r && v.len() == r && q[..r - 2] == k[..r - 2] && k[..r - 2] == v[..r - 2];
    if !same_batch || q[r - 1] != k[r - 1] || k[r - 2] != v[r - 2] || k[r - 2] == 0 {
        return Err(invalid(format!(
            "expected query (..., Lq, d_k), keys (..., Lk, d_k) and values (..., Lk, d_v) with Lk > 0, got {q:?}, {k:?} and {v:?}"
        )));
    }
    if let Some(m) = mask {
        let mut scores = q[..r - 1].to_vec();
        scores.push(k[r - 2]);
        additive_mask_problems(m, &scores)?;
    }
    Ok(())
}
