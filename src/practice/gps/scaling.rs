//! q1 to q3: the min-max scaler's fit, transform and inverse transform, against the crate's
//! `MinMaxScaler` (scikit-learn's arithmetic).

use super::{F64, fitted, points, through, trajectories};
use crate::data::MinMaxScaler;
use crate::practice::answer::Tolerance;
use crate::practice::cases::{Case, randn, uniform};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{DType, Device, Result, Tensor};

exercise! {
    /// Each feature's minimum and maximum over every point of every sequence.
    q1: Q1 = Info {
        id: "06.q1",
        title: "fit a min-max scaler: each feature's minimum and maximum",
        lecture: "001#118",
        hints: &[
            "scikit-learn sees the points as rows of a table, `reshape(-1, 3)`: the sequences and their steps all become rows, the features stay columns.",
            "`sequences.flatten(0, 1)?` gives the rows, (N * L, F); then take the minimum and the maximum down the rows.",
            "`rows.min(0)?` and `rows.max(0)?`, both of shape (F,).",
        ],
        solution: solution!(gps::fit_min_max),
    }
}

impl Exercise for Q1 {
    type Input = Tensor;
    type Answer = (Tensor, Tensor);
    const TOLERANCE: Tolerance = F64;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("6 trajectories of 4 observed points (6, 4, 3), seed 3", points(&trajectories(3, 6, 4, 2, 15.0)?)?.0),
            Case::new("one trajectory of 7 points (1, 7, 3), seed 8", points(&trajectories(8, 1, 7, 1, 15.0)?)?.0),
            Case::new("two features, 5 sequences of 2 steps (5, 2, 2)", randn(31, &[5, 2, 2])?.to_dtype(DType::F64)?),
        ])
    }

    fn reference(x: &Self::Input) -> Result<(Tensor, Tensor)> {
        let scaler = fitted(x, (0.0, 1.0))?;
        let dev = &Device::Cpu;
        Ok((Tensor::new(scaler.data_min.as_slice(), dev)?, Tensor::new(scaler.data_max.as_slice(), dev)?))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, (Tensor, Tensor)>> {
        const GLOBAL: &str =
            "That is one minimum and one maximum over all the features at once: each feature (latitude, longitude, time) gets its own.";
        vec![
            Mistake {
                sentence: "That is a minimum and a maximum per sequence, (N, F): the scaler takes them over every point of every sequence together.",
                answer: |x| Ok((x.min(1)?, x.max(1)?)),
            },
            Mistake {
                sentence: "That is a minimum and a maximum per step, (L, F): the scaler takes them over every point of every sequence together.",
                answer: |x| Ok((x.min(0)?, x.max(0)?)),
            },
            Mistake {
                sentence: "That is a minimum and a maximum per point, over its own features: each feature gets its minimum and maximum down the rows, over every point (dimension 0 of the flattened rows).",
                answer: |x| {
                    let rows = x.flatten(0, 1)?;
                    Ok((rows.min(1)?, rows.max(1)?))
                },
            },
            Mistake {
                sentence: "The maximum and the minimum are returned in the other order: return (data_min, data_max).",
                answer: |x| {
                    let rows = x.flatten(0, 1)?;
                    Ok((rows.max(0)?, rows.min(0)?))
                },
            },
            Mistake { sentence: GLOBAL, answer: |x| Ok((x.min_all()?, x.max_all()?)) },
            Mistake {
                sentence: GLOBAL,
                answer: |x| {
                    let f = x.dim(2)?;
                    Ok((x.min_all()?.broadcast_as(f)?.contiguous()?, x.max_all()?.broadcast_as(f)?.contiguous()?))
                },
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(sequences (N, L, F)) -> (data_min (F,), data_max (F,))`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|x| f(x))
    }
}

/// A scaler fitted by the crate, points to put through it, and its minima and maxima as tensors.
pub(crate) struct Scaled {
    scaler: MinMaxScaler,
    x: Tensor,
    data_min: Tensor,
    data_max: Tensor,
}

impl Scaled {
    /// The crate's scaler onto `range`, fitted on `fit_on`, with the points `x`.
    fn new(fit_on: &Tensor, range: (f64, f64), x: Tensor) -> Result<Scaled> {
        let scaler = fitted(fit_on, range)?;
        let dev = &Device::Cpu;
        let (data_min, data_max) = (Tensor::new(scaler.data_min.as_slice(), dev)?, Tensor::new(scaler.data_max.as_slice(), dev)?);
        Ok(Scaled { scaler, x, data_min, data_max })
    }

    /// `(x - data_min) / (data_max - data_min)`, the points between 0 and 1.
    fn standard(&self) -> Result<Tensor> {
        self.x.broadcast_sub(&self.data_min)?.broadcast_div(&(&self.data_max - &self.data_min)?)
    }

    fn range(&self) -> Result<Tensor> {
        &self.data_max - &self.data_min
    }
}

exercise! {
    /// The points onto the feature range, with the fitted minima and maxima.
    q2: Q2 = Info {
        id: "06.q2",
        title: "transform: each feature onto the feature range",
        lecture: "001#119",
        hints: &[
            "First bring each feature between 0 and 1: subtract its minimum, divide by its range (maximum minus minimum).",
            "Then stretch to the feature range `(lo, hi)`: multiply by `hi - lo` and add `lo`. data_min and data_max are (F,): use the `broadcast_` operations.",
            "`x.broadcast_sub(data_min)?.broadcast_div(&(data_max - data_min)?)?.affine(hi - lo, lo)`.",
        ],
        solution: solution!(gps::min_max_transform),
    }
}

impl Exercise for Q2 {
    type Input = Scaled;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let (train, future) = points(&trajectories(4, 8, 5, 3, 15.0)?)?;
        let other = points(&trajectories(6, 1, 6, 1, 15.0)?)?.0;
        let fit_on = randn(32, &[4, 3, 2])?.to_dtype(DType::F64)?;
        Ok(vec![
            Case::new(
                "fitted on 8 trajectories' observed points (seed 4), their future points (8, 3, 3), range (0, 1)",
                Scaled::new(&train, (0.0, 1.0), future)?,
            ),
            Case::new(
                "fitted as above, a batch of one other trajectory (1, 6, 3), range (-1, 1)",
                Scaled::new(&train, (-1.0, 1.0), other)?,
            ),
            Case::new(
                "two features (3, 4, 2), range (2, 5)",
                Scaled::new(&fit_on, (2.0, 5.0), uniform(33, &[3, 4, 2], -3.0, 3.0)?.to_dtype(DType::F64)?)?,
            ),
        ])
    }

    fn reference(c: &Self::Input) -> Result<Tensor> {
        through(&c.scaler, &c.x, false)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "You divided by the maximum: divide by the range, data_max - data_min, so that the maximum lands on the top of the feature range.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.x.broadcast_sub(&c.data_min)?.broadcast_div(&c.data_max)?.affine(hi - lo, lo)
                },
            },
            Mistake {
                sentence: "The feature range's lower end is missing: after multiplying by hi - lo, add lo, so that the minimum lands on lo.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.standard()?.affine(hi - lo, 0.0)
                },
            },
            Mistake {
                sentence: "That is the (0, 1) scaling whatever feature_range says: stretch by hi - lo and shift by lo.",
                answer: |c| c.standard(),
            },
            Mistake {
                sentence: "The points are stretched by hi: the feature range is hi - lo wide, so multiply by hi - lo before adding lo.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.standard()?.affine(hi, lo)
                },
            },
            Mistake {
                sentence: "The minima and maxima are taken from x itself: transform uses the fitted data_min and data_max it is given, those of the points the scaler was fitted on.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    let rows = c.x.flatten(0, 1)?;
                    let (min, max) = (rows.min(0)?, rows.max(0)?);
                    c.x.broadcast_sub(&min)?.broadcast_div(&(max - &min)?)?.affine(hi - lo, lo)
                },
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(x (N, L, F), data_min (F,), data_max (F,), feature_range) -> (N, L, F)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, (f64, f64)) -> Result<Tensor>) -> Outcome {
        Self::run(|c| f(&c.x, &c.data_min, &c.data_max, c.scaler.feature_range))
    }
}

exercise! {
    /// Scaled points back to degrees and seconds.
    q3: Q3 = Info {
        id: "06.q3",
        title: "inverse_transform: scaled points back to degrees and seconds",
        lecture: "001#125",
        hints: &[
            "Undo the transform's steps in the reverse order: the shift by lo and the stretch by hi - lo first, then the feature's range and minimum.",
            "`(x_scaled - lo) / (hi - lo)` is between 0 and 1 again; multiply it by data_max - data_min, then add data_min.",
            "`x_scaled.affine(1.0 / (hi - lo), -lo / (hi - lo))?.broadcast_mul(&(data_max - data_min)?)?.broadcast_add(data_min)`.",
        ],
        solution: solution!(gps::min_max_inverse),
    }
}

impl Exercise for Q3 {
    type Input = Scaled;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = F64;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let (train, future) = points(&trajectories(9, 7, 5, 3, 15.0)?)?;
        let scaled_future = through(&fitted(&train, (0.0, 1.0))?, &future, false)?;
        let fit_on = randn(34, &[4, 3, 2])?.to_dtype(DType::F64)?;
        Ok(vec![
            Case::new(
                "7 trajectories' future points, scaled (7, 3, 3), range (0, 1), seed 9",
                Scaled::new(&train, (0.0, 1.0), scaled_future)?,
            ),
            Case::new(
                "a model's output for a batch of one (1, 4, 3), range (-1, 1)",
                Scaled::new(&train, (-1.0, 1.0), uniform(35, &[1, 4, 3], -1.2, 1.2)?.to_dtype(DType::F64)?)?,
            ),
            Case::new(
                "two features (2, 5, 2), range (2, 5)",
                Scaled::new(&fit_on, (2.0, 5.0), uniform(36, &[2, 5, 2], 1.0, 6.0)?.to_dtype(DType::F64)?)?,
            ),
        ])
    }

    fn reference(c: &Self::Input) -> Result<Tensor> {
        through(&c.scaler, &c.x, true)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "That is the transform's formula again: the inverse multiplies by the range and adds the minimum, where the transform subtracted and divided.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.standard()?.affine(hi - lo, lo)
                },
            },
            Mistake {
                sentence: "The minimum is added before multiplying by the range: scale first, (x - lo) / (hi - lo) * (data_max - data_min), then add data_min.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.x.affine(1.0 / (hi - lo), -lo / (hi - lo))?.broadcast_add(&c.data_min)?.broadcast_mul(&c.range()?)
                },
            },
            Mistake {
                sentence: "That undoes the (0, 1) scaling whatever feature_range says: first take away lo and divide by hi - lo.",
                answer: |c| c.x.broadcast_mul(&c.range()?)?.broadcast_add(&c.data_min),
            },
            Mistake {
                sentence: "The minimum is not added back: after multiplying by data_max - data_min, add data_min, or every feature starts from 0.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.x.affine(1.0 / (hi - lo), -lo / (hi - lo))?.broadcast_mul(&c.range()?)
                },
            },
            Mistake {
                sentence: "The feature range is multiplied in again: to undo the stretch by hi - lo, divide by hi - lo after taking away lo.",
                answer: |c| {
                    let (lo, hi) = c.scaler.feature_range;
                    c.x.affine(hi - lo, -lo * (hi - lo))?.broadcast_mul(&c.range()?)?.broadcast_add(&c.data_min)
                },
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(x_scaled (N, L, F), data_min (F,), data_max (F,), feature_range) -> (N, L, F)`,
    /// to `1e-10` of the reference: the timestamps are about 1.7e9 seconds.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, (f64, f64)) -> Result<Tensor>) -> Outcome {
        Self::run(|c| f(&c.x, &c.data_min, &c.data_max, c.scaler.feature_range))
    }
}
