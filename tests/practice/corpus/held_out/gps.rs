//! Held-out wrong answers to part 6 (06_gps_trajectories.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::gps::*;
use attention_zoo::prelude::*;

fn walk(last_point: &Tensor, steps: &Tensor, dt_value: f64, feed_back: bool) -> Result<Tensor> {
    let (n, m, _) = steps.dims3()?;
    let dt = Tensor::full(dt_value, (n, 1, 1), steps.device())?.to_dtype(steps.dtype())?;
    let mut point = last_point.clone();
    let mut future = vec![];
    for k in 0..m {
        let step = Tensor::cat(&[steps.i((.., k..k + 1))?, dt.clone()], 2)?;
        // without feeding back, every point steps from the last observed one
        let next = if feed_back { (&point + step)? } else { (last_point + step)? };
        point = next.clone();
        future.push(next);
    }
    Tensor::cat(&future, 1)
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 06.q1 fit_min_max
        wrong(
            "min and max over each sequence's points only: (N, F)",
            &["every sequence", "per sequence", "flatten", "all points", "each sequence", "dimension 1"],
            q1.check(|sequences| Ok((sequences.min(1)?, sequences.max(1)?))),
        ),
        wrong(
            "max returned first, min second",
            &["swapped", "order", "max first"],
            q1.check(|sequences| {
                let rows = sequences.flatten(0, 1)?;
                Ok((rows.max(0)?, rows.min(0)?))
            }),
        ),
        // 06.q2 min_max_transform
        wrong(
            "the feature range ignored: always 0 to 1",
            &["feature_range", "range", "lo", "hi"],
            q2.check(|x, data_min, data_max, _range| x.broadcast_sub(data_min)?.broadcast_div(&(data_max - data_min)?)),
        ),
        wrong(
            "scaled by hi instead of hi - lo",
            &["hi - lo", "width", "range"],
            q2.check(|x, data_min, data_max, (lo, hi)| x.broadcast_sub(data_min)?.broadcast_div(&(data_max - data_min)?)?.affine(hi, lo)),
        ),
        // 06.q3 min_max_inverse
        wrong(
            "computed in float32",
            &["float32", "f32", "precision", "tolerance"],
            q3.check(|x_scaled, data_min, data_max, (lo, hi)| {
                let (x, mn, mx) = (x_scaled.to_dtype(DType::F32)?, data_min.to_dtype(DType::F32)?, data_max.to_dtype(DType::F32)?);
                let x_std = x.affine(1.0 / (hi - lo), -lo / (hi - lo))?;
                x_std.broadcast_mul(&(&mx - &mn)?)?.broadcast_add(&mn)?.to_dtype(DType::F64)
            }),
        ),
        wrong(
            "lo not subtracted before dividing by the range's width",
            &["lo", "offset", "shift", "subtract"],
            q3.check(|x_scaled, data_min, data_max, (lo, hi)| {
                (x_scaled / (hi - lo))?.broadcast_mul(&(data_max - data_min)?)?.broadcast_add(data_min)
            }),
        ),
        // 06.q4 repeat_last
        wrong(
            "the first observed point repeated",
            &["first point", "last point", "last"],
            q4.check(|sources, target_len| sources.i((.., 0..1))?.repeat((1, target_len, 1))),
        ),
        wrong(
            "the last point repeated along the batch dimension",
            &["dimension 0", "batch", "wrong dimension", "(n * target_len"],
            q4.check(|sources, target_len| {
                let l = sources.dim(1)?;
                sources.i((.., l - 1..))?.repeat((target_len, 1, 1))
            }),
        ),
        // 06.q5 lat_lon_loss
        wrong(
            "the timestamp kept in the loss",
            &["timestamp", "third", "all three", "every feature", "first two"],
            q5.check(|prediction, target| (prediction - target)?.sqr()?.mean_all()),
        ),
        wrong(
            "the latitude's and the longitude's mean squared errors added",
            &["sum", "summed", "twice", "factor 2", "2×", "doubled"],
            q5.check(|prediction, target| {
                let lat = (prediction.i((.., .., 0))? - target.i((.., .., 0))?)?.sqr()?.mean_all()?;
                let lon = (prediction.i((.., .., 1))? - target.i((.., .., 1))?)?.sqr()?.mean_all()?;
                lat + lon
            }),
        ),
        // 06.q6 model_input
        wrong(
            "joined along the features",
            &["dimension 2", "feature", "wrong dimension", "last dimension"],
            q6.check(|observed, future| Tensor::cat(&[observed, future], 2)),
        ),
        wrong(
            "the future points put first",
            &["order", "future first", "swapped", "observed first"],
            q6.check(|observed, future| Tensor::cat(&[future, observed], 1)),
        ),
        // 06.q7 walk_future
        wrong(
            "every future point stepped from the last observed point, not from the one before it",
            &["cumulat", "feed back", "fed back", "from the last observed point", "previous point", "accumulat", "not fed"],
            q7.check(|last_point, steps, interval_minutes| walk(last_point, steps, interval_minutes * 60.0, false)),
        ),
        wrong(
            "the interval added in minutes, not converted to seconds",
            &["seconds", "60", "minutes"],
            q7.check(|last_point, steps, interval_minutes| walk(last_point, steps, interval_minutes, true)),
        ),
    ]
}
