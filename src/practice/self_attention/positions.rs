//! q4 and q5: the positional-encoding table and the lecture's `PositionalEncoding`.

use crate::attention::{PositionalEncoding, positional_encoding_table};
use crate::practice::cases::{Case, randn};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{DType, Device, IndexOp, Result, Tensor};

/// A sinusoidal table `(max_len, d_model)` made another way: positions from `first`, the angular
/// speed of pair `k` `exp(-k * step * ln(10000) / d_model)` (the lecture's `step` is 2), sin then
/// cos in each pair (or cos then sin when `swapped`). Float32, as the crate computes it.
fn table_with(max_len: usize, d_model: usize, first: u32, step: f64, swapped: bool) -> Result<Tensor> {
    let position = Tensor::arange(first, first + max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
    let pairs = Tensor::arange(0u32, d_model.div_ceil(2) as u32, &Device::Cpu)?.to_dtype(DType::F32)?;
    let speed = (pairs * (-step * (10000f64).ln() / d_model as f64))?.exp()?;
    let angles = position.broadcast_mul(&speed.unsqueeze(0)?)?;
    let (even, odd) = if swapped { (angles.cos()?, angles.sin()?) } else { (angles.sin()?, angles.cos()?) };
    Tensor::stack(&[even, odd], 2)?.flatten_from(1)?.narrow(1, 0, d_model)
}

/// A `(max_len, d_model)` float32 table entry by entry: `value(pos, column, d_model)`.
fn by_entry(max_len: usize, d_model: usize, value: fn(f32, usize, f32) -> f32) -> Result<Tensor> {
    let data: Vec<f32> = (0..max_len * d_model).map(|k| value((k / d_model) as f32, k % d_model, d_model as f32)).collect();
    Tensor::from_vec(data, (max_len, d_model), &Device::Cpu)
}

exercise! {
    /// The sinusoidal positional-encoding table.
    q4: Q4 = Info {
        id: "03.q4",
        title: "the positional-encoding table",
        lecture: "000#88",
        hints: &[
            "Row pos, columns 2i and 2i + 1: sin and cos of the same angle, pos / 10000^(2i / d_model). Positions start at 0, so row 0 is 0, 1, 0, 1, ...",
            "Make the positions (max_len, 1) and the angular speeds (1, d_model / 2), `exp(2i * (-ln(10000) / d_model))` with `Tensor::arange_step(0u32, d_model as u32, 2, &Device::Cpu)?.to_dtype(DType::F32)?` for 2i; their product is every angle.",
            "Interleave the two halves: `Tensor::stack(&[angles.sin()?, angles.cos()?], 2)?.flatten_from(1)`, which is the lecture's `pe[:, 0::2] = sin`, `pe[:, 1::2] = cos`.",
        ],
        solution: solution!(self_attention::encoding_table),
    }
}

impl Exercise for Q4 {
    type Input = (usize, usize);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("max_len 6, d_model 4", (6, 4)),
            Case::new("one position, max_len 1, d_model 2", (1, 2)),
            Case::new("max_len 16, d_model 12", (16, 12)),
        ])
    }

    fn reference((m, d): &Self::Input) -> Result<Tensor> {
        positional_encoding_table(*m, *d)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The positions start at 1: they start at 0, so the first row is 0, 1, 0, 1, ... (sin 0 and cos 0).",
                answer: |(m, d)| table_with(*m, *d, 1, 2.0, false),
            },
            Mistake {
                sentence: "sin and cos are swapped: sin goes in the even columns (0, 2, ...) and cos in the odd ones.",
                answer: |(m, d)| table_with(*m, *d, 0, 2.0, true),
            },
            Mistake {
                sentence: "The exponent uses i instead of 2i: the angle of columns 2i and 2i + 1 is pos / 10000^(2i / d_model), so the speeds fall faster than yours.",
                answer: |(m, d)| table_with(*m, *d, 0, 1.0, false),
            },
            Mistake {
                sentence: "Each column turns at its own speed: the two columns of a pair, 2i and 2i + 1, share one angle, pos / 10000^(2i / d_model).",
                answer: |(m, d)| {
                    by_entry(*m, *d, |p, j, d| {
                        let a = p / 10000f32.powf(j as f32 / d);
                        if j % 2 == 0 { a.sin() } else { a.cos() }
                    })
                },
            },
            Mistake {
                sentence: "The sines fill the first half of the columns and the cosines the second: they alternate, sin in the even columns and cos in the odd ones.",
                answer: |(m, d)| {
                    by_entry(*m, *d, |p, j, d| {
                        let k = j % (d as usize / 2);
                        let a = p / 10000f32.powf(2.0 * k as f32 / d);
                        if j < d as usize / 2 { a.sin() } else { a.cos() }
                    })
                },
            },
            Mistake {
                sentence: "The table is float64: the lecture's is float32, as the inputs it is added to (`.to_dtype(DType::F32)`).",
                answer: |(m, d)| positional_encoding_table(*m, *d)?.to_dtype(DType::F64),
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(max_len, d_model) -> (max_len, d_model)` for an even `d_model`.
    pub fn check(&self, f: impl Fn(usize, usize) -> Result<Tensor>) -> Outcome {
        Self::run(|(m, d)| f(*m, *d))
    }
}

/// Rows `from..from + l` of the table, `(1, l, d_model)`.
fn rows(max_len: usize, d_model: usize, from: usize, l: usize) -> Result<Tensor> {
    positional_encoding_table(max_len, d_model)?.unsqueeze(0)?.i((.., from..from + l))
}

/// `max_len`, `d_model` and an input `(N, L, d_model)`.
type PeCase = (usize, usize, Tensor);

exercise! {
    /// The lecture's `PositionalEncoding` as a struct of your own.
    q5: Q5 = Info {
        id: "03.q5",
        title: "a PositionalEncoding of your own",
        lecture: "000#92",
        hints: &[
            "`new` keeps the table as (1, max_len, d_model); `positional_encoding_table` (or your q4) makes it, and `unsqueeze(0)` adds the batch dimension.",
            "`forward` scales the input by sqrt(d_model) first, then adds the encoding of the input's L positions only: `pe[:, :L]`.",
            "`(x * (self.d_model as f64).sqrt())?.broadcast_add(&self.pe.i((.., ..l))?)` with `l = x.dim(1)?`.",
        ],
        solution: solution!(self_attention::MyPositionalEncoding: new, forward),
    }
}

impl Exercise for Q5 {
    type Input = PeCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("max_len 9, d_model 4, a batch of 2 of 5 steps (2, 5, 4)", (9, 4, randn(41, &[2, 5, 4])?)),
            Case::new("max_len 3, d_model 6, as many steps as max_len (1, 3, 6)", (3, 6, randn(42, &[1, 3, 6])?)),
            Case::new("max_len 12, d_model 2, one step (3, 1, 2)", (12, 2, randn(43, &[3, 1, 2])?)),
        ])
    }

    fn reference((m, d, x): &Self::Input) -> Result<Tensor> {
        PositionalEncoding::new(*m, *d)?.forward(x)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The input is not scaled: the lecture multiplies x by sqrt(d_model) before adding the encoding.",
                answer: |(m, d, x)| x.broadcast_add(&rows(*m, *d, 0, x.dim(1)?)?),
            },
            Mistake {
                sentence: "The encoding is taken from the end of the table: the input's L positions are the first L rows, `pe[:, :L]`.",
                answer: |(m, d, x)| (x * (*d as f64).sqrt())?.broadcast_add(&rows(*m, *d, m - x.dim(1)?, x.dim(1)?)?),
            },
            Mistake {
                sentence: "The encoding is scaled too: only x is multiplied by sqrt(d_model), then the table is added as it is.",
                answer: |(m, d, x)| x.broadcast_add(&rows(*m, *d, 0, x.dim(1)?)?)? * (*d as f64).sqrt(),
            },
            Mistake {
                sentence: "x is divided by sqrt(d_model): the lecture multiplies it, so that the inputs are not drowned by the encoding.",
                answer: |(m, d, x)| (x / (*d as f64).sqrt())?.broadcast_add(&rows(*m, *d, 0, x.dim(1)?)?),
            },
            Mistake {
                sentence: "x is multiplied by d_model itself: the scale is its square root, sqrt(d_model).",
                answer: |(m, d, x)| (x * *d as f64)?.broadcast_add(&rows(*m, *d, 0, x.dim(1)?)?),
            },
            Mistake {
                sentence: "The encoding starts at row 1: the first step is position 0, so the rows added are `pe[:, :L]`, from row 0.",
                answer: |(m, d, x)| (x * (*d as f64).sqrt())?.broadcast_add(&rows(*m, *d, 1, x.dim(1)?)?),
            },
        ]
    }
}

impl Q5 {
    /// Checks a positional encoding of your own: `new(max_len, d_model)` builds it and
    /// `forward(&model, x)` encodes `x` `(N, L, d_model)`, `L <= max_len`.
    pub fn check<M>(&self, new: impl Fn(usize, usize) -> Result<M>, forward: impl Fn(&M, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(m, d, x)| new(*m, *d).and_then(|model| forward(&model, x)))
    }
}
