//! q5 to q7: the encoder-decoder's loop, the loss and an encoder of your own.

use crate::models::{Decoder, Encoder, EncoderDecoder};
use crate::nn::{Gru, Linear, Walk};
use crate::practice::answer::{Answer, Tolerance};
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Invariant, Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use crate::repro::with_default;
use crate::train::{Loss, MSELoss};
use candle_core::{IndexOp, Result, Tensor};

/// A seed, `n_features`, `hidden_dim` and a batch: a module built under the seed, then run.
type Built = (u64, usize, usize, Tensor);

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
        solution: solution!(seq2seq::encoder_decoder_forward),
    }
}

impl Exercise for Q5 {
    type Input = LoopCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<LoopCase>>> {
        let case = |seed, n: usize, input_len: usize, target_len: usize, forcing: bool| -> Result<LoopCase> {
            let (enc, dec) = seeded(seed, || Ok((Encoder::new(2, 3)?, Decoder::new(2, 3)?)))?;
            Ok((enc, dec, randn(seed + 1, &[n, input_len + target_len, 2])?, input_len, target_len, forcing))
        };
        Ok(vec![
            Case::new(
                "at prediction (no teacher forcing), a batch of 2 random sequences, 2 + 2 points, seed 21",
                case(21, 2, 2, 2, false)?,
            ),
            Case::new("in training with teacher forcing, a batch of 2, 2 + 2 points, seed 21", case(21, 2, 2, 2, true)?),
            Case::new("at prediction, a batch of one, 3 + 5 points, seed 4", case(4, 1, 3, 5, false)?),
            Case::new("with teacher forcing, a batch of 3, 1 + 4 points, seed 9", case(9, 3, 1, 4, true)?),
        ])
    }

    fn reference((e, d, x, i, t, forcing): &LoopCase) -> Result<Tensor> {
        let mut model = EncoderDecoder::new(e.clone(), d.clone(), *i, *t, 1.0)?;
        if !forcing {
            model.eval();
        }
        model.forward(x)
    }

    fn mistakes() -> Vec<Mistake<LoopCase, Tensor>> {
        vec![
            Mistake {
                sentence: "Teacher forcing is on at prediction: without teacher forcing each step must get the previous prediction, never the true point.",
                answer: |(e, d, x, i, t, _)| {
                    let mut model = EncoderDecoder::new(e.clone(), d.clone(), *i, *t, 1.0)?;
                    model.forward(x)
                },
            },
            Mistake {
                sentence: "The decoder's first input is the source's last point, `source_seq[:, -1:]`, not its first.",
                answer: |c| looped(c, false, |_| 0, |i, k| i + k, None),
            },
            Mistake {
                sentence: "Teacher forcing is never used: with the flag on, the next input is the true target point `target_seq[:, i:i+1]`, not the prediction.",
                answer: |c| looped(c, false, |i| i - 1, |i, k| i + k, Some(false)),
            },
            Mistake {
                sentence: "The decoder starts from the target's first point, which is what it must predict: its first input is the source's last point, `source_seq[:, -1:]`.",
                answer: |c| looped(c, false, |i| i, |i, k| i + k, None),
            },
            Mistake {
                sentence: "With teacher forcing the next input is one point behind: after step i it is the true point that step predicted, `target_seq[:, i:i+1]`, not the one before it.",
                answer: |c| looped(c, false, |i| i - 1, |i, k| i + k - 1, None),
            },
            Mistake {
                sentence: "The encoder read the whole sequence, the target included: encode only the source, `x[:, :input_len]`; the target is what the decoder must predict.",
                answer: |c| looped(c, true, |i| i - 1, |i, k| i + k, None),
            },
        ]
    }

    fn invariants() -> Vec<Invariant<LoopCase>> {
        vec![Invariant {
            sentence: "Your prediction changes when only the target's points change: without teacher forcing the loop must read its own predictions, never the target's points of x.",
            vary: |(e, d, x, i, t, forcing)| {
                let x = if *forcing { x.clone() } else { Tensor::cat(&[x.i((.., ..*i))?, ((x.i((.., *i..))? * -3.0)? + 1.0)?], 1)? };
                Ok((e.clone(), d.clone(), x, *i, *t, *forcing))
            },
        }]
    }
}

impl Q5 {
    /// Checks `f(encoder, decoder, x, input_len, target_len, teacher_forcing) -> (N, target_len, F)`
    /// against the crate's `EncoderDecoder` in training (teacher forcing probability 1) and in
    /// evaluation.
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&mut Encoder, &mut Decoder, &Tensor, usize, usize, bool) -> Result<Tensor>) -> Outcome {
        Self::run(|(e, d, x, i, t, forcing)| f(&mut e.clone(), &mut d.clone(), x, *i, *t, *forcing))
    }
}

/// The loop as a mistake writes it: the encoder given the whole `x` (`whole`) or the source, the
/// first input `x[:, first(input_len)]`, with teacher forcing step `k` fed `x[:, forced(input_len,
/// k)]`, the case's flag or `forcing` when given.
fn looped(
    (e, d, x, i, t, flag): &LoopCase,
    whole: bool,
    first: fn(usize) -> usize,
    forced: fn(usize, usize) -> usize,
    forcing: Option<bool>,
) -> Result<Tensor> {
    let (mut e, mut d) = (e.clone(), d.clone());
    d.init_hidden(&e.forward(&if whole { x.clone() } else { x.i((.., ..*i))? })?)?;
    let mut input = x.i((.., first(*i)..first(*i) + 1))?;
    let mut outs = vec![];
    for k in 0..*t {
        let out = d.forward(&input)?;
        outs.push(out.clone());
        input = if forcing.unwrap_or(*flag) { x.i((.., forced(*i, k)..forced(*i, k) + 1))? } else { out };
    }
    Tensor::cat(&outs, 1)
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
        solution: solution!(seq2seq::mse_loss),
    }
}

