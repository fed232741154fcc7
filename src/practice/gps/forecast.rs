//! q4 to q7: the "repeat the last point" baseline, the loss on latitude and longitude, the
//! model's input, and the future points as a random walk, against the crate's GPS data.

use super::{F64, fitted, points, rows, tensor, trajectories};
use crate::data::Trajectories;
use crate::practice::answer::Tolerance;
use crate::practice::cases::{Case, randn};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use crate::train::{LeadingFeatures, Loss, MSELoss};
use candle_core::{IndexOp, Result, Tensor};

exercise! {
    /// The baseline: every future point is the last observed one.
    q4: Q4 = Info {
        id: "06.q4",
        title: "the baseline: repeat the last observed point",
        lecture: "001#124",
        hints: &[
            "The forecast has the target's shape, (N, target_len, F), and every one of its points is the source's last point.",
            "`sources.i((.., l - 1..))?` keeps the last point with its step dimension, (N, 1, F).",
            "Repeat it along the steps: `last_point.repeat((1, target_len, 1))`.",
        ],
        solution: solution!(gps::repeat_last),
    }
}

impl Exercise for Q4 {
    type Input = (Trajectories, Tensor, usize);
    type Answer = Tensor;
    const TOLERANCE: Tolerance = F64;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n, seq_len, pred_len| -> Result<(Trajectories, Tensor, usize)> {
            let t = trajectories(seed, n, seq_len, pred_len, 15.0)?;
            let sources = points(&t)?.0;
            Ok((t, sources, pred_len))
        };
        Ok(vec![
            Case::new("4 trajectories, 6 observed points, 2 to predict, seed 11", case(11, 4, 6, 2)?),
            Case::new("a batch of one, one observed point, 4 to predict, seed 12", case(12, 1, 1, 4)?),
            Case::new("3 trajectories, 2 observed points, 5 to predict, seed 13", case(13, 3, 2, 5)?),
        ])
    }

    fn reference((t, _, p): &Self::Input) -> Result<Tensor> {
        tensor(&t.repeat_last()?, &[t.len(), *p, 3])
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "That repeats the first observed point: the walk starts from the last one, `sources[:, -1:]`.",
                answer: |(_, x, p)| x.i((.., ..1))?.repeat((1, *p, 1)),
            },
            Mistake {
                sentence: "That copies observed points as they are: the baseline repeats one point, the last observed, at every future step.",
                answer: |(_, x, p)| match x.dim(1)?.checked_sub(*p) {
                    Some(from) => x.i((.., from..)),
                    None => Err(candle_core::Error::Msg("fewer observed points than future ones".into())),
                },
            },
            Mistake {
                sentence: "That copies observed points as they are: the baseline repeats one point, the last observed, at every future step.",
                answer: |(_, x, _)| Ok(x.clone()),
            },
            Mistake {
                sentence: "The last point is repeated along the batch, dimension 0: repeat it along the steps, `repeat((1, target_len, 1))`.",
                answer: |(_, x, p)| {
                    let l = x.dim(1)?;
                    x.i((.., l - 1..))?.repeat((*p, 1, 1))
                },
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(sources (N, L, 3), target_len) -> (N, target_len, 3)` against the crate's
    /// `Trajectories::repeat_last`.
    pub fn check(&self, f: impl Fn(&Tensor, usize) -> Result<Tensor>) -> Outcome {
        Self::run(|(_, x, p)| f(x, *p))
    }
}

exercise! {
    /// The mean squared error on latitude and longitude, the timestamp left out.
    q5: Q5 = Info {
        id: "06.q5",
        title: "the loss on latitude and longitude only",
        lecture: "001#124",
        hints: &[
            "Keep the first two features of both tensors, latitude and longitude; the third, the time, stays out of the loss.",
            "`t.i((.., .., ..2))?` is PyTorch's `t[:, :, :2]`.",
            "Then the mean squared error of what is left: `(p - t)?.sqr()?.mean_all()`.",
        ],
        solution: solution!(gps::lat_lon_loss),
    }
}

impl Exercise for Q5 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("a batch of 4 forecasts of 3 points (4, 3, 3)", (randn(41, &[4, 3, 3])?, randn(42, &[4, 3, 3])?)),
            Case::new("one point (1, 1, 3)", (randn(43, &[1, 1, 3])?, randn(44, &[1, 1, 3])?)),
            Case::new("6 forecasts of 7 points (6, 7, 3)", (randn(45, &[6, 7, 3])?, randn(46, &[6, 7, 3])?)),
        ])
    }

    fn reference((p, t): &Self::Input) -> Result<Tensor> {
        LeadingFeatures::new(MSELoss, 2).loss(p, t)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The timestamp is in the loss: keep only the first two features, `[:, :, :2]`, latitude and longitude.",
                answer: |(p, t)| MSELoss.loss(p, t),
            },
            Mistake {
                sentence: "That is the sum of the squares: the mean squared error averages them (`mean_all`).",
                answer: |(p, t)| (p.i((.., .., ..2))? - t.i((.., .., ..2))?)?.sqr()?.sum_all(),
            },
            Mistake {
                sentence: "Those are the last two features, longitude and time: latitude and longitude are the first two, `[:, :, :2]`.",
                answer: |(p, t)| MSELoss.loss(&p.i((.., .., 1..))?, &t.i((.., .., 1..))?),
            },
            Mistake {
                sentence: "That is latitude alone, `[:, :, :1]`: the loss takes latitude and longitude, the first two features, `[:, :, :2]`.",
                answer: |(p, t)| MSELoss.loss(&p.i((.., .., ..1))?, &t.i((.., .., ..1))?),
            },
            Mistake {
                sentence: "That is the mean absolute error: the loss squares the differences before averaging them.",
                answer: |(p, t)| (p.i((.., .., ..2))? - t.i((.., .., ..2))?)?.abs()?.mean_all(),
            },
        ]
    }
}

impl Q5 {
    /// Checks `f(prediction (N, M, 3), target (N, M, 3)) -> scalar` against the crate's
    /// `LeadingFeatures::new(MSELoss, 2)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(p, t)| f(p, t))
    }
}

