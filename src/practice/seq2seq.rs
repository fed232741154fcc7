//! Part 1, sequence-to-sequence (notebooks/exercises/01_seq2seq.ipynb): the source and target,
//! the encoder's loop over steps, the decoder's first hidden state and one step, the
//! encoder-decoder's loop with and without teacher forcing, the loss, and an encoder of your own.

use super::answer::Tolerance;
use super::cases::{Case, randn, seeded};
use super::progress::Progress;
use super::run::{Mistake, Outcome, check};
use super::{Info, exercise};
use crate::models::{Decoder, Encoder, EncoderDecoder};
use crate::nn::{Gru, Linear, Walk};
use crate::train::{Loss, MSELoss};
use candle_core::{IndexOp, Result, Tensor};

const SOLUTIONS: &str = "src/practice/solutions/seq2seq.rs";

/// A batch and where its source ends.
type Split = (Tensor, usize);
/// Two tensors returned together.
type Pair = (Tensor, Tensor);
/// A seed, `n_features`, `hidden_dim` and a batch: a module built under the seed, then run.
type Built = (u64, usize, usize, Tensor);

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
        solution: (SOLUTIONS, &["fn split_sequence"]),
    }
}

impl Q1 {
    /// Checks `f(full, input_len) -> (source, target)`.
    pub fn check(&self, f: impl Fn(&Tensor, usize) -> Result<(Tensor, Tensor)>) -> Outcome {
        let cases = || -> Result<Vec<Case<Split>>> {
            Ok(vec![
                Case::new("random points in the lecture's shape, a batch of 3 (3, 4, 2), input_len 2", (randn(1, &[3, 4, 2])?, 2)),
                Case::new("a batch of one (1, 6, 2), input_len 3", (randn(2, &[1, 6, 2])?, 3)),
                Case::new("(5, 5, 3), input_len 1", (randn(3, &[5, 5, 3])?, 1)),
            ])
        };
        let mistakes: &[Mistake<Split, Pair>] = &[
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
        ];
        check(&Self::INFO, cases(), |(x, n)| Ok((x.i((.., ..*n))?, x.i((.., *n..))?)), mistakes, Tolerance::F32, |(x, n)| f(x, *n))
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
        solution: (SOLUTIONS, &["fn encode_steps"]),
    }
}

impl Q2 {
    /// Checks `f(gru, x) -> (every step's output (N, L, H), last hidden state (1, N, H))` against
    /// the GRU run over the whole sequence at once.
    pub fn check(&self, f: impl Fn(&Gru, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        let gru = |seed, n_features, hidden| seeded(seed, || Gru::new(n_features, hidden));
        let cases = || -> Result<Vec<Case<(Gru, Tensor)>>> {
            Ok(vec![
                Case::new(
                    "the lecture's sizes: 2 features, 2 hidden units, a batch of 3 random two-point sources (3, 2, 2), seed 21",
                    (gru(21, 2, 2)?, randn(4, &[3, 2, 2])?),
                ),
                Case::new("one step, a batch of one (1, 1, 2), 5 hidden units, seed 3", (gru(3, 2, 5)?, randn(5, &[1, 1, 2])?)),
                Case::new("a longer sequence (4, 9, 3), 6 hidden units, seed 7", (gru(7, 3, 6)?, randn(6, &[4, 9, 3])?)),
            ])
        };
        let mistakes: &[Mistake<(Gru, Tensor), Pair>] = &[
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
        ];
        check(&Self::INFO, cases(), |(g, x)| g.forward(x, None), mistakes, Tolerance::F32, |(g, x)| f(g, x))
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
        solution: (SOLUTIONS, &["fn init_hidden"]),
    }
}

impl Q3 {
    /// Checks `f(hidden_seq (N, L, H)) -> (1, N, H)`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        let cases = || -> Result<Vec<Case<Tensor>>> {
            Ok(vec![
                Case::new("the lecture's shape (1, 2, 2)", randn(8, &[1, 2, 2])?),
                Case::new("a batch of 3 (3, 2, 2)", randn(9, &[3, 2, 2])?),
                Case::new("a batch of 4, 7 steps, 5 hidden units (4, 7, 5)", randn(10, &[4, 7, 5])?),
            ])
        };
        let reference = |h: &Tensor| h.i((.., h.dim(1)? - 1..))?.permute((1, 0, 2));
        let mistakes: &[Mistake<Tensor, Tensor>] = &[
            Mistake {
                sentence: "That is the encoder's first step: the decoder starts from its last, `hidden_seq[:, -1:]`.",
                answer: |h| h.i((.., ..1))?.permute((1, 0, 2)),
            },
            Mistake {
                sentence: "The state is still batch-first, (N, 1, H): permute it to sequence-first, (1, N, H).",
                answer: |h| h.i((.., h.dim(1)? - 1..)),
            },
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |h| f(h))
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
        solution: (SOLUTIONS, &["fn decoder_step"]),
    }
}

