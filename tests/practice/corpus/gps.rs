//! Wrong answers to part 6's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::gps::*;
use attention_zoo::prelude::*;

fn q1_wrongs() -> Vec<Wrong> {
    vec![
        wrong("a minimum and maximum per sequence", &["per sequence"], q1.check(|x| Ok((x.min(1)?, x.max(1)?)))),
        wrong("a minimum and maximum per step", &["per step"], q1.check(|x| Ok((x.min(0)?, x.max(0)?)))),
        wrong("one minimum and maximum over everything", &["all the features at once"], q1.check(|x| Ok((x.min_all()?, x.max_all()?)))),
        wrong(
            "the rows' minimum and maximum over the features, dimension 1 of the flattened rows",
            &["per point", "each point", "over the features"],
            q1.check(|x| {
                let rows = x.flatten(0, 1)?;
                Ok((rows.min(1)?, rows.max(1)?))
            }),
        ),
        wrong(
            "(data_max, data_min) returned in the other order",
            &["swapped", "other order", "maximum first"],
            q1.check(|x| {
                let rows = x.flatten(0, 1)?;
                Ok((rows.max(0)?, rows.min(0)?))
            }),
        ),
    ]
}

fn q2_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "divided by the maximum",
            &["divided by the maximum"],
            q2.check(|x, min, max, (lo, hi)| x.broadcast_sub(min)?.broadcast_div(max)?.affine(hi - lo, lo)),
        ),
        wrong(
            "the stretch by hi - lo without the shift by lo",
            &["lower end is missing", "add lo"],
            q2.check(|x, min, max, (lo, hi)| x.broadcast_sub(min)?.broadcast_div(&(max - min)?)?.affine(hi - lo, 0.0)),
        ),
        wrong(
            "feature_range ignored",
            &["whatever feature_range says", "feature_range"],
            q2.check(|x, min, max, _| x.broadcast_sub(min)?.broadcast_div(&(max - min)?)),
        ),
        wrong(
            "stretched by hi, not by hi - lo",
            &["hi - lo"],
            q2.check(|x, min, max, (lo, hi)| x.broadcast_sub(min)?.broadcast_div(&(max - min)?)?.affine(hi, lo)),
        ),
        wrong(
            "refitted on x itself, the given minima and maxima ignored",
            &["data_min", "fitted"],
            q2.check(|x, _, _, (lo, hi)| {
                let rows = x.flatten(0, 1)?;
                let (min, max) = (rows.min(0)?, rows.max(0)?);
                x.broadcast_sub(&min)?.broadcast_div(&(max - &min)?)?.affine(hi - lo, lo)
            }),
        ),
    ]
}

fn q3_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "the transform's formula applied again",
            &["transform's formula"],
            q3.check(|x, min, max, (lo, hi)| x.broadcast_sub(min)?.broadcast_div(&(max - min)?)?.affine(hi - lo, lo)),
        ),
        wrong(
            "the minimum added before multiplying by the range",
            &["added before multiplying"],
            q3.check(|x, min, max, (lo, hi)| x.affine(1.0 / (hi - lo), -lo / (hi - lo))?.broadcast_add(min)?.broadcast_mul(&(max - min)?)),
        ),
        wrong(
            "feature_range ignored",
            &["whatever feature_range says", "feature_range"],
            q3.check(|x, min, max, _| x.broadcast_mul(&(max - min)?)?.broadcast_add(min)),
        ),
        wrong(
            "the minimum never added back",
            &["minimum", "data_min"],
            q3.check(|x, min, max, (lo, hi)| x.affine(1.0 / (hi - lo), -lo / (hi - lo))?.broadcast_mul(&(max - min)?)),
        ),
        wrong(
            "multiplied by hi - lo where it must divide",
            &["hi - lo", "divide"],
            q3.check(|x, min, max, (lo, hi)| x.affine(hi - lo, -lo * (hi - lo))?.broadcast_mul(&(max - min)?)?.broadcast_add(min)),
        ),
    ]
}

fn q4_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the first observed point repeated", &["first observed point"], q4.check(|x, m| x.i((.., ..1))?.repeat((1, m, 1)))),
        wrong(
            "the last target_len observed points copied",
            &["copies observed points"],
            q4.check(|x, m| {
                let l = x.dim(1)?;
                x.i((.., l - m..))
            }),
        ),
        wrong(
            "the last point repeated along the batch",
            &["batch", "dimension 0"],
            q4.check(|x, m| {
                let l = x.dim(1)?;
                x.i((.., l - 1..))?.repeat((m, 1, 1))
            }),
        ),
        wrong(
            "the second-to-last point repeated (an index off by one)",
            &["off by one", "second-to-last", "moved one position"],
            q4.check(|x, m| {
                let l = x.dim(1)?;
                x.i((.., l.saturating_sub(2)..l.saturating_sub(1).max(1)))?.repeat((1, m, 1))
            }),
        ),
    ]
}