/// Scaled trajectories (by a scaler fitted on their observed points), their observed and future
/// points as the loader's `f32` tensors.
type JoinCase = (Trajectories, Tensor, Tensor);

exercise! {
    /// The model's input: observed and future points as one sequence.
    q6: Q6 = Info {
        id: "06.q6",
        title: "the model's input: observed and future points joined",
        lecture: "001#122",
        hints: &[
            "The encoder-decoder cuts its input after input_len points itself: it wants one sequence, the observed points first, then the future ones.",
            "Join along the steps, dimension 1: the batch (dimension 0) and the features (dimension 2) stay as they are.",
            "`Tensor::cat(&[observed, future], 1)`.",
        ],
        solution: solution!(gps::model_input),
    }
}

impl Exercise for Q6 {
    type Input = JoinCase;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = F64;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n, seq_len, pred_len| -> Result<JoinCase> {
            let t = trajectories(seed, n, seq_len, pred_len, 15.0)?;
            let scaled = t.scaled(&fitted(&points(&t)?.0, (0.0, 1.0))?)?;
            Ok((scaled.clone(), scaled.sources_tensor()?, scaled.targets_tensor()?))
        };
        Ok(vec![
            Case::new("4 scaled trajectories, 3 observed and 3 future points, seed 21", case(21, 4, 3, 3)?),
            Case::new("a batch of one, 5 observed and 1 future point, seed 22", case(22, 1, 5, 1)?),
            Case::new("6 trajectories, 2 observed and 4 future points, seed 23", case(23, 6, 2, 4)?),
        ])
    }

    fn reference((t, _, _): &Self::Input) -> Result<Tensor> {
        t.full_tensor()
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The future points come first: the observed points lead, the encoder reads the first input_len points.",
                answer: |(_, o, fu)| Tensor::cat(&[fu, o], 1),
            },
            Mistake {
                sentence: "Joined along the batch, dimension 0: the points of one trajectory follow each other along dimension 1.",
                answer: |(_, o, fu)| Tensor::cat(&[o, fu], 0),
            },
            Mistake {
                sentence: "Joined along the features, dimension 2: each point keeps its three features, the future points come after the observed ones along dimension 1.",
                answer: |(_, o, fu)| Tensor::cat(&[o, fu], 2),
            },
            Mistake {
                sentence: "`stack` adds a new dimension (and needs equal lengths): `Tensor::cat` joins the points along the existing steps dimension, 1.",
                answer: |(_, o, fu)| Tensor::stack(&[o, fu], 1),
            },
        ]
    }
}

impl Q6 {
    /// Checks `f(observed (N, L, 3), future (N, M, 3)) -> (N, L + M, 3)` against the crate's
    /// `Trajectories::full_tensor`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(_, o, fu)| f(o, fu))
    }
}

/// Drawn trajectories, the last observed points (N, 1, 3), the steps (N, M, 2) their future
/// points took, and the minutes between points.
type WalkCase = (Trajectories, Tensor, Tensor, f64);

