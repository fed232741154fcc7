//! The GPS-trajectory exercise of the lecture's later version (001): synthetic trajectories
//! around the centre of Florence, drawn with Python's `random` module as 001 draws them.

use super::scaler::MinMaxScaler;
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid, shape_error};
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

impl GpsConfig {
    /// The most points (observed and future together) one call of [`generate_gps_trajectories`]
    /// makes: 2^26, 1.5 GiB in `f64` and half that as the `f32` tensors. 001's splits hold 8960;
    /// a larger request is an error rather than an allocation that overflows or aborts.
    pub const MAX_POINTS: usize = 1 << 26;
}

impl Default for GpsConfig {
    fn default() -> Self {
        GpsConfig { seq_len: 5, pred_len: 3, start: START_UTC, interval_minutes: 15.0, max_offset: 0.01, step: 0.001 }
    }
}

/// Trajectories as rows of `[latitude, longitude, timestamp]` points, in `f64` (the timestamps
/// need it; tensors are made in `f32`, as 001's dataset does).
///
/// The fields are public to read; whoever builds or edits them keeps the invariant that
/// [`Trajectories::check`] tests (`seq_len` and `pred_len` at least 1, `sources` holding
/// `N * seq_len` points and `targets` `N * pred_len`). [`Trajectories::new`] checks it, and every
/// method that needs it checks it again, so a broken value gives an error rather than a panic.
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
    /// Trajectories from their points, checked as [`Trajectories::check`] does.
    #[errors_as("Trajectories::new")]
    pub fn new(sources: Vec<[f64; 3]>, targets: Vec<[f64; 3]>, seq_len: usize, pred_len: usize) -> Result<Self> {
        check_invariant(&sources, &targets, seq_len, pred_len)?;
        Ok(Trajectories { sources, targets, seq_len, pred_len })
    }

    /// Checks the invariant the methods rely on (the fields are public, so nothing else keeps
    /// it): `seq_len` and `pred_len` at least 1, `sources` a whole number `N` of trajectories of
    /// `seq_len` points and `targets` exactly `N * pred_len` points. Returns `N`.
    #[errors_as]
    pub fn check(&self) -> Result<usize> {
        self.check_invariant()
    }

    /// [`Trajectories::check`], unlabelled: the door of each method labels it.
    fn check_invariant(&self) -> Result<usize> {
        check_invariant(&self.sources, &self.targets, self.seq_len, self.pred_len)
    }

    /// Number of trajectories (the whole ones in `sources`, if the invariant is broken).
    pub fn len(&self) -> usize {
        self.sources.len() / self.seq_len.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// The observed points, `(N, seq_len, 3)` in `f32`. An error if the invariant
    /// ([`Trajectories::check`]) is broken or a value is not finite in `f32`.
    #[errors_as]
    pub fn sources_tensor(&self) -> Result<Tensor> {
        let n = self.check_invariant()?;
        let flat = check_f32("sources", &self.sources, n, self.seq_len)?;
        Tensor::from_vec(flat, (n, self.seq_len, 3), &Device::Cpu)
    }

    /// The future points, `(N, pred_len, 3)` in `f32`, checked as
    /// [`Trajectories::sources_tensor`] is.
    #[errors_as]
    pub fn targets_tensor(&self) -> Result<Tensor> {
        let n = self.check_invariant()?;
        let flat = check_f32("targets", &self.targets, n, self.pred_len)?;
        Tensor::from_vec(flat, (n, self.pred_len, 3), &Device::Cpu)
    }

    /// Source and target as one sequence, `(N, seq_len + pred_len, 3)` in `f32`: the lecture's
    /// encoder-decoders split it at `input_len` themselves.
    #[errors_as]
    pub fn full_tensor(&self) -> Result<Tensor> {
        let n = self.check_invariant()?;
        let sources = check_f32("sources", &self.sources, n, self.seq_len)?;
        let targets = check_f32("targets", &self.targets, n, self.pred_len)?;
        let sources = Tensor::from_vec(sources, (n, self.seq_len, 3), &Device::Cpu)?;
        let targets = Tensor::from_vec(targets, (n, self.pred_len, 3), &Device::Cpu)?;
        Tensor::cat(&[sources, targets], 1)
    }

    /// Every point through a fitted scaler (timestamps included).
    #[errors_as]
    pub fn scaled(&self, scaler: &MinMaxScaler) -> Result<Trajectories> {
        self.check_invariant()?;
        let sources = scaler.transform(&self.sources)?;
        let targets = scaler.transform(&self.targets)?;
        Ok(Trajectories { sources, targets, ..self.clone() })
    }

    /// The simplest forecast: every future point repeats the last observed one. Trajectories
    /// that break the invariant ([`Trajectories::check`]) have no last observed points to repeat:
    /// an error says which field is off.
    #[errors_as]
    pub fn repeat_last(&self) -> Result<Vec<[f64; 3]>> {
        self.check_invariant()?;
        Ok(self
            .sources
            .chunks_exact(self.seq_len)
            .flat_map(|observed| std::iter::repeat_n(observed[self.seq_len - 1], self.pred_len))
            .collect())
    }
}

