//! The solutions of part 6 (notebooks/exercises/06_gps_trajectories.ipynb), as `q1.solution()` to
//! `q7.solution()` show them. Each compiles in a notebook cell as written, after
//! `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn fit_min_max(sequences: &Tensor) -> Result<(Tensor, Tensor)> {
    // every point of every sequence is one row: numpy's reshape(-1, 3)
    let rows = sequences.flatten(0, 1)?;
    let data_min = rows.min(0)?;
    let data_max = rows.max(0)?;
    Ok((data_min, data_max))
}

pub fn min_max_transform(x: &Tensor, data_min: &Tensor, data_max: &Tensor, feature_range: (f64, f64)) -> Result<Tensor> {
    let (lo, hi) = feature_range;
    let x_std = x.broadcast_sub(data_min)?.broadcast_div(&(data_max - data_min)?)?;
    x_std.affine(hi - lo, lo)
}

pub fn min_max_inverse(x_scaled: &Tensor, data_min: &Tensor, data_max: &Tensor, feature_range: (f64, f64)) -> Result<Tensor> {
    let (lo, hi) = feature_range;
    let x_std = x_scaled.affine(1.0 / (hi - lo), -lo / (hi - lo))?;
    x_std.broadcast_mul(&(data_max - data_min)?)?.broadcast_add(data_min)
}

pub fn repeat_last(sources: &Tensor, target_len: usize) -> Result<Tensor> {
    let l = sources.dim(1)?;
    let last_point = sources.i((.., l - 1..))?; // N, 1, F
    last_point.repeat((1, target_len, 1))
}

pub fn lat_lon_loss(prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
    let lat_lon_pred = prediction.i((.., .., ..2))?;
    let lat_lon_target = target.i((.., .., ..2))?;
    (lat_lon_pred - lat_lon_target)?.sqr()?.mean_all()
}

pub fn model_input(observed: &Tensor, future: &Tensor) -> Result<Tensor> {
    Tensor::cat(&[observed, future], 1)
}

pub fn walk_future(last_point: &Tensor, steps: &Tensor, interval_minutes: f64) -> Result<Tensor> {
    let (n, m, _) = steps.dims3()?;
    let dt = Tensor::full(interval_minutes * 60.0, (n, 1, 1), steps.device())?.to_dtype(steps.dtype())?;
    let mut point = last_point.clone();
    let mut future_points = vec![];
    for k in 0..m {
        // N, 1, 3: the latitude and longitude steps, then the time step in seconds
        let step = Tensor::cat(&[steps.i((.., k..k + 1))?, dt.clone()], 2)?;
        point = (point + step)?;
        future_points.push(point.clone());
    }
    Tensor::cat(&future_points, 1)
}
