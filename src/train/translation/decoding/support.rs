//! The checks and helpers that greedy decoding and beam search share.

use crate::models::special_ids::check_pad_id;
use crate::models::translate::Translate;
use crate::nn::fused::in_place::with_f32;
use crate::nn::shape::{invalid, invalid_shape};
use candle_core::{DType, Result, Tensor};

/// Checks a decoding request and returns `(N, S)`: source ids `(N, S)` of an integer dtype with
/// `S > 0` unless the batch is empty (`N = 0`, which decodes to nothing), and `S` within the model's `max_len`, `max_len > 0` target tokens whose prefixes
/// (`<sos>` plus all but the last token, `max_len` ids) the model takes, and `<sos>` and `<eos>`
/// in the target vocabulary, the model's padding id too, `<sos>` not the padding id.
pub(crate) fn check_request<M: Translate>(model: &M, src: &Tensor, sos: u32, eos: u32, max_len: usize) -> Result<(usize, usize)> {
    let (n, s) = match src.dims() {
        &[n, s] if n == 0 || s > 0 => (n, s),
        d => return Err(invalid_shape("source ids of shape (N, S) with S > 0 (or N = 0, no sentences)", d)),
    };
    if !matches!(src.dtype(), DType::U8 | DType::U32 | DType::I64) {
        return Err(invalid(format!("expected integer source ids (u8, u32, i64), got dtype {:?}", src.dtype())));
    }
    if max_len == 0 {
        return Err(invalid("max_len must be at least 1 target token, got 0"));
    }
    let vocab = model.tgt_vocab();
    for (what, id) in [("sos", sos), ("eos", eos)] {
        if id as usize >= vocab {
            return Err(invalid(format!("{what} id {id} is outside the target vocabulary 0..{vocab}")));
        }
    }
    if let Some(pad) = model.pad_id() {
        check_pad_id(pad, "target", vocab)?;
    }
    if model.pad_id() == Some(sos) {
        return Err(invalid(format!("sos id {sos} is the model's pad_id: the first target position would be masked out")));
    }
    if let Some(limit) = model.max_len() {
        if s > limit {
            return Err(invalid(format!("the source {:?} has {s} tokens, more than the model's max_len {limit}", src.dims())));
        }
        if max_len > limit {
            return Err(invalid(format!(
                "max_len {max_len} needs target prefixes of up to {max_len} ids, more than the model's max_len {limit}"
            )));
        }
    }
    Ok((n, s))
}

/// Calls `f(r, row)` for every row `r` of the next-token logits `(rows, V)`, the row as float64
/// values: float32 logits are read where they lie and converted one row at a time into one buffer
/// (no copy of the whole `(rows, V)` matrix, no vector per row). A row holding NaN is an error
/// (the rows before it have been visited), [`invalid`]: the decoding function labels it.
pub(crate) fn for_each_row(logits: &Tensor, rows: usize, vocab: usize, step: usize, mut f: impl FnMut(usize, &[f64])) -> Result<()> {
    if logits.dims() != [rows, vocab] || vocab == 0 {
        return Err(invalid_shape(format!("next-token logits of shape ({rows}, {vocab}) at step {step}"), logits.dims()));
    }
    let mut row = vec![0f64; vocab];
    let mut visit = |values: &[f32]| visit_rows(values, &mut row, &mut f);
    let nan = match with_f32(logits, &mut visit) {
        Some(nan) => nan,
        None => {
            let values = logits.to_dtype(DType::F64)?.flatten_all()?.to_vec1::<f64>()?;
            visit_rows(&values, &mut row, &mut f)
        }
    };
    match nan {
        Some(r) => Err(invalid(format!("the model gave NaN logits at step {step} (row {r})"))),
        None => Ok(()),
    }
}

/// The rows of `values` (`row.len()` each) through `row` into `f`, until a row holds NaN: that
/// row's index.
fn visit_rows<T: Copy + Into<f64>>(values: &[T], row: &mut [f64], f: &mut impl FnMut(usize, &[f64])) -> Option<usize> {
    for (r, chunk) in values.chunks_exact(row.len()).enumerate() {
        row.iter_mut().zip(chunk).for_each(|(d, &s)| *d = s.into());
        if row.iter().any(|v| v.is_nan()) {
            return Some(r);
        }
        f(r, row);
    }
    None
}

/// The first index of the largest value (PyTorch's `argmax` on CPU gives the first too).
pub(crate) fn argmax(row: &[f64]) -> u32 {
    let mut best = 0;
    for (k, v) in row.iter().enumerate() {
        if *v > row[best] {
            best = k;
        }
    }
    best as u32
}

/// The logarithm of the sum of `exp` over `row` (what `log_softmax` subtracts), in `f64`.
pub(crate) fn log_sum_exp(row: &[f64]) -> f64 {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
    max + sum.ln()
}

/// Prefixes of equal length as one `(K, t)` tensor of `u32` ids.
pub(crate) fn prefix_tensor(prefixes: &[Vec<u32>], device: &candle_core::Device) -> Result<Tensor> {
    let t = prefixes.first().map_or(0, Vec::len);
    let flat: Vec<u32> = prefixes.iter().flatten().copied().collect();
    Tensor::from_vec(flat, (prefixes.len(), t), device)
}
