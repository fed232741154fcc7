//! Part 5's recurrent layers: one LSTM cell step and a bidirectional LSTM's outputs.

use crate::nn::{Lstm, LstmCell, reverse_time, sigmoid};
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{D, Result, Tensor};

/// A cell under one seed, an input step, and the hidden and cell states.
type CellCase = (LstmCell, Tensor, Tensor, Tensor);

/// The gates of a step in PyTorch's stacked order `i, f, g, o`, as four `(N, H)` tensors.
fn gates((cell, x, h, _): &CellCase) -> Result<Vec<Tensor>> {
    let w = &cell.weights;
    let gx = x.matmul(&w.weight_ih.tensor().t()?)?.broadcast_add(&w.bias_ih.tensor())?;
    let gh = h.matmul(&w.weight_hh.tensor().t()?)?.broadcast_add(&w.bias_hh.tensor())?;
    (gx + gh)?.chunk(4, 1)
}

exercise! {
    /// One step of an LSTM cell, by hand, in PyTorch's gate order.
    q2: Q2 = Info {
        id: "05.q2",
        title: "one LSTM cell step by hand",
        lecture: "004#11",
        hints: &[
            "All four gates come from one product: `x W_ih^T + b_ih + h W_hh^T + b_hh`, (N, 4H); `chunk(4, 1)` cuts it into four (N, H) blocks.",
            "PyTorch stacks the blocks as input, forget, cell candidate, output (i, f, g, o): sigmoid for i, f and o, tanh for g.",
            "`c' = f * c + i * g` and `h' = o * tanh(c')`; return `(h', c')`.",
        ],
        solution: solution!(blog::lstm_cell_step),
    }
}