exercise! {
    /// The future points: a random walk from the last observed point, the clock moving on.
    q7: Q7 = Info {
        id: "06.q7",
        title: "the future points: a walk from the last observed point",
        lecture: "001#115",
        hints: &[
            "Each future point is the previous point plus a step: the first one steps from the last observed point, the next from the first future point, and so on.",
            "The steps move latitude and longitude; the timestamp moves by the interval, in seconds: interval_minutes * 60.",
            "Loop over the steps: `point = (point + step)?` with `step = Tensor::cat(&[steps.i((.., k..k + 1))?, dt], 2)?` and `dt` a (N, 1, 1) tensor of interval_minutes * 60.",
        ],
        solution: solution!(gps::walk_future),
    }
}

impl Exercise for Q7 {
    type Input = WalkCase;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = F64;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n, seq_len, pred_len, interval| -> Result<WalkCase> {
            let t = trajectories(seed, n, seq_len, pred_len, interval)?;
            let (sources, targets) = points(&t)?;
            let last = sources.i((.., seq_len - 1..))?;
            let before = Tensor::cat(&[&last, &targets.i((.., ..pred_len - 1))?], 1)?;
            let steps = (targets - before)?.i((.., .., ..2))?.contiguous()?;
            Ok((t, last, steps, interval))
        };
        Ok(vec![
            Case::new("4 trajectories, 4 future points 15 minutes apart, seed 31", case(31, 4, 5, 4, 15.0)?),
            Case::new("a batch of one, 6 future points 5 minutes apart, seed 32", case(32, 1, 3, 6, 5.0)?),
            Case::new("3 trajectories, one future point an hour on, seed 33", case(33, 3, 2, 1, 60.0)?),
        ])
    }

    fn reference((t, _, _, _): &Self::Input) -> Result<Tensor> {
        tensor(&t.targets, &[t.len(), t.pred_len, 3])
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        const NOT_A_WALK: &str = "Every future point steps from the last observed point: in a walk each point steps from the one before it, so the steps add up.";
        vec![
            Mistake {
                sentence: "The timestamps moved by interval_minutes: they are seconds, so each point is interval_minutes * 60 later.",
                answer: |(_, last, steps, interval)| walk(last, &steps.cumsum(1)?, *interval, true),
            },
            Mistake { sentence: NOT_A_WALK, answer: |(_, last, steps, interval)| walk(last, steps, *interval * 60.0, true) },
            Mistake { sentence: NOT_A_WALK, answer: |(_, last, steps, interval)| walk(last, steps, *interval * 60.0, false) },
            Mistake {
                sentence: "Every future point is one interval after the last observed one: the clock moves on with the walk, so the k-th future point is k intervals later.",
                answer: |(_, last, steps, interval)| walk(last, &steps.cumsum(1)?, *interval * 60.0, false),
            },
            Mistake {
                sentence: "The timestamps do not move: each future point is interval_minutes * 60 seconds after the point before it.",
                answer: |(_, last, steps, _)| walk(last, &steps.cumsum(1)?, 0.0, true),
            },
            Mistake {
                sentence: "Your first future point is the last observed point itself: the first future point is already one step (and one interval) away.",
                answer: |(t, last, steps, interval)| {
                    let m = t.pred_len;
                    let walked = walk(last, &steps.cumsum(1)?, *interval * 60.0, true)?;
                    Tensor::cat(&[last, &walked.i((.., ..m - 1))?], 1)
                },
            },
        ]
    }
}

impl Q7 {
    /// Checks `f(last_point (N, 1, 3), steps (N, M, 2), interval_minutes) -> (N, M, 3)` against
    /// the future points of the crate's `generate_gps_trajectories`, in `f64` to `1e-10`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, f64) -> Result<Tensor>) -> Outcome {
        Self::run(|(_, last, steps, interval)| f(last, steps, *interval))
    }
}

/// `last` moved by `offsets` (N, M, 2) in latitude and longitude, and by `dt` per point in time
/// (`(k + 1) * dt` for the k-th point when `clock`, `dt` for every point otherwise).
fn walk(last: &Tensor, offsets: &Tensor, dt: f64, clock: bool) -> Result<Tensor> {
    let r = rows::<3>(last)?;
    let o = rows::<2>(offsets)?;
    let m = offsets.dim(1)?;
    let points: Vec<[f64; 3]> = o
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let p = r[k / m];
            [p[0] + d[0], p[1] + d[1], p[2] + dt * if clock { (k % m + 1) as f64 } else { 1.0 }]
        })
        .collect();
    tensor(&points, &[r.len(), m, 3])
}