/// Checks the invariant of [`Trajectories`] on its fields (see [`Trajectories::check`]);
/// returns the number of trajectories `N`.
fn check_invariant(sources: &[[f64; 3]], targets: &[[f64; 3]], s: usize, p: usize) -> Result<usize> {
    if s == 0 || p == 0 {
        let field = if s == 0 { "seq_len" } else { "pred_len" };
        return Err(invalid(format!("Trajectories.{field} must be at least 1, got seq_len = {s}, pred_len = {p}")));
    }
    if !sources.len().is_multiple_of(s) {
        return Err(invalid(format!(
            "Trajectories.sources holds {} points, not a whole number of trajectories of seq_len = {s}",
            sources.len()
        )));
    }
    let n = sources.len() / s;
    if n.checked_mul(p) != Some(targets.len()) {
        return Err(invalid(format!(
            "Trajectories.targets holds {} points, expected {n} trajectories (from sources) of pred_len = {p}",
            targets.len()
        )));
    }
    Ok(n)
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

/// Checks rows of points (`field` names them in errors) for a `(n, len, 3)` tensor in `f32`:
/// exactly `n * len` of them, every value finite in `f32`. Returns the values, flat, in `f32`.
fn check_f32(field: &str, points: &[[f64; 3]], n: usize, len: usize) -> Result<Vec<f32>> {
    if n.checked_mul(len) != Some(points.len()) {
        return Err(invalid(format!("Trajectories.{field} holds {} points, expected {n} * {len}", points.len())));
    }
    let mut flat = Vec::with_capacity(points.len() * 3);
    for (k, p) in points.iter().enumerate() {
        for &v in p {
            let x = v as f32;
            if !x.is_finite() {
                return Err(invalid(format!("Trajectories.{field}[{k}] = {p:?} has a value that is not finite in float32")));
            }
            flat.push(x);
        }
    }
    Ok(flat)
}

/// `n` trajectories drawn from `rng` in 001's order: for each, `seq_len` observed points (the
/// latitude offset drawn before the longitude's), then `pred_len` future points as a random walk
/// from the last observed one; timestamps every `interval_minutes`. With
/// `PyRandom::new(s)` this equals `random.seed(s)` followed by 001's function, bit for bit.
///
/// An error, before anything is drawn, for `n`, `seq_len` or `pred_len` of 0, more than
/// [`GpsConfig::MAX_POINTS`] points in all, a non-finite `start`, `interval_minutes` not
/// positive, `max_offset` or `step` negative or not finite, or values the trajectories would
/// take beyond `f32`'s range (the exercise's tensors).
#[errors_as]
pub fn generate_gps_trajectories(rng: &mut PyRandom, n: usize, cfg: &GpsConfig) -> Result<Trajectories> {
    check_request(n, cfg)?;
    generate(rng, n, cfg)
}

/// Checks a request for `n` trajectories of `cfg` (see [`generate_gps_trajectories`]).
fn check_request(n: usize, cfg: &GpsConfig) -> Result<()> {
    let fail = |msg: String| Err(invalid(msg));
    let (s, p) = (cfg.seq_len, cfg.pred_len);
    if n == 0 {
        return fail(format!("n (the number of trajectories) must be at least 1, got n = {n}"));
    }
    if s == 0 {
        return fail(format!("GpsConfig.seq_len must be at least 1 (the walk starts from the last observed point), got seq_len = {s}"));
    }
    if p == 0 {
        return fail(format!("GpsConfig.pred_len must be at least 1 (a future point to predict), got pred_len = {p}"));
    }
    let max = GpsConfig::MAX_POINTS;
    match s.checked_add(p).and_then(|l| l.checked_mul(n)) {
        Some(points) if points <= max => {}
        points => {
            let count = points.map_or_else(|| "more than usize::MAX".to_string(), |c| c.to_string());
            return fail(format!(
                "n = {n} trajectories of seq_len + pred_len = {s} + {p} points are too many: {count} points (at most {max})"
            ));
        }
    }
    for (field, v, positive) in [
        ("start", cfg.start, None),
        ("interval_minutes", cfg.interval_minutes, Some(true)),
        ("max_offset", cfg.max_offset, Some(false)),
        ("step", cfg.step, Some(false)),
    ] {
        let bad = match positive {
            _ if !v.is_finite() => Some("finite"),
            Some(true) if v <= 0.0 => Some("positive"),
            Some(false) if v < 0.0 => Some("non-negative"),
            _ => None,
        };
        if let Some(what) = bad {
            return fail(format!("GpsConfig.{field} must be {what}, got {v}"));
        }
    }
    // The values the trajectories can reach, against f32's range (and so f64's): the last
    // timestamp, and the farthest a coordinate can get from the centre.
    let limit = f32::MAX as f64;
    let last_time = cfg.start + cfg.interval_minutes * 60.0 * (s + p - 1) as f64;
    let in_range = |v: f64| v.is_finite() && v.abs() <= limit;
    if !in_range(cfg.start) || !in_range(last_time) {
        return fail(format!(
            "GpsConfig.start = {} and interval_minutes = {} put the timestamps up to {last_time}, beyond float32's range (the exercise's tensors)",
            cfg.start, cfg.interval_minutes
        ));
    }
    let reach = FLORENCE.0.max(FLORENCE.1) + 2.0 * cfg.max_offset + 2.0 * cfg.step * p as f64;
    if !in_range(reach) {
        return fail(format!(
            "GpsConfig.max_offset = {} and step = {} put coordinates up to {reach}, beyond float32's range (the exercise's tensors)",
            cfg.max_offset, cfg.step
        ));
    }
    Ok(())
}

/// `Vec::with_capacity`, an error instead of an abort where the memory cannot be had.
fn reserve(len: usize) -> Result<Vec<[f64; 3]>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|e| invalid(format!("cannot allocate {len} points: {e}")))?;
    Ok(v)
}

/// [`generate_gps_trajectories`] on a request [`check_request`] has checked.
fn generate(rng: &mut PyRandom, n: usize, cfg: &GpsConfig) -> Result<Trajectories> {
    let dt = cfg.interval_minutes * 60.0;
    let (mut sources, mut targets) = (reserve(n * cfg.seq_len)?, reserve(n * cfg.pred_len)?);
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

/// 1000 training, 100 validation and 20 test trajectories from `random.seed(seed)`; `cfg` is
/// checked as [`generate_gps_trajectories`] checks it (for the largest split: the smaller ones
/// then pass too).
#[errors_as]
pub fn gps_splits(seed: i128, cfg: &GpsConfig) -> Result<GpsSplits> {
    check_request(1000, cfg)?;
    let mut rng = PyRandom::new(seed);
    Ok(GpsSplits { train: generate(&mut rng, 1000, cfg)?, valid: generate(&mut rng, 100, cfg)?, test: generate(&mut rng, 20, cfg)? })
}