impl Q4 {
    /// Checks `f(gru, regression, hidden (1, N, H), x (N, 1, F)) -> (prediction (N, 1, F), hidden (1, N, H))`.
    pub fn check(&self, f: impl Fn(&Gru, &Linear, &Tensor, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        let case = |seed, n: usize, features: usize, hidden: usize| -> Result<StepCase> {
            let (gru, regression) = seeded(seed, || Ok((Gru::new(features, hidden)?, Linear::new(hidden, features)?)))?;
            Ok((gru, regression, randn(seed + 100, &[1, n, hidden])?, randn(seed + 200, &[n, 1, features])?))
        };
        let cases = || -> Result<Vec<Case<StepCase>>> {
            Ok(vec![
                Case::new("2 features, 3 hidden units, a batch of 2, seed 21", case(21, 2, 2, 3)?),
                Case::new("a batch of one, 4 features, 6 hidden units, seed 5", case(5, 1, 4, 6)?),
            ])
        };
        let reference = |(g, r, h, x): &StepCase| {
            let (o, h) = g.forward(x, Some(h))?;
            Ok((r.forward(&o)?, h))
        };
        let mistakes: &[Mistake<StepCase, (Tensor, Tensor)>] = &[
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
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(g, r, h, x)| f(g, r, h, x))
    }
}

/// An encoder and a decoder under one seed, a batch, the lengths and the teacher-forcing flag.
type LoopCase = (Encoder, Decoder, Tensor, usize, usize, bool);

exercise! {
    /// The encoder-decoder's loop over the target's steps, in training and at prediction.
    q5: Q5 = Info {
        id: "01.q5",
        title: "the encoder-decoder's loop (teacher forcing on and off)",
        lecture: "000#16",
        hints: &[
            "Encode the source, `init_hidden` the decoder with the encoder's states, and start the decoder from the source's last point.",
            "Each step's prediction is kept; the next input is the true target point (teacher forcing) or that prediction.",
            "`dec_inputs = if teacher_forcing { target_seq.i((.., i..i + 1))? } else { out }`; at prediction time the flag is false.",
        ],
        solution: (SOLUTIONS, &["fn encoder_decoder_forward"]),
    }
}

impl Q5 {
    /// Checks `f(encoder, decoder, x, input_len, target_len, teacher_forcing) -> (N, target_len, F)`
    /// against the crate's `EncoderDecoder` in training (teacher forcing probability 1) and in
    /// evaluation.
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&mut Encoder, &mut Decoder, &Tensor, usize, usize, bool) -> Result<Tensor>) -> Outcome {
        let case = |seed, n: usize, input_len: usize, target_len: usize, forcing: bool| -> Result<LoopCase> {
            let (enc, dec) = seeded(seed, || Ok((Encoder::new(2, 3)?, Decoder::new(2, 3)?)))?;
            Ok((enc, dec, randn(seed + 1, &[n, input_len + target_len, 2])?, input_len, target_len, forcing))
        };
        let cases = || -> Result<Vec<Case<LoopCase>>> {
            Ok(vec![
                Case::new(
                    "at prediction (no teacher forcing), a batch of 2 random sequences, 2 + 2 points, seed 21",
                    case(21, 2, 2, 2, false)?,
                ),
                Case::new("in training with teacher forcing, a batch of 2, 2 + 2 points, seed 21", case(21, 2, 2, 2, true)?),
                Case::new("at prediction, a batch of one, 3 + 5 points, seed 4", case(4, 1, 3, 5, false)?),
                Case::new("with teacher forcing, a batch of 3, 1 + 4 points, seed 9", case(9, 3, 1, 4, true)?),
            ])
        };
        let reference = |(e, d, x, i, t, forcing): &LoopCase| {
            let mut model = EncoderDecoder::new(e.clone(), d.clone(), *i, *t, 1.0)?;
            if !forcing {
                model.eval();
            }
            model.forward(x)
        };
        let mistakes: &[Mistake<LoopCase, Tensor>] = &[
            Mistake {
                sentence: "Teacher forcing is on at prediction: without teacher forcing each step must get the previous prediction, never the true point.",
                answer: |(e, d, x, i, t, _)| {
                    let mut model = EncoderDecoder::new(e.clone(), d.clone(), *i, *t, 1.0)?;
                    model.forward(x)
                },
            },
            Mistake {
                sentence: "The decoder's first input is the source's last point, `source_seq[:, -1:]`, not its first.",
                answer: |(e, d, x, i, t, forcing)| {
                    let (mut e, mut d) = (e.clone(), d.clone());
                    d.init_hidden(&e.forward(&x.i((.., ..*i))?)?)?;
                    let mut input = x.i((.., ..1))?;
                    let mut outs = vec![];
                    for k in 0..*t {
                        let out = d.forward(&input)?;
                        outs.push(out.clone());
                        input = if *forcing { x.i((.., i + k..i + k + 1))? } else { out };
                    }
                    Tensor::cat(&outs, 1)
                },
            },
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(e, d, x, i, t, forcing)| {
            f(&mut e.clone(), &mut d.clone(), x, *i, *t, *forcing)
        })
    }
}

