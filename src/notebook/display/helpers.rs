//! Small helpers for notebooks and tests.

use crate::nn::shape::{Within, check_size, error};
use candle_core::{Device, Result, Tensor};

/// Helper for tests and notebooks: a `(1, 1, D)` query or `(1, L, D)` keys from plain rows, all
/// of one positive length `D`. No rows, or rows of different or zero length, are an error.
pub fn batch_of_one(rows: &[&[f32]]) -> Result<Tensor> {
    const M: &str = "batch_of_one";
    let lengths: Vec<usize> = rows.iter().map(|r| r.len()).collect();
    let d = lengths.first().copied().unwrap_or(0);
    if d == 0 || lengths.iter().any(|&l| l != d) {
        let more = if lengths.len() > 8 { ", ..." } else { "" };
        let first = &lengths[..lengths.len().min(8)];
        return Err(error(
            M,
            format!("expected at least one row, all of one positive length, got {} rows of lengths {first:?}{more}", rows.len()),
        ));
    }
    check_size(&[rows.len(), d]).within(M)?;
    Tensor::from_vec(rows.concat(), (1, rows.len(), d), &Device::Cpu).map_err(|e| error(M, e))
}
