//! Small helpers for notebooks and tests.

use crate::nn::errors_as;
use crate::nn::shape::{check_size, invalid};
use candle_core::{Device, Result, Tensor};

/// Helper for tests and notebooks: a `(1, 1, D)` query or `(1, L, D)` keys from plain rows, all
/// of one positive length `D`. No rows, or rows of different or zero length, are an error.
#[errors_as]
pub fn batch_of_one(rows: &[&[f32]]) -> Result<Tensor> {
    let d = check_rows(rows)?;
    Tensor::from_vec(rows.concat(), (1, rows.len(), d), &Device::Cpu)
}

/// Checks that there is at least one row, all of one positive length `D`, and that `(L, D)`
/// can be made; returns `D`.
fn check_rows(rows: &[&[f32]]) -> Result<usize> {
    let lengths: Vec<usize> = rows.iter().map(|r| r.len()).collect();
    let d = lengths.first().copied().unwrap_or(0);
    if d == 0 || lengths.iter().any(|&l| l != d) {
        let more = if lengths.len() > 8 { ", ..." } else { "" };
        let first = &lengths[..lengths.len().min(8)];
        return Err(invalid(format!(
            "expected at least one row, all of one positive length, got {} rows of lengths {first:?}{more}",
            rows.len()
        )));
    }
    check_size(&[rows.len(), d])?;
    Ok(d)
}
