//! Small helpers for notebooks and tests.

use candle_core::{Device, Result, Tensor, bail};

/// Helper for tests and notebooks: a `(1, 1, D)` query or `(1, L, D)` keys from plain rows.
pub fn batch_of_one(rows: &[&[f32]]) -> Result<Tensor> {
    let d = rows.first().map_or(0, |r| r.len());
    if d == 0 || rows.iter().any(|r| r.len() != d) {
        bail!("batch_of_one: expected rows of one positive length")
    }
    Tensor::from_vec(rows.concat(), (1, rows.len(), d), &Device::Cpu)
}
