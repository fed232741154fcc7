//! The GPS-trajectory exercise of the lecture's later version (001): synthetic trajectories
//! around the centre of Florence, drawn with Python's `random` module as 001 draws them.

use super::scaler::MinMaxScaler;
use crate::nn::shape::{error, shape_error};
use crate::repro::PyRandom;
use candle_core::{DType, Device, Result, Tensor};

/// Latitude and longitude of Florence's centre, the trajectories' anchor.
pub const FLORENCE: (f64, f64) = (43.7696, 11.2558);

/// 2024-01-01 08:00:00 UTC in seconds since the epoch, 001's start time.
pub const START_UTC: f64 = 1_704_096_000.0;

/// The knobs of [`generate_gps_trajectories`], with 001's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct GpsConfig {
    /// Observed points a trajectory (the source). Default 5.
    pub seq_len: usize,
    /// Future points to predict (the target). Default 3.
    pub pred_len: usize,
    /// Timestamp of the first observed point, UTC seconds. Default [`START_UTC`].
    pub start: f64,
    /// Minutes between consecutive points. Default 15.
    pub interval_minutes: f64,
    /// Each observed point is the centre plus a uniform offset in `±max_offset` degrees, latitude
    /// and longitude drawn independently. Default 0.01.
    pub max_offset: f64,
    /// Each future point moves from the previous one by a uniform step in `±step` degrees.
    /// Default 0.001.
    pub step: f64,
}

impl Default for GpsConfig {
    fn default() -> Self {
        GpsConfig { seq_len: 5, pred_len: 3, start: START_UTC, interval_minutes: 15.0, max_offset: 0.01, step: 0.001 }
    }
}

/// Trajectories as rows of `[latitude, longitude, timestamp]` points, in `f64` (the timestamps
/// need it; tensors are made in `f32`, as 001's dataset does).
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectories {
    /// `n * seq_len` observed points.
    pub sources: Vec<[f64; 3]>,
    /// `n * pred_len` future points.
    pub targets: Vec<[f64; 3]>,
    pub seq_len: usize,
    pub pred_len: usize,
}