fn q5_wrongs() -> Vec<Wrong> {
    let lat_lon = |t: &Tensor, n: usize| t.i((.., .., ..n));
    vec![
        wrong("every feature in the loss", &["timestamp is in the loss"], q5.check(|p, t| (p - t)?.sqr()?.mean_all())),
        wrong("the sum of the squares", &["sum of the squares"], q5.check(move |p, t| (lat_lon(p, 2)? - lat_lon(t, 2)?)?.sqr()?.sum_all())),
        wrong(
            "latitude alone, [:, :, :1]",
            &["latitude alone", "first feature", "first two"],
            q5.check(move |p, t| (lat_lon(p, 1)? - lat_lon(t, 1)?)?.sqr()?.mean_all()),
        ),
        wrong(
            "the last two features",
            &["last two features"],
            q5.check(|p, t| (p.i((.., .., 1..))? - t.i((.., .., 1..))?)?.sqr()?.mean_all()),
        ),
        wrong(
            "the mean absolute error",
            &["absolute", "square"],
            q5.check(move |p, t| (lat_lon(p, 2)? - lat_lon(t, 2)?)?.abs()?.mean_all()),
        ),
        wrong(
            "the two features' mean squared errors added",
            &["times 2"],
            q5.check(move |p, t| (lat_lon(p, 2)? - lat_lon(t, 2)?)?.sqr()?.mean(0)?.mean(0)?.sum_all()),
        ),
    ]
}

fn q6_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the future points first", &["future points come first"], q6.check(|o, f| Tensor::cat(&[f, o], 1))),
        wrong("joined along the batch", &["along the batch"], q6.check(|o, f| Tensor::cat(&[o, f], 0))),
        wrong("joined along the last dimension", &["along the features"], q6.check(|o, f| Tensor::cat(&[o, f], D::Minus1))),
        wrong("stacked rather than joined", &["stack", "cat"], q6.check(|o, f| Tensor::stack(&[o, f], 1))),
    ]
}

/// The walk as a student writes it: the lat/lon steps added up when `cumulate` (else each from
/// the last point), the clock moved by `dt` per point and added up when `clock`.
fn walk(last: &Tensor, steps: &Tensor, dt: f64, cumulate: bool, clock: bool) -> Result<Tensor> {
    let (n, m, _) = steps.dims3()?;
    let moves = if cumulate { steps.cumsum(1)? } else { steps.clone() };
    let ticks: Vec<f64> = (0..n).flat_map(|_| (1..=m).map(|k| dt * if clock { k as f64 } else { 1.0 })).collect();
    let times = Tensor::from_vec(ticks, (n, m, 1), steps.device())?;
    Tensor::cat(&[moves, times], 2)?.broadcast_add(last)
}

fn q7_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the clock moved by minutes", &["seconds", "* 60"], q7.check(|last, steps, minutes| walk(last, steps, minutes, true, true))),
        wrong(
            "each point stepped from the last observed point",
            &["steps from the last observed point", "add up"],
            q7.check(|last, steps, minutes| walk(last, steps, minutes * 60.0, false, true)),
        ),
        wrong(
            "the steps added up but the clock moved once for every point",
            &["clock", "timestamp", "interval"],
            q7.check(|last, steps, minutes| walk(last, steps, minutes * 60.0, true, false)),
        ),
        wrong(
            "the walk starting with the last observed point itself",
            &["last observed point itself"],
            q7.check(|last, steps, minutes| {
                let m = steps.dim(1)?;
                let walked = walk(last, steps, minutes * 60.0, true, true)?;
                Tensor::cat(&[last, &walked.i((.., ..m - 1))?], 1)
            }),
        ),
        wrong(
            "the timestamps left as they were",
            &["timestamps do not move", "timestamp"],
            q7.check(|last, steps, _| walk(last, steps, 0.0, true, true)),
        ),
    ]
}

pub fn corpus() -> Vec<Wrong> {
    [q1_wrongs(), q2_wrongs(), q3_wrongs(), q4_wrongs(), q5_wrongs(), q6_wrongs(), q7_wrongs()].into_iter().flatten().collect()
}

/// Correct answers written otherwise than the solutions: each checks Correct.
#[test]
fn other_correct_forms() {
    use super::super::correct;
    let _serial = crate::common::serial();
    // q1: the minimum over the steps, then over the sequences
    correct(q1.check(|x| Ok((x.min(1)?.min(0)?, x.max(1)?.max(0)?))));
    // q2: scikit-learn's scale_ and min_
    correct(q2.check(|x, data_min, data_max, (lo, hi)| {
        let scale = ((data_max - data_min)?.recip()? * (hi - lo))?;
        let min = (data_min * &scale)?.neg()?.affine(1.0, lo)?;
        x.broadcast_mul(&scale)?.broadcast_add(&min)
    }));
    // q3: scikit-learn's inverse, (X - min_) / scale_
    correct(q3.check(|x, data_min, data_max, (lo, hi)| {
        let scale = ((data_max - data_min)?.recip()? * (hi - lo))?;
        let min = (data_min * &scale)?.neg()?.affine(1.0, lo)?;
        x.broadcast_sub(&min)?.broadcast_div(&scale)
    }));
    // q4: the last point broadcast along the steps
    correct(q4.check(|x, m| {
        let (n, l, f) = x.dims3()?;
        x.narrow(1, l - 1, 1)?.broadcast_as((n, m, f))?.contiguous()
    }));
    // q5: the mean over the last dimension first (two features, so the same mean)
    correct(q5.check(|p, t| (p.narrow(2, 0, 2)? - t.narrow(2, 0, 2)?)?.sqr()?.mean(2)?.mean_all()));
    // q6: along D::Minus2
    correct(q6.check(|o, f| Tensor::cat(&[o, f], D::Minus2)));
    // q7: the steps added up with cumsum, the clock as (k + 1) intervals
    correct(q7.check(|last, steps, minutes| walk(last, steps, minutes * 60.0, true, true)));
}