exercise! {
    /// The mean squared error, the lecture's loss.
    q6: Q6 = Info {
        id: "01.q6",
        title: "the mean squared error",
        lecture: "000#23",
        hints: &[
            "The loss is one number: the average, over every point and feature, of the squared difference.",
            "`(prediction - target)?` is a tensor of differences; `sqr()` then `mean_all()`.",
        ],
        solution: (SOLUTIONS, &["fn mse_loss"]),
    }
}

impl Q6 {
    /// Checks `f(prediction, target) -> scalar`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        let cases = || -> Result<Vec<Case<(Tensor, Tensor)>>> {
            Ok(vec![
                Case::new("a batch of 16 targets (16, 2, 2)", (randn(11, &[16, 2, 2])?, randn(12, &[16, 2, 2])?)),
                Case::new("one point (1, 1, 2)", (randn(13, &[1, 1, 2])?, randn(14, &[1, 1, 2])?)),
            ])
        };
        let mistakes: &[Mistake<(Tensor, Tensor), Tensor>] = &[
            Mistake {
                sentence: "That is the sum of the squares: MSELoss averages them (`mean_all`).",
                answer: |(p, t)| (p - t)?.sqr()?.sum_all(),
            },
            Mistake {
                sentence: "The differences are not squared: that is the mean absolute error (L1), not the mean squared error.",
                answer: |(p, t)| (p - t)?.abs()?.mean_all(),
            },
            Mistake {
                sentence: "The square root makes it the root mean squared error: MSELoss stops before it.",
                answer: |(p, t)| (p - t)?.sqr()?.mean_all()?.sqrt(),
            },
        ];
        check(&Self::INFO, cases(), |(p, t)| MSELoss.loss(p, t), mistakes, Tolerance::F32, |(p, t)| f(p, t))
    }
}

exercise! {
    /// The lecture's `Encoder` as a struct of your own, built under the seed.
    q7: Q7 = Info {
        id: "01.q7",
        title: "an Encoder of your own, same seed, same weights",
        lecture: "000#7",
        hints: &[
            "The struct keeps a `Gru::new(n_features, hidden_dim)`; creating it draws its weights from the default generator, as PyTorch's does.",
            "Create nothing else before the GRU: the check seeds the generator, calls your `new`, and compares with the lecture's Encoder made under the same seed.",
            "`forward` returns the GRU's output for every step, (N, L, H): `self.basic_rnn.forward(x, None)?.0`.",
        ],
        solution: (SOLUTIONS, &["struct MyEncoder", "impl MyEncoder: new, forward"]),
    }
}

impl Q7 {
    /// Checks an encoder of your own: `new(n_features, hidden_dim)` builds it (the check seeds the
    /// generator first) and `forward(&mut model, x)` gives every step's hidden state, (N, L, H).
    pub fn check<M>(&self, new: impl Fn(usize, usize) -> Result<M>, forward: impl Fn(&mut M, &Tensor) -> Result<Tensor>) -> Outcome {
        let cases = || -> Result<Vec<Case<Built>>> {
            Ok(vec![
                Case::new("the lecture's Encoder(2, 2) under seed 21, its source (1, 2, 2)", (21, 2, 2, randn(15, &[1, 2, 2])?)),
                Case::new("Encoder(3, 5) under seed 42, a batch of 4, 6 steps", (42, 3, 5, randn(16, &[4, 6, 3])?)),
            ])
        };
        let reference = |(seed, n, h, x): &Built| seeded(*seed, || Encoder::new(*n, *h))?.forward(x);
        let mistakes: &[Mistake<Built, Tensor>] = &[
            Mistake {
                sentence: "That is the final hidden state, (1, N, H): forward returns the GRU's output at every step, (N, L, H).",
                answer: |(seed, n, h, x)| seeded(*seed, || Gru::new(*n, *h))?.forward(x, None).map(|o| o.1),
            },
            Mistake {
                sentence: "The weights are not the lecture's: something drew from the generator before the GRU (another layer, or a call to randn). Create the GRU first.",
                answer: |(seed, n, h, x)| {
                    seeded(*seed, || {
                        Linear::new(*n, *h)?;
                        Gru::new(*n, *h)
                    })?
                    .forward(x, None)
                    .map(|o| o.0)
                },
            },
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(seed, n, h, x)| {
            seeded(*seed, || new(*n, *h)).and_then(|mut m| forward(&mut m, x))
        })
    }
}
