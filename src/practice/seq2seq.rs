//! Part 1, sequence-to-sequence (notebooks/exercises/01_seq2seq.ipynb): the source and target,
//! the encoder's loop over steps, the decoder's first hidden state and one step, the
//! encoder-decoder's loop with and without teacher forcing, the loss, and an encoder of your own.

use super::cases::{Case, randn, seeded};
use super::declaration::Exercise;
use super::progress::Progress;
use super::run::{Mistake, Outcome};
use super::{Info, exercise, solution};
use crate::nn::{Gru, Linear};
use candle_core::{IndexOp, Result, Tensor};

mod loops;

pub use loops::*;

/// A batch and where its source ends.
type Split = (Tensor, usize);
/// Two tensors returned together.
type Pair = (Tensor, Tensor);

/// Every exercise of part 1, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO];

/// The table of part 1's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("01")
}

exercise! {
    /// The source and the target of a sequence: its first `input_len` points, then the rest.
    q1: Q1 = Info {
        id: "01.q1",
        title: "split a sequence into source and target",
        lecture: "000#8",
        hints: &[
            "Both halves keep every sequence of the batch and every feature: only the steps (dimension 1) are cut.",
            "`full.i((.., ..input_len))` is PyTorch's `full[:, :input_len]`.",
            "The source is `full.i((.., ..input_len))?` and the target `full.i((.., input_len..))?`.",
        ],
        solution: solution!(seq2seq::split_sequence),
    }
}

impl Exercise for Q1 {
    type Input = Split;
    type Answer = Pair;

    fn cases() -> Result<Vec<Case<Split>>> {
        Ok(vec![
            Case::new("random points in the lecture's shape, a batch of 3 (3, 4, 2), input_len 2", (randn(1, &[3, 4, 2])?, 2)),
            Case::new("a batch of one (1, 6, 2), input_len 3", (randn(2, &[1, 6, 2])?, 3)),
            Case::new("(5, 5, 3), input_len 1", (randn(3, &[5, 5, 3])?, 1)),
        ])
    }

    fn reference((x, n): &Split) -> Result<Pair> {
        Ok((x.i((.., ..*n))?, x.i((.., *n..))?))
    }

