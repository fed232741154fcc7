//! Part 6's exercises, both ways.

use super::{correct, incorrect, mistake, not_attempted};
use attention_zoo::practice::gps::*;
use attention_zoo::practice::solutions::gps as s;
use attention_zoo::prelude::*;

#[test]
fn q1_fit_min_max() {
    let _serial = crate::common::serial();
    correct(q1.check(s::fit_min_max));
    not_attempted(q1.check(|_| todo!()));
    mistake(q1.check(|x| Ok((x.min_keepdim(1)?.squeeze(1)?, x.max_keepdim(1)?.squeeze(1)?))), "per sequence");
    mistake(q1.check(|x| Ok((x.min(0)?, x.max(0)?))), "per step");
    mistake(
        q1.check(|x| {
            let all = x.flatten_all()?;
            Ok((all.min(0)?, all.max(0)?))
        }),
        "all the features at once",
    );
    mistake(q1.check(|x| Ok((x.flatten(0, 1)?.min(D::Minus1)?, x.flatten(0, 1)?.max(D::Minus1)?))), "per point, over its own features");
    mistake(q1.check(|x| Ok((x.max(1)?.max(0)?, x.min(1)?.min(0)?))), "in the other order");
}

#[test]
fn q2_min_max_transform() {
    let _serial = crate::common::serial();
    correct(q2.check(s::min_max_transform));
    not_attempted(q2.check(|_, _, _, _| todo!()));
    mistake(
        q2.check(|x, min, max, (lo, hi)| {
            let x_std = x.broadcast_sub(min)?.broadcast_div(max)?;
            (x_std * (hi - lo))? + lo
        }),
        "divided by the maximum",
    );
    mistake(
        q2.check(|x, min, max, (lo, hi)| {
            let x_std = x.broadcast_sub(min)?.broadcast_div(&max.sub(min)?)?;
            x_std * (hi - lo)
        }),
        "lower end is missing",
    );
    mistake(q2.check(|x, min, max, _| x.broadcast_sub(min)?.broadcast_div(&(max - min)?)), "whatever feature_range says");
    mistake(q2.check(|x, min, max, (lo, hi)| (x.broadcast_sub(min)?.broadcast_div(&(max - min)?)? * hi)? + lo), "stretched by hi");
    mistake(
        q2.check(|x, _, _, (lo, hi)| {
            let (min, max) = (x.min(1)?.min(0)?, x.max(1)?.max(0)?);
            x.broadcast_sub(&min)?.broadcast_div(&(max - &min)?)?.affine(hi - lo, lo)
        }),
        "taken from x itself",
    );
}

#[test]
fn q3_min_max_inverse() {
    let _serial = crate::common::serial();
    correct(q3.check(s::min_max_inverse));
    not_attempted(q3.check(|_, _, _, _| todo!()));
    mistake(
        q3.check(|x, min, max, (lo, hi)| {
            let x_std = x.broadcast_sub(min)?.broadcast_div(&(max - min)?)?;
            x_std.affine(hi - lo, lo)
        }),
        "transform's formula again",
    );
    mistake(
        q3.check(|x, min, max, (lo, hi)| {
            let x_std = ((x - lo)? / (hi - lo))?;
            x_std.broadcast_add(min)?.broadcast_mul(&(max - min)?)
        }),
        "added before multiplying",
    );
    mistake(q3.check(|x, min, max, _| x.broadcast_mul(&(max - min)?)?.broadcast_add(min)), "whatever feature_range says");
    mistake(q3.check(|x, min, max, (lo, hi)| (((x - lo)? / (hi - lo))?).broadcast_mul(&(max - min)?)), "not added back");
    mistake(
        q3.check(|x, min, max, (lo, hi)| (((x - lo)? * (hi - lo))?).broadcast_mul(&(max - min)?)?.broadcast_add(min)),
        "multiplied in again",
    );
}

#[test]
fn q4_repeat_last() {
    let _serial = crate::common::serial();
    correct(q4.check(s::repeat_last));
    not_attempted(q4.check(|_, _| todo!()));
    mistake(
        q4.check(|src, m| {
            let (n, _, f) = src.dims3()?;
            src.narrow(1, 0, 1)?.broadcast_as((n, m, f))?.contiguous()
        }),
        "first observed point",
    );
    mistake(q4.check(|src, m| src.narrow(1, src.dim(1)? - m, m)), "copies observed points");
    mistake(q4.check(|src, _| Ok(src.clone())), "copies observed points");
    mistake(q4.check(|src, m| src.narrow(1, src.dim(1)? - 1, 1)?.repeat((m, 1, 1))), "repeated along the batch");
    // the last point repeated with its clock moved on by a second: timestamps are held to f64's
    // tolerance (float32's relative one would let them be hours off)
    incorrect(
        q4.check(|src, m| {
            let (n, l, f) = src.dims3()?;
            let last = src.narrow(1, l - 1, 1)?.broadcast_as((n, m, f))?.contiguous()?;
            last.broadcast_add(&Tensor::new(&[0f64, 0., 1.], src.device())?)
        }),
        "at [0, 0, 2]",
    );
    // a target length of its own: wrong on cases the mistakes' answers cannot be made for
    incorrect(q4.check(|src, _| src.narrow(1, src.dim(1)? - 1, 1)?.repeat((1, 2, 1))), "shape");
}