impl Exercise for Q2 {
    type Input = CellCase;
    type Answer = (Tensor, Tensor);

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n: usize, features: usize, hidden: usize| -> Result<CellCase> {
            let cell = seeded(seed, || LstmCell::new(features, hidden))?;
            Ok((cell, randn(seed + 1, &[n, features])?, randn(seed + 2, &[n, hidden])?, randn(seed + 3, &[n, hidden])?))
        };
        Ok(vec![
            Case::new("a batch of 2, 3 features, 4 hidden units, seed 21", case(21, 2, 3, 4)?),
            Case::new("a batch of one, 5 features, 8 hidden units, seed 22", case(22, 1, 5, 8)?),
            Case::new("a batch of 3, 2 features, 3 hidden units, seed 23", case(23, 3, 2, 3)?),
        ])
    }

    fn reference((cell, x, h, c): &Self::Input) -> Result<(Tensor, Tensor)> {
        cell.forward(x, Some((h, c)))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, (Tensor, Tensor)>> {
        vec![
            Mistake {
                sentence: "The gates are read in the order i, f, o, g: PyTorch stacks them as i, f, g, o (the cell candidate third, the output gate last).",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, o, cand) = (sigmoid(&g[0])?, sigmoid(&g[1])?, sigmoid(&g[2])?, g[3].tanh()?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "The gates are read in the order i, g, f, o (TensorFlow's): PyTorch stacks them as i, f, g, o, the forget gate second and the candidate third.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, cand, f, o) = (sigmoid(&g[0])?, g[1].tanh()?, sigmoid(&g[2])?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "Only one bias is added: the gates are x W_ih^T + b_ih + h W_hh^T + b_hh, with both biases.",
                answer: |case| {
                    let w = &case.0.weights;
                    let g = (case.1.matmul(&w.weight_ih.tensor().t()?)?.broadcast_add(&w.bias_ih.tensor())?
                        + case.2.matmul(&w.weight_hh.tensor().t()?)?)?
                    .chunk(4, 1)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, g[2].tanh()?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "The two states are returned as (c', h'): the step returns the hidden state first, (h', c').",
                answer: |(cell, x, h, c)| {
                    let (h, c) = cell.forward(x, Some((h, c)))?;
                    Ok((c, h))
                },
            },
            Mistake {
                sentence: "The new hidden state is the output gate times tanh of the new cell state, `o * tanh(c')`: the tanh is missing.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, g[2].tanh()?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * &c)?, c))
                },
            },
            Mistake {
                sentence: "The cell candidate g goes through tanh, not sigmoid: it proposes values in (-1, 1); only i, f and o are sigmoid gates.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, sigmoid(&g[2])?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(x (N, F), h (N, H), c (N, H), weight_ih (4H, F), weight_hh (4H, H), bias_ih (4H),
    /// bias_hh (4H)) -> (h', c')` against the crate's `LstmCell`.
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, &Tensor, &Tensor, &Tensor, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|(cell, x, h, c)| {
            let w = &cell.weights;
            f(x, h, c, &w.weight_ih.tensor(), &w.weight_hh.tensor(), &w.bias_ih.tensor(), &w.bias_hh.tensor())
        })
    }
}

/// A bidirectional LSTM under one seed, its two directions as LSTMs of their own, and a batch.
type BiCase = (Lstm, Lstm, Lstm, Tensor);

exercise! {
    /// A bidirectional LSTM's outputs from two one-way LSTMs.
    q4: Q4 = Info {
        id: "05.q4",
        title: "a bidirectional LSTM's outputs",
        lecture: "004#19",
        hints: &[
            "The forward direction reads the batch as it is; the backward one reads it back to front: `reverse_time(x)?` flips the steps (dimension 1).",
            "The backward LSTM's outputs come out in reversed order: flip them back so that step t of both directions lines up.",
            "`Tensor::cat(&[forward_out, backward_out], 2)`: the two directions side by side on the features, (N, L, 2H), forward first.",
        ],
        solution: solution!(blog::bidirectional_outputs),
    }
}

impl Exercise for Q4 {
    type Input = BiCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n: usize, l: usize, features: usize, hidden: usize| -> Result<BiCase> {
            let (bi, fwd, bwd) = seeded(seed, || {
                let bi = Lstm::with_layers(features, hidden, 1, true)?;
                let (mut fwd, mut bwd) = (Lstm::new(features, hidden)?, Lstm::new(features, hidden)?);
                fwd.weights = vec![bi.weights[0].clone()];
                bwd.weights = vec![bi.weights[1].clone()];
                Ok((bi, fwd, bwd))
            })?;
            Ok((bi, fwd, bwd, randn(seed + 1, &[n, l, features])?))
        };
        Ok(vec![
            Case::new("a batch of 2, 4 steps, 3 features, 5 units a direction, seed 41", case(41, 2, 4, 3, 5)?),
            Case::new("one step, a batch of one, 2 features, 3 units, seed 42", case(42, 1, 1, 2, 3)?),
            Case::new("a batch of 3, 7 steps, 4 features, 6 units, seed 43", case(43, 3, 7, 4, 6)?),
        ])
    }

    fn reference((bi, _, _, x): &Self::Input) -> Result<Tensor> {
        Ok(bi.forward(x, None)?.0)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The backward outputs are still back to front: flip them again with reverse_time, so that position t of both directions describes the same token.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, bwd.forward(&reverse_time(x)?, None)?.0], 2),
            },
            Mistake {
                sentence: "The backward LSTM read the sequence front to back: give it `reverse_time(x)`, then flip its outputs back.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, bwd.forward(x, None)?.0], 2),
            },
            Mistake {
                sentence: "The backward LSTM's outputs were flipped but not its input: it must read the sequence back to front, `reverse_time(x)`, before its outputs are flipped back.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, reverse_time(&bwd.forward(x, None)?.0)?], 2),
            },
            Mistake {
                sentence: "The directions are joined on the steps (dimension 1): they go side by side on the features, the last dimension, (N, L, 2H).",
                answer: |(_, fwd, bwd, x)| {
                    Tensor::cat(&[fwd.forward(x, None)?.0, reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?], 1)
                },
            },
            Mistake {
                sentence: "The directions are in the wrong order: PyTorch puts the forward direction's H features first, then the backward's.",
                answer: |(_, fwd, bwd, x)| {
                    Tensor::cat(&[reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?, fwd.forward(x, None)?.0], D::Minus1)
                },
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(forward_lstm, backward_lstm, x (N, L, F)) -> (N, L, 2H)` against the crate's
    /// bidirectional `Lstm` whose two directions have the same weights.
    pub fn check(&self, f: impl Fn(&Lstm, &Lstm, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(_, fwd, bwd, x)| f(fwd, bwd, x))
    }
}