    fn mistakes() -> Vec<Mistake<Split, Pair>> {
        vec![
            Mistake {
                sentence: "Source and target are swapped: the source is the first input_len points, the target what follows.",
                answer: |(x, n)| Ok((x.i((.., *n..))?, x.i((.., ..*n))?)),
            },
            Mistake {
                sentence: "The cut is on the wrong dimension: dimension 0 is the batch, the points of a sequence run along dimension 1.",
                answer: |(x, n)| Ok((x.i(..*n)?, x.i(*n..)?)),
            },
            Mistake {
                sentence: "The target starts one point early: it begins at index input_len, right after the source's last point.",
                answer: |(x, n)| Ok((x.i((.., ..*n))?, x.i((.., *n - 1..))?)),
            },
            Mistake {
                sentence: "The target skips a point: it begins at index input_len, right after the source's last point, not one later.",
                answer: |(x, n)| Ok((x.i((.., ..*n))?, x.i((.., *n + 1..))?)),
            },
            Mistake {
                sentence: "The source has one point too many: `..=input_len` includes index input_len; the source is the first input_len points, `..input_len`.",
                answer: |(x, n)| Ok((x.i((.., ..=*n))?, x.i((.., *n..))?)),
            },
            Mistake {
                sentence: "The target is cut as long as the source: it is every point after the source, `full[:, input_len:]`, however many there are.",
                answer: |(x, n)| Ok((x.i((.., ..*n))?, x.i((.., *n..2 * *n))?)),
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(full, input_len) -> (source, target)`.
    pub fn check(&self, f: impl Fn(&Tensor, usize) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|(x, n)| f(x, *n))
    }
}

exercise! {
    /// The encoder's GRU run one step at a time, carrying the hidden state.
    q2: Q2 = Info {
        id: "01.q2",
        title: "run the encoder's GRU one step at a time",
        lecture: "000#7",
        hints: &[
            "Take the steps `x.i((.., t..t + 1))?` one by one; each call of the GRU returns the step's output and the new hidden state.",
            "The second argument of `gru.forward` is the hidden state to start from: `None` for the first step, then the one the previous step returned.",
            "Collect the outputs in a Vec and `Tensor::cat(&outputs, 1)`; return it with the last hidden state, which is (1, N, H).",
        ],
        solution: solution!(seq2seq::encode_steps),
    }
}

impl Exercise for Q2 {
    type Input = (Gru, Tensor);
    type Answer = Pair;

    fn cases() -> Result<Vec<Case<(Gru, Tensor)>>> {
        let gru = |seed, n_features, hidden| seeded(seed, || Gru::new(n_features, hidden));
        Ok(vec![
            Case::new(
                "the lecture's sizes: 2 features, 2 hidden units, a batch of 3 random two-point sources (3, 2, 2), seed 21",
                (gru(21, 2, 2)?, randn(4, &[3, 2, 2])?),
            ),
            Case::new("one step, a batch of one (1, 1, 2), 5 hidden units, seed 3", (gru(3, 2, 5)?, randn(5, &[1, 1, 2])?)),
            Case::new("a longer sequence (4, 7, 3), 6 hidden units, seed 7", (gru(7, 3, 6)?, randn(6, &[4, 7, 3])?)),
        ])
    }

    fn reference((g, x): &(Gru, Tensor)) -> Result<Pair> {
        g.forward(x, None)
    }

    fn mistakes() -> Vec<Mistake<(Gru, Tensor), Pair>> {
        vec![
            Mistake {
                sentence: "Every step starts from a zero hidden state: pass the hidden state the previous step returned to the next call.",
                answer: |(g, x)| {
                    let mut outs = vec![];
                    let mut last = None;
                    for t in 0..x.dim(1)? {
                        let (o, h) = g.forward(&x.i((.., t..t + 1))?, None)?;
                        outs.push(o);
                        last = Some(h);
                    }
                    let last = last.ok_or_else(|| candle_core::Error::Msg("a sequence without steps".into()))?;
                    Ok((Tensor::cat(&outs, 1)?, last))
                },
            },
            Mistake {
                sentence: "The hidden state is sequence-first, (1, N, H), as PyTorch's GRU returns it; yours has lost its first dimension.",
                answer: |(g, x)| {
                    let (o, h) = g.forward(x, None)?;
                    Ok((o, h.squeeze(0)?))
                },
            },
            Mistake {
                sentence: "The steps' outputs are joined along dimension 0, the batch: join them along the steps, `Tensor::cat(&outputs, 1)`, (N, L, H).",
                answer: |(g, x)| {
                    let (o, h) = g.forward(x, None)?;
                    let steps = (0..o.dim(1)?).map(|t| o.i((.., t..t + 1))).collect::<Result<Vec<_>>>()?;
                    Ok((Tensor::cat(&steps, 0)?, h))
                },
            },
            Mistake {
                sentence: "Only the last step's output is returned: the first value is every step's output, joined along the steps, (N, L, H).",
                answer: |(g, x)| {
                    let (o, h) = g.forward(x, None)?;
                    Ok((o.i((.., o.dim(1)? - 1..))?, h))
                },
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(gru, x) -> (every step's output (N, L, H), last hidden state (1, N, H))` against
    /// the GRU run over the whole sequence at once.
    pub fn check(&self, f: impl Fn(&Gru, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|(g, x)| f(g, x))
    }
}

exercise! {
    /// The decoder's first hidden state: the encoder's last, made sequence-first.
    q3: Q3 = Info {
        id: "01.q3",
        title: "the decoder's first hidden state (init_hidden)",
        lecture: "000#11",
        hints: &[
            "Only the encoder's last step matters: `hidden_seq[:, -1:]`, which keeps the step dimension, (N, 1, H).",
            "The GRU wants its hidden state sequence-first, (1, N, H): swap the first two dimensions.",
            "`hidden_seq.i((.., l - 1..))?.permute((1, 0, 2))` with `l = hidden_seq.dim(1)?`.",
        ],
        solution: solution!(seq2seq::init_hidden),
    }
}

impl Exercise for Q3 {
    type Input = Tensor;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Tensor>>> {
        Ok(vec![
            Case::new("the lecture's shape (1, 2, 2)", randn(8, &[1, 2, 2])?),
            Case::new("a batch of 3 (3, 2, 2)", randn(9, &[3, 2, 2])?),
            Case::new("a batch of 4, 7 steps, 5 hidden units (4, 7, 5)", randn(10, &[4, 7, 5])?),
        ])
    }

    fn reference(h: &Tensor) -> Result<Tensor> {
        h.i((.., h.dim(1)? - 1..))?.permute((1, 0, 2))
    }

    fn mistakes() -> Vec<Mistake<Tensor, Tensor>> {
        vec![
            Mistake {
                sentence: "That is the encoder's first step: the decoder starts from its last, `hidden_seq[:, -1:]`.",
                answer: |h| h.i((.., ..1))?.permute((1, 0, 2)),
            },
            Mistake {
                sentence: "The state is still batch-first, (N, 1, H): permute it to sequence-first, (1, N, H).",
                answer: |h| h.i((.., h.dim(1)? - 1..)),
            },
            Mistake {
                sentence: "That is the batch's last sequence, cut along dimension 0: the last step is cut along dimension 1, `hidden_seq[:, -1:]`.",
                answer: |h| h.i(h.dim(0)? - 1..)?.permute((1, 0, 2)),
            },
            Mistake {
                sentence: "The steps are averaged: the decoder starts from the encoder's last step alone, `hidden_seq[:, -1:]`.",
                answer: |h| h.mean_keepdim(1)?.permute((1, 0, 2)),
            },
            Mistake {
                sentence: "The wrong pair of dimensions is swapped: (N, 1, H) becomes (1, N, H) by swapping the first two, `permute((1, 0, 2))`.",
                answer: |h| h.i((.., h.dim(1)? - 1..))?.transpose(0, 2),
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(hidden_seq (N, L, H)) -> (1, N, H)`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|h| f(h))
    }
}

/// A decoder's GRU and regression layer under one seed, with a hidden state and an input step.
type StepCase = (Gru, Linear, Tensor, Tensor);

exercise! {
    /// One step of the decoder: the GRU from the hidden state, then the regression layer.
    q4: Q4 = Info {
        id: "01.q4",
        title: "one step of the decoder",
        lecture: "000#11",
        hints: &[
            "Call the GRU on the step with the hidden state you were given; it returns the output and the new hidden state.",
            "The prediction is the regression layer applied to the GRU's last output, `batch_first_output[:, -1:]`, which is (N, 1, H).",
            "Return `(regression.forward(&last_output)?, new_hidden)`: the next step starts from the new hidden state.",
        ],
        solution: solution!(seq2seq::decoder_step),
    }
}

impl Exercise for Q4 {
    type Input = StepCase;
    type Answer = Pair;

    fn cases() -> Result<Vec<Case<StepCase>>> {
        let case = |seed, n: usize, features: usize, hidden: usize| -> Result<StepCase> {
            let (gru, regression) = seeded(seed, || Ok((Gru::new(features, hidden)?, Linear::new(hidden, features)?)))?;
            Ok((gru, regression, randn(seed + 100, &[1, n, hidden])?, randn(seed + 200, &[n, 1, features])?))
        };
        Ok(vec![
            Case::new("2 features, 3 hidden units, a batch of 2, seed 21", case(21, 2, 2, 3)?),
            Case::new("a batch of one, 4 features, 6 hidden units, seed 5", case(5, 1, 4, 6)?),
            Case::new("a batch of 3, 3 features, 5 hidden units, seed 8", case(8, 3, 3, 5)?),
        ])
    }

    fn reference((g, r, h, x): &StepCase) -> Result<Pair> {
        let (o, h) = g.forward(x, Some(h))?;
        Ok((r.forward(&o)?, h))
    }

    fn mistakes() -> Vec<Mistake<StepCase, (Tensor, Tensor)>> {
        vec![
            Mistake {
                sentence: "The hidden state you return is the one you were given: return the GRU's new hidden state, the next step starts from it.",
                answer: |(g, r, h, x)| Ok((r.forward(&g.forward(x, Some(h))?.0)?, h.clone())),
            },
            Mistake {
                sentence: "The GRU's output is not the prediction: it goes through the regression layer, from H hidden units back to the features.",
                answer: |(g, _, h, x)| g.forward(x, Some(h)),
            },
            Mistake {
                sentence: "The GRU started from zeros: pass it the hidden state, `gru.forward(x, Some(hidden))`.",
                answer: |(g, r, _, x)| {
                    let (o, h) = g.forward(x, None)?;
                    Ok((r.forward(&o)?, h))
                },
            },
            Mistake {
                sentence: "The prediction comes from the hidden state you were given: it comes from the GRU's output for this step, after the GRU has read x.",
                answer: |(g, r, h, x)| Ok((r.forward(&h.permute((1, 0, 2))?)?, g.forward(x, Some(h))?.1)),
            },
            Mistake {
                sentence: "The two values are in the other order: return the prediction first, then the new hidden state.",
                answer: |(g, r, h, x)| {
                    let (o, h) = g.forward(x, Some(h))?;
                    Ok((h, r.forward(&o)?))
                },
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(gru, regression, hidden (1, N, H), x (N, 1, F)) -> (prediction (N, 1, F), hidden (1, N, H))`.
    pub fn check(&self, f: impl Fn(&Gru, &Linear, &Tensor, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|(g, r, h, x)| f(g, r, h, x))
    }
}
