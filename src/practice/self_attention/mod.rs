//! Part 3, self-attention (notebooks/exercises/03_self_attention.ipynb): the source and target
//! masks, the shifted target, the positional-encoding table and module, the encoder's and the
//! decoder's self-attention, and the encoder-decoder's prediction loop.

mod layers;
mod masks;
mod positions;

pub use layers::*;
pub use masks::*;
pub use positions::*;

use super::Info;
use super::progress::Progress;
use crate::attention::source_mask;
use crate::repro::Generator;
use candle_core::{Device, Result, Tensor};

/// Every exercise of part 3, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO, Q8::INFO];

/// The table of part 3's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("03")
}

/// Standard normals `(n, l, f)` from a generator seeded with `seed`, with the features where
/// `zero(sequence, step, feature)` set to 0: padded points, or points with one zero feature.
fn zeroed(seed: u64, (n, l, f): (usize, usize, usize), zero: impl Fn(usize, usize, usize) -> bool) -> Result<Tensor> {
    let keep: Vec<f32> = (0..n * l * f).map(|k| if zero(k / (l * f), k / f % l, k % f) { 0.0 } else { 1.0 }).collect();
    let x = Generator::new(seed).randn(&[n, l, f])?;
    x * Tensor::from_vec(keep, (n, l, f), &Device::Cpu)?
}

/// A batch `(n, l, f)` whose sequence `k` ends in `pads[k]` padded (all-zero) points, and its
/// source mask (the lecture's rule).
fn padded(seed: u64, (n, l, f): (usize, usize, usize), pads: &[usize]) -> Result<(Tensor, Tensor)> {
    let x = zeroed(seed, (n, l, f), |s, t, _| t + pads.get(s).copied().unwrap_or(0) >= l)?;
    let mask = source_mask(&x)?;
    Ok((x, mask))
}
