//! q1 to q3: the source mask, the subsequent mask and the shifted target.

use super::zeroed;
use crate::attention::{source_mask, subsequent_mask};
use crate::models::shifted_target;
use crate::practice::cases::{Case, randn};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{DType, Device, IndexOp, Result, Tensor};

exercise! {
    /// The source mask: which points of a (padded) source the attention may look at.
    q1: Q1 = Info {
        id: "03.q1",
        title: "the source mask",
        lecture: "000#51",
        hints: &[
            "A point is kept (1) when none of its features is zero, and masked (0) otherwise; the mask has one row per sequence, (N, 1, L).",
            "`source_seq.ne(0f32)?` gives 1 where a feature is non-zero; a point is kept when ALL its features are, which is the minimum over the features (dimension 2).",
            "`source_seq.ne(0f32)?.min(2)?.unsqueeze(1)`: `.all(axis=2)` is a min of zeros and ones, and `unsqueeze(1)` adds the query dimension.",
        ],
        solution: solution!(self_attention::make_source_mask),
    }
}

impl Exercise for Q1 {
    type Input = Tensor;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new(
                "a padded batch of 3 (3, 5, 2): two padded points at the end of the first sequence, a point with one zero feature in the second",
                zeroed(31, (3, 5, 2), |s, t, f| (s == 0 && t >= 3) || (s == 1 && t == 1 && f == 0))?,
            ),
            Case::new("a batch of one, one step, no padding (1, 1, 3)", randn(32, &[1, 1, 3])?),
            Case::new(
                "(2, 6, 4): a padded point in the middle of the first sequence, a point with three zero features in the second",
                zeroed(33, (2, 6, 4), |s, t, f| (s == 0 && t == 2) || (s == 1 && t == 4 && f < 3))?,
            ),
        ])
    }

    fn reference(x: &Self::Input) -> Result<Tensor> {
        source_mask(x)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "That is `.any`: a point with some zero features is still kept. The lecture's `.all(axis=2)` keeps a point only when every feature is non-zero.",
                answer: |x| x.ne(0f32)?.max(2)?.unsqueeze(1),
            },
            Mistake {
                sentence: "The mask is inverted: 1 must mark the points to keep (no zero feature) and 0 the padding.",
                answer: |x| source_mask(x)?.ones_like()?.sub(&source_mask(x)?),
            },
            Mistake {
                sentence: "The mask is (N, L): `unsqueeze(1)` it to (N, 1, L), so that it broadcasts over the queries of the scores (N, Lq, L).",
                answer: |x| source_mask(x)?.squeeze(1),
            },
            Mistake {
                sentence: "The mask is 1 on the all-zero points, the padding: it must be 1 on the points to keep, those without a zero feature, and 0 on the rest.",
                answer: |x| x.eq(0f32)?.min(2)?.unsqueeze(1),
            },
            Mistake {
                sentence: "The new dimension is last, (N, L, 1): `unsqueeze(1)` puts it in the middle, (N, 1, L), where the queries of the scores are.",
                answer: |x| source_mask(x)?.transpose(1, 2),
            },
            Mistake {
                sentence: "The minimum runs over the steps (dimension 1): a point's features are along dimension 2, `.min(2)`.",
                answer: |x| x.ne(0f32)?.min_keepdim(1),
            },
            Mistake {
                sentence: "The mask is float32: a mask is u8, 0s and 1s, as `source_mask` makes it (`.to_dtype(DType::U8)`).",
                answer: |x| source_mask(x)?.to_dtype(DType::F32),
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(source_seq (N, L, F)) -> (N, 1, L)`, u8, 1 keeps and 0 masks.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|x| f(x))
    }
}

/// A `(1, size, size)` u8 mask with 1 where `keep(row, column)`.
fn triangle(size: usize, keep: fn(usize, usize) -> bool) -> Result<Tensor> {
    let data: Vec<u8> = (0..size * size).map(|k| u8::from(keep(k / size, k % size))).collect();
    Tensor::from_vec(data, (1, size, size), &Device::Cpu)
}

exercise! {
    /// The subsequent (target) mask: no step may look at a later one.
    q2: Q2 = Info {
        id: "03.q2",
        title: "the subsequent mask",
        lecture: "000#72",
        hints: &[
            "Row i is the query of step i; column j the key of step j. Step i may see steps 0 to i, itself included: 1 on and below the diagonal, 0 above.",
            "The lecture writes `1 - triu(ones, diagonal=1)`. In candle, the strict upper triangle is `Tensor::triu2(size, ..)` minus `Tensor::eye(size, ..)`.",
            "`(1.0 - &strict_upper)?.unsqueeze(0)?.to_dtype(DType::U8)`, which is also `Tensor::tril2(size, DType::U8, &Device::Cpu)?.unsqueeze(0)`.",
        ],
        solution: solution!(self_attention::make_subsequent_mask),
    }
}

impl Exercise for Q2 {
    type Input = usize;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![Case::new("size 4", 4), Case::new("size 1, the first prediction step", 1), Case::new("size 7", 7)])
    }

    fn reference(s: &Self::Input) -> Result<Tensor> {
        subsequent_mask(*s)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The diagonal is masked: a step must see itself. `triu(ones, diagonal=1)` starts above the diagonal, so 1 minus it keeps the diagonal.",
                answer: |s| triangle(*s, |i, j| j < i),
            },
            Mistake {
                sentence: "The mask is inverted: it keeps the later steps and hides the earlier ones. 1 keeps, 0 masks; the 0s are above the diagonal.",
                answer: |s| triangle(*s, |i, j| j > i),
            },
            Mistake {
                sentence: "The mask is transposed (upper instead of lower): row i, the query of step i, may see the columns j <= i, the keys up to itself.",
                answer: |s| triangle(*s, |i, j| j >= i),
            },
            Mistake {
                sentence: "The mask is (size, size): `unsqueeze(0)` it to (1, size, size), one mask shared by every sequence of the batch.",
                answer: |s| subsequent_mask(*s)?.squeeze(0),
            },
            Mistake {
                sentence: "The mask is float32: a mask is u8, 0s and 1s (`.to_dtype(DType::U8)`), as the lecture's.",
                answer: |s| subsequent_mask(*s)?.to_dtype(DType::F32),
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(size) -> (1, size, size)`, u8, 1 on and below the diagonal.
    pub fn check(&self, f: impl Fn(usize) -> Result<Tensor>) -> Outcome {
        Self::run(|s| f(*s))
    }
}