impl Exercise for Q6 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<(Tensor, Tensor)>>> {
        Ok(vec![
            Case::new("a batch of 16 targets (16, 2, 2)", (randn(11, &[16, 2, 2])?, randn(12, &[16, 2, 2])?)),
            Case::new("one point (1, 1, 2)", (randn(13, &[1, 1, 2])?, randn(14, &[1, 1, 2])?)),
        ])
    }

    fn reference((p, t): &(Tensor, Tensor)) -> Result<Tensor> {
        MSELoss.loss(p, t)
    }

    fn mistakes() -> Vec<Mistake<(Tensor, Tensor), Tensor>> {
        vec![
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
            Mistake {
                sentence: "The mean runs over the last dimension only, which leaves a tensor: the loss is one number, the mean over every element (`mean_all`).",
                answer: |(p, t)| (p - t)?.sqr()?.mean(candle_core::D::Minus1),
            },
            Mistake {
                sentence: "The sum of the squares is divided by the batch size: MSELoss divides it by the number of elements, every point and feature of every sequence.",
                answer: |(p, t)| (p - t)?.sqr()?.sum_all()? / p.dim(0)? as f64,
            },
        ]
    }
}

impl Q6 {
    /// Checks `f(prediction, target) -> scalar`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(p, t)| f(p, t))
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
        solution: solution!(seq2seq::MyEncoder: new, forward),
    }
}

/// What a module of one's own gave: its output, and whether making it left the default generator
/// elsewhere than making the lecture's `Encoder` does (`drew`: something else drew from it). A
/// mistake's answer with `any_output` stands for every output of a module that drew otherwise.
pub(crate) struct Made {
    out: Tensor,
    drew: bool,
    any_output: bool,
}

impl Made {
    fn of(out: Tensor) -> Made {
        Made { out, drew: false, any_output: false }
    }
}

impl Answer for Made {
    fn tensors(&self) -> Vec<Tensor> {
        vec![self.out.clone()]
    }

    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        if self.any_output || want.any_output {
            return Ok((self.drew != want.drew).then(|| "the generator was drawn from otherwise".to_string()));
        }
        self.out.difference(&want.out, tol)
    }
}

/// What the default generator gives next, after `make` under `seed`: where making a module left it.
fn next_after<M>(seed: u64, make: impl FnOnce() -> Result<M>) -> Result<(M, u64)> {
    seeded(seed, || {
        let m = make()?;
        Ok((m, with_default(|g| g.clone().random_u64())))
    })
}

impl Exercise for Q7 {
    type Input = Built;
    type Answer = Made;

    fn cases() -> Result<Vec<Case<Built>>> {
        Ok(vec![
            Case::new("the lecture's Encoder(2, 2) under seed 21, its source (1, 2, 2)", (21, 2, 2, randn(15, &[1, 2, 2])?)),
            Case::new("Encoder(3, 5) under seed 42, a batch of 4, 6 steps", (42, 3, 5, randn(16, &[4, 6, 3])?)),
            Case::new("Encoder(4, 3) under seed 7, a batch of 3, 5 steps", (7, 4, 3, randn(19, &[3, 5, 4])?)),
        ])
    }

    fn reference((seed, n, h, x): &Built) -> Result<Made> {
        seeded(*seed, || Encoder::new(*n, *h))?.forward(x).map(Made::of)
    }

    fn mistakes() -> Vec<Mistake<Built, Made>> {
        vec![
            Mistake {
                sentence: "That is the final hidden state, (1, N, H): forward returns the GRU's output at every step, (N, L, H).",
                answer: |(seed, n, h, x)| seeded(*seed, || Gru::new(*n, *h))?.forward(x, None).map(|o| Made::of(o.1)),
            },
            Mistake {
                sentence: "Your `new` drew from the generator otherwise than the lecture's Encoder, and your outputs differ: whatever draws before the GRU (another layer, a call to randn) changes its weights. Create the GRU first.",
                answer: |(seed, n, h, x)| {
                    let out = seeded(*seed, || {
                        Linear::new(*n, *h)?;
                        Gru::new(*n, *h)
                    })?
                    .forward(x, None)?
                    .0;
                    Ok(Made { out, drew: true, any_output: true })
                },
            },
            Mistake {
                sentence: "forward returns the last step's output alone: it returns the GRU's output at every step, (N, L, H).",
                answer: |(seed, n, h, x)| {
                    let out = seeded(*seed, || Gru::new(*n, *h))?.forward(x, None)?.0;
                    Ok(Made::of(out.i((.., out.dim(1)? - 1..))?))
                },
            },
        ]
    }
}

impl Q7 {
    /// Checks an encoder of your own: `new(n_features, hidden_dim)` builds it (the check seeds the
    /// generator first) and `forward(&mut model, x)` gives every step's hidden state, (N, L, H).
    pub fn check<M>(&self, new: impl Fn(usize, usize) -> Result<M>, forward: impl Fn(&mut M, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(seed, n, h, x)| {
            let (_, lecture) = next_after(*seed, || Encoder::new(*n, *h))?;
            let (mut m, yours) = next_after(*seed, || new(*n, *h))?;
            Ok(Made { out: forward(&mut m, x)?, drew: yours != lecture, any_output: false })
        })
    }
}