impl Trajectories {
    /// Number of trajectories.
    pub fn len(&self) -> usize {
        self.sources.len() / self.seq_len.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// The observed points, `(N, seq_len, 3)` in `f32`.
    pub fn sources_tensor(&self) -> Result<Tensor> {
        points_tensor(&self.sources, self.len(), self.seq_len)
    }

    /// The future points, `(N, pred_len, 3)` in `f32`.
    pub fn targets_tensor(&self) -> Result<Tensor> {
        points_tensor(&self.targets, self.len(), self.pred_len)
    }

    /// Source and target as one sequence, `(N, seq_len + pred_len, 3)` in `f32`: the lecture's
    /// encoder-decoders split it at `input_len` themselves.
    pub fn full_tensor(&self) -> Result<Tensor> {
        Tensor::cat(&[self.sources_tensor()?, self.targets_tensor()?], 1)
    }

    /// Every point through a fitted scaler (timestamps included).
    pub fn scaled(&self, scaler: &MinMaxScaler) -> Result<Trajectories> {
        Ok(Trajectories { sources: scaler.transform(&self.sources)?, targets: scaler.transform(&self.targets)?, ..self.clone() })
    }

    /// The simplest forecast: every future point repeats the last observed one.
    pub fn repeat_last(&self) -> Vec<[f64; 3]> {
        let last = |i: usize| self.sources[(i + 1) * self.seq_len - 1];
        (0..self.len()).flat_map(|i| std::iter::repeat_n(last(i), self.pred_len)).collect()
    }
}

/// Rows of points from a tensor `(..., 3)`, any float dtype.
pub fn tensor_points(t: &Tensor) -> Result<Vec<[f64; 3]>> {
    if t.dims().last() != Some(&3) {
        return Err(shape_error("tensor_points", "points (..., 3)", t.dims()));
    }
    let v = t.to_dtype(DType::F64)?.flatten_all()?.to_vec1::<f64>()?;
    Ok(v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect())
}

/// The mean squared error over latitude and longitude only (the first two features), as 001's
/// loss takes it, over all points at once.
pub fn lat_lon_mse(predicted: &[[f64; 3]], target: &[[f64; 3]]) -> Result<f64> {
    if predicted.len() != target.len() || target.is_empty() {
        return Err(error(
            "lat_lon_mse",
            format!("expected equally many points, at least one, got {} and {}", predicted.len(), target.len()),
        ));
    }
    let sum: f64 = predicted.iter().zip(target).map(|(p, t)| (p[0] - t[0]).powi(2) + (p[1] - t[1]).powi(2)).sum();
    Ok(sum / (2 * target.len()) as f64)
}

/// `(n, len, 3)` in `f32` from rows of points.
pub fn points_tensor(points: &[[f64; 3]], n: usize, len: usize) -> Result<Tensor> {
    let flat: Vec<f32> = points.iter().flat_map(|p| p.iter().map(|&v| v as f32)).collect();
    Tensor::from_vec(flat, (n, len, 3), &Device::Cpu)
}

/// `n` trajectories drawn from `rng` in 001's order: for each, `seq_len` observed points (the
/// latitude offset drawn before the longitude's), then `pred_len` future points as a random walk
/// from the last observed one; timestamps every `interval_minutes`. With
/// `PyRandom::new(s)` this equals `random.seed(s)` followed by 001's function, bit for bit.
pub fn generate_gps_trajectories(rng: &mut PyRandom, n: usize, cfg: &GpsConfig) -> Result<Trajectories> {
    let module = "generate_gps_trajectories";
    if n == 0 || cfg.seq_len == 0 || cfg.pred_len == 0 {
        return Err(error(
            module,
            format!(
                "expected at least one trajectory, observed point and future point, got n = {n}, seq_len = {}, pred_len = {}",
                cfg.seq_len, cfg.pred_len
            ),
        ));
    }
    let dt = cfg.interval_minutes * 60.0;
    let (mut sources, mut targets) = (Vec::with_capacity(n * cfg.seq_len), Vec::with_capacity(n * cfg.pred_len));
    for _ in 0..n {
        let mut time = cfg.start;
        let mut last = [0.0; 3];
        for _ in 0..cfg.seq_len {
            let lat = FLORENCE.0 + rng.uniform(-cfg.max_offset, cfg.max_offset);
            let lon = FLORENCE.1 + rng.uniform(-cfg.max_offset, cfg.max_offset);
            last = [lat, lon, time];
            sources.push(last);
            time += dt;
        }
        for _ in 0..cfg.pred_len {
            let lat = last[0] + rng.uniform(-cfg.step, cfg.step);
            let lon = last[1] + rng.uniform(-cfg.step, cfg.step);
            last = [lat, lon, last[2] + dt];
            targets.push(last);
        }
    }
    Ok(Trajectories { sources, targets, seq_len: cfg.seq_len, pred_len: cfg.pred_len })
}

/// 001's three splits, drawn one after the other from one generator.
#[derive(Clone, Debug, PartialEq)]
pub struct GpsSplits {
    pub train: Trajectories,
    pub valid: Trajectories,
    pub test: Trajectories,
}

/// 1000 training, 100 validation and 20 test trajectories from `random.seed(seed)`.
pub fn gps_splits(seed: i128, cfg: &GpsConfig) -> Result<GpsSplits> {
    let mut rng = PyRandom::new(seed);
    Ok(GpsSplits {
        train: generate_gps_trajectories(&mut rng, 1000, cfg)?,
        valid: generate_gps_trajectories(&mut rng, 100, cfg)?,
        test: generate_gps_trajectories(&mut rng, 20, cfg)?,
    })
}
