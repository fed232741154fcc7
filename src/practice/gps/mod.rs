//! Part 6, the GPS trajectories of the lecture's later version (notebooks/exercises/06_gps_trajectories.ipynb):
//! the min-max scaler's fit, transform and inverse, the "repeat the last point" baseline and the
//! loss on latitude and longitude, the model's input, and the random walk of the future points.
//!
//! The hidden cases are trajectories drawn as the crate's `generate_gps_trajectories` draws them
//! (other counts and lengths than the notebook's), in `f64` where the timestamps need it.

mod forecast;
mod scaling;

pub use forecast::*;
pub use scaling::*;

use super::Info;
use super::answer::Tolerance;
use super::progress::Progress;
use crate::data::{GpsConfig, MinMaxScaler, Trajectories, generate_gps_trajectories};
use crate::nn::shape::error;
use crate::repro::PyRandom;
use candle_core::{D, DType, Device, Result, Tensor};

/// Every exercise of part 6, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO];

/// The table of part 6's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("06")
}

/// For `f64` answers that hold timestamps (about 1.7e9 seconds): `F32`'s relative part would let
/// a timestamp be thousands of seconds off.
const F64: Tolerance = Tolerance { atol: 1e-8, rtol: 1e-10 };

/// `n` trajectories of `seq_len` observed and `pred_len` future points, `interval` minutes apart,
/// drawn as 001 draws them after `random.seed(seed)`.
fn trajectories(seed: i128, n: usize, seq_len: usize, pred_len: usize, interval: f64) -> Result<Trajectories> {
    let cfg = GpsConfig { seq_len, pred_len, interval_minutes: interval, ..GpsConfig::default() };
    generate_gps_trajectories(&mut PyRandom::new(seed), n, &cfg)
}

/// Rows of points as an `f64` tensor of `shape`.
fn tensor<const F: usize>(rows: &[[f64; F]], shape: &[usize]) -> Result<Tensor> {
    Tensor::from_vec(rows.concat(), shape, &Device::Cpu)
}

/// The rows of `t` (`(..., F)`), in `f64`.
fn rows<const F: usize>(t: &Tensor) -> Result<Vec<[f64; F]>> {
    let v = t.to_dtype(DType::F64)?.flatten_all()?.to_vec1::<f64>()?;
    Ok(v.chunks_exact(F).map(|c| std::array::from_fn(|j| c[j])).collect())
}

/// The observed points `(N, seq_len, 3)` and the future ones `(N, pred_len, 3)`, in `f64`.
fn points(t: &Trajectories) -> Result<(Tensor, Tensor)> {
    let n = t.len();
    Ok((tensor(&t.sources, &[n, t.seq_len, 3])?, tensor(&t.targets, &[n, t.pred_len, 3])?))
}

/// The crate's scaler onto `range`, fitted on every point of `t` (`(N, L, F)`, F of 2 or 3).
fn fitted(t: &Tensor, range: (f64, f64)) -> Result<MinMaxScaler> {
    let mut scaler = MinMaxScaler::new(range);
    match t.dim(D::Minus1)? {
        2 => scaler.fit(&rows::<2>(t)?)?,
        3 => scaler.fit(&rows::<3>(t)?)?,
        f => return Err(error("practice::gps", format!("cases have 2 or 3 features, not {f}"))),
    };
    Ok(scaler)
}

/// The crate's `transform` (or `inverse_transform`) of every point of `t`, its shape kept.
fn through(scaler: &MinMaxScaler, t: &Tensor, inverse: bool) -> Result<Tensor> {
    fn go<const F: usize>(scaler: &MinMaxScaler, t: &Tensor, inverse: bool) -> Result<Tensor> {
        let r = rows::<F>(t)?;
        let out = if inverse { scaler.inverse_transform(&r)? } else { scaler.transform(&r)? };
        tensor(&out, t.dims())
    }
    match t.dim(D::Minus1)? {
        2 => go::<2>(scaler, t, inverse),
        _ => go::<3>(scaler, t, inverse),
    }
}