#[test]
fn q5_lat_lon_loss() {
    let _serial = crate::common::serial();
    correct(q5.check(s::lat_lon_loss));
    not_attempted(q5.check(|_, _| todo!()));
    mistake(q5.check(|p, t| (p - t)?.sqr()?.mean_all()), "timestamp is in the loss");
    mistake(q5.check(|p, t| (p.narrow(2, 0, 2)? - t.narrow(2, 0, 2)?)?.sqr()?.sum_all()), "sum of the squares");
    mistake(q5.check(|p, t| (p.narrow(2, 1, 2)? - t.narrow(2, 1, 2)?)?.sqr()?.mean_all()), "last two features");
    mistake(q5.check(|p, t| (p.narrow(2, 0, 1)? - t.narrow(2, 0, 1)?)?.sqr()?.mean_all()), "latitude alone");
    mistake(q5.check(|p, t| (p.narrow(2, 0, 2)? - t.narrow(2, 0, 2)?)?.abs()?.mean_all()), "mean absolute error");
    // the mean of each feature's error, summed: a wrong number the check names without a sentence
    incorrect(
        q5.check(|p, t| {
            let d = (p.narrow(2, 0, 2)? - t.narrow(2, 0, 2)?)?.sqr()?;
            d.narrow(2, 0, 1)?.mean_all()? + d.narrow(2, 1, 1)?.mean_all()?
        }),
        "yours is",
    );
}

#[test]
fn q6_model_input() {
    let _serial = crate::common::serial();
    correct(q6.check(s::model_input));
    not_attempted(q6.check(|_, _| todo!()));
    mistake(q6.check(|o, f| Tensor::cat(&[f, o], 1)), "future points come first");
    mistake(q6.check(|o, f| Tensor::cat(&[o, f], 0)), "along the batch");
    mistake(q6.check(|o, f| Tensor::cat(&[o, f], D::Minus1)), "along the features");
    mistake(q6.check(|o, f| Tensor::stack(&[o, f], 1)), "adds a new dimension");
}

#[test]
fn q7_walk_future() {
    let _serial = crate::common::serial();
    correct(q7.check(s::walk_future));
    not_attempted(q7.check(|_, _, _| todo!()));
    // a student's walk with a choice of time step, accumulation and start
    let walk = |last: &Tensor, steps: &Tensor, dt: f64, accumulate: bool, from_last: bool| -> Result<Tensor> {
        let (n, m, _) = steps.dims3()?;
        let mut point = last.clone();
        let mut out = vec![];
        for k in 0..m {
            if from_last {
                out.push(point.clone());
            }
            let step = Tensor::cat(&[steps.narrow(1, k, 1)?, Tensor::full(dt, (n, 1, 1), &Device::Cpu)?], 2)?;
            let next = if accumulate { (&point + step)? } else { (last + step)? };
            if accumulate {
                point = next.clone();
            }
            if !from_last {
                out.push(next);
            }
        }
        Tensor::cat(&out, 1)
    };
    mistake(q7.check(|last, steps, minutes| walk(last, steps, minutes, true, false)), "they are seconds");
    mistake(q7.check(|last, steps, minutes| walk(last, steps, minutes * 60.0, false, false)), "steps from the last observed point");
    mistake(q7.check(|last, steps, minutes| walk(last, steps, minutes * 60.0, true, true)), "last observed point itself");
    // the clock: one interval for every point, or none
    let clocked = |last: &Tensor, steps: &Tensor, dt: f64, times: fn(usize) -> f64| -> Result<Tensor> {
        let (n, m, _) = steps.dims3()?;
        let t: Vec<f64> = (0..n * m).map(|k| dt * times(k % m)).collect();
        Tensor::cat(&[steps.cumsum(1)?, Tensor::from_vec(t, (n, m, 1), &Device::Cpu)?], 2)?.broadcast_add(last)
    };
    mistake(
        q7.check(move |last, steps, minutes| clocked(last, steps, minutes * 60.0, |_| 1.0)),
        "one interval after the last observed one",
    );
    mistake(q7.check(move |last, steps, minutes| clocked(last, steps, minutes * 60.0, |_| 0.0)), "timestamps do not move");
}