exercise! {
    /// The shifted target: the decoder's inputs in training.
    q3: Q3 = Info {
        id: "03.q3",
        title: "the shifted target",
        lecture: "000#71",
        hints: &[
            "The decoder predicts target point k from the points before it: its inputs are the target moved one step later, the source's last point in front.",
            "Two pieces joined along the steps: `source_seq[:, -1:]`, one point, then `target_seq[:, :-1]`, the target without its last point.",
            "`Tensor::cat(&[source_seq.i((.., input_len - 1..))?, target_seq.i((.., ..target_len - 1))?], 1)`.",
        ],
        solution: solution!(self_attention::make_shifted_target),
    }
}

impl Exercise for Q3 {
    type Input = (Tensor, usize);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("a batch of 3 (3, 6, 3), input_len 2", (randn(34, &[3, 6, 3])?, 2)),
            Case::new("a batch of one (1, 8, 2), input_len 3", (randn(35, &[1, 8, 2])?, 3)),
            Case::new("a target of one point (2, 5, 2), input_len 4", (randn(36, &[2, 5, 2])?, 4)),
        ])
    }

    fn reference((x, n): &Self::Input) -> Result<Tensor> {
        shifted_target(x, *n)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "That is the target itself, not shifted: the decoder would be given the very points it must predict.",
                answer: |(x, n)| x.i((.., *n..)),
            },
            Mistake {
                sentence: "The shift goes the wrong way: the target's first point is dropped. Drop its last point instead, and put the source's last point in front.",
                answer: |(x, n)| x.i((.., *n + 1..)),
            },
            Mistake {
                sentence: "The shifted target starts with the source's first point: it starts with its last, `source_seq[:, -1:]`, the point just before the target.",
                answer: |(x, n)| Tensor::cat(&[x.i((.., ..1))?, x.i((.., *n..x.dim(1)? - 1))?], 1),
            },
            Mistake {
                sentence: "The source's last point is missing in front: the shifted target is that point, then the target without its last point, as long as the target.",
                answer: |(x, n)| x.i((.., *n..x.dim(1)? - 1)),
            },
            Mistake {
                sentence: "The source's last point is at the end: it goes in front, `Tensor::cat(&[source_last, target_but_last], 1)`, so that input k is the point before target k.",
                answer: |(x, n)| Tensor::cat(&[x.i((.., *n..x.dim(1)? - 1))?, x.i((.., *n - 1..*n))?], 1),
            },
            Mistake {
                sentence: "The shifted target starts one point too early: it starts at the source's last point, index input_len - 1, and is as long as the target.",
                answer: |(x, n)| x.narrow(1, *n - 2, x.dim(1)? - *n),
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(full_seq (N, L, F), input_len) -> (N, L - input_len, F)`.
    pub fn check(&self, f: impl Fn(&Tensor, usize) -> Result<Tensor>) -> Outcome {
        Self::run(|(x, n)| f(x, *n))
    }
}
