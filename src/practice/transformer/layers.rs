//! Part 4's layers: layer normalisation by hand, add & norm and the position-wise feed-forward
//! network as modules of your own, built under the check's seed.

use crate::models::{AddNorm, PointwiseFeedforward};
use crate::nn::{Dropout, LayerNorm, Linear, Param};
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{Result, Tensor};

/// An input, a weight, a bias and eps.
type NormCase = (Tensor, Tensor, Tensor, f64);

exercise! {
    /// Layer normalisation over the last dimension, with a weight and a bias.
    q5: Q5 = Info {
        id: "04.q5",
        title: "layer normalisation by hand",
        lecture: "002#14",
        hints: &[
            "Every token is normalised on its own: the mean and the variance run over the last dimension, the D features (`mean_keepdim(D::Minus1)`).",
            "The variance is the biased one, the mean of the squared deviations (divide by D, not D - 1), and eps goes inside the square root: (x - mean) / sqrt(var + eps).",
            "`let c = x.broadcast_sub(&x.mean_keepdim(D::Minus1)?)?; let var = c.sqr()?.mean_keepdim(D::Minus1)?;` then `c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(weight)?.broadcast_add(bias)`.",
        ],
        solution: solution!(transformer::layer_norm),
    }
}

/// Layer normalisation as the mistakes compute it: the variance divided by `count - ddof`, over
/// `dim`, eps inside or outside the square root.
fn norm_with(x: &Tensor, w: &Tensor, b: &Tensor, eps: f64, ddof: usize, dim: usize, eps_inside: bool) -> Result<Tensor> {
    let count = x.dim(dim)?;
    let c = x.broadcast_sub(&x.mean_keepdim(dim)?)?;
    let var = (c.sqr()?.sum_keepdim(dim)? / (count - ddof) as f64)?;
    let std = if eps_inside { (var + eps)?.sqrt()? } else { (var.sqrt()? + eps)? };
    c.broadcast_div(&std)?.broadcast_mul(w)?.broadcast_add(b)
}

impl Exercise for Q5 {
    type Input = NormCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed: u64, shape: &[usize], scale: f64, eps: f64| -> Result<NormCase> {
            let d = shape[shape.len() - 1];
            Ok(((randn(seed, shape)? * scale)?, (randn(seed + 1, &[d])? + 1.0)?, randn(seed + 2, &[d])?, eps))
        };
        Ok(vec![
            Case::new("(2, 5, 8), weight and bias drawn, eps 1e-5", case(60, &[2, 5, 8], 1.0, 1e-5)?),
            Case::new("one token of 4 features (1, 1, 4), eps 1e-5", case(63, &[1, 1, 4], 1.0, 1e-5)?),
            Case::new("small activations (3, 6, 16) of scale 0.01, eps 1e-5", case(66, &[3, 6, 16], 0.01, 1e-5)?),
            Case::new("(2, 3, 6) with a large eps, 0.5", case(69, &[2, 3, 6], 1.0, 0.5)?),
        ])
    }

    fn reference((x, w, b, eps): &Self::Input) -> Result<Tensor> {
        {
            let d = w.dim(0)?;
            LayerNorm { weight: Param::new(w)?, bias: Param::new(b)?, eps: *eps, d_model: d }.forward(x)
        }
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "That is the unbiased variance (divided by D - 1): layer normalisation divides by D, the mean of the squared deviations.",
                answer: |(x, w, b, eps)| norm_with(x, w, b, *eps, 1, x.rank() - 1, true),
            },
            Mistake {
                sentence: "eps is added after the square root: it belongs inside, sqrt(var + eps).",
                answer: |(x, w, b, eps)| norm_with(x, w, b, *eps, 0, x.rank() - 1, false),
            },
            Mistake {
                sentence: "The statistics run over the tokens (dimension 1): layer normalisation normalises each token over its own features, the last dimension.",
                answer: |(x, w, b, eps)| norm_with(x, w, b, *eps, 0, 1, true),
            },
            Mistake {
                sentence: "The centred token is divided by the variance itself: divide by the standard deviation, the square root of var + eps.",
                answer: |(x, w, b, eps)| {
                    let c = x.broadcast_sub(&x.mean_keepdim(x.rank() - 1)?)?;
                    let var = c.sqr()?.mean_keepdim(x.rank() - 1)?;
                    c.broadcast_div(&(var + *eps)?)?.broadcast_mul(w)?.broadcast_add(b)
                },
            },
            Mistake {
                sentence: "eps is missing: add it to the variance under the square root, sqrt(var + eps); it keeps a token of equal features from a division by zero.",
                answer: |(x, w, b, _)| norm_with(x, w, b, 0.0, 0, x.rank() - 1, true),
            },
            Mistake {
                sentence: "The weight and the bias are left out: after normalising, multiply by weight and add bias.",
                answer: |(x, w, b, eps)| norm_with(x, &w.ones_like()?, &b.zeros_like()?, *eps, 0, x.rank() - 1, true),
            },
        ]
    }
}

impl Q5 {
    /// Checks `f(x (..., D), weight (D), bias (D), eps) -> (..., D)` against the crate's `LayerNorm`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, f64) -> Result<Tensor>) -> Outcome {
        Self::run(|(x, w, b, eps)| f(x, w, b, *eps))
    }
}

/// A seed, d_model, p_drop, the sub-layer's output and its input.
type AddNormCase = (u64, usize, f64, Tensor, Tensor);

exercise! {
    /// The lecture's `AddNorm` as a struct of your own.
    q6: Q6 = Info {
        id: "04.q6",
        title: "AddNorm of your own: residual, norm, dropout",
        lecture: "002#15",
        hints: &[
            "`new` makes a `LayerNorm::new(d_model)` and a `Dropout::new(p_drop)`; neither draws weights, so their order does not matter.",
            "`forward(x, res_input)`: `x` is the sub-layer's output and `res_input` its input. Add them first (the residual connection), then normalise the sum.",
            "`self.dropout.forward(&self.layer_norm.forward(&(res_input + x)?)?)`: as in the lecture, the dropout comes after the norm.",
        ],
        solution: solution!(transformer::MyAddNorm: new, forward),
    }
}

impl Exercise for Q6 {
    type Input = AddNormCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("d_model 8, p_drop 0.3, (2, 5, 8), seed 5", (5, 8, 0.3, randn(70, &[2, 5, 8])?, randn(71, &[2, 5, 8])?)),
            Case::new("no dropout, one token (1, 1, 6), seed 1", (1, 6, 0.0, randn(72, &[1, 1, 6])?, randn(73, &[1, 1, 6])?)),
            Case::new("d_model 16, p_drop 0.5, (3, 4, 16), seed 9", (9, 16, 0.5, randn(74, &[3, 4, 16])?, randn(75, &[3, 4, 16])?)),
        ])
    }

    fn reference((seed, d, p, x, r): &Self::Input) -> Result<Tensor> {
        seeded(*seed, || AddNorm::new(*d, *p)?.forward(x, r))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The residual connection is missing: add the sub-layer's input res_input to its output x before the norm.",
                answer: |(seed, d, p, x, _)| seeded(*seed, || Dropout::new(*p)?.forward(&LayerNorm::new(*d)?.forward(x)?)),
            },
            Mistake {
                sentence: "The norm is inside the residual branch (pre-norm, res_input + norm(x)): the lecture normalises the sum, norm(res_input + x).",
                answer: |(seed, d, p, x, r)| seeded(*seed, || Dropout::new(*p)?.forward(&(r + LayerNorm::new(*d)?.forward(x)?)?)),
            },
            Mistake {
                sentence: "The dropout is on the sub-layer's output before the addition (the paper's order): the lecture drops out after the norm.",
                answer: |(seed, d, p, x, r)| seeded(*seed, || LayerNorm::new(*d)?.forward(&(r + Dropout::new(*p)?.forward(x)?)?)),
            },
            Mistake {
                sentence: "The dropout is on the sum, before the norm: the lecture normalises res_input + x first and drops out the norm's output.",
                answer: |(seed, d, p, x, r)| seeded(*seed, || LayerNorm::new(*d)?.forward(&Dropout::new(*p)?.forward(&(r + x)?)?)),
            },
            Mistake {
                sentence: "The dropout is missing: the check runs in training mode, where the dropout after the norm zeroes some values and scales the rest by 1 / (1 - p_drop).",
                answer: |(_, d, _, x, r)| LayerNorm::new(*d)?.forward(&(r + x)?),
            },
        ]
    }
}

impl Q6 {
    /// Checks an add & norm of your own: `new(d_model, p_drop)` builds it and `forward(&model, x,
    /// res_input)` gives `(N, L, D)`, both under the check's seed (the dropout draws its masks
    /// from it), against the crate's `AddNorm` in training mode.
    pub fn check<M>(&self, new: impl Fn(usize, f64) -> Result<M>, forward: impl Fn(&M, &Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(seed, d, p, x, r)| seeded(*seed, || new(*d, *p).and_then(|m| forward(&m, x, r))))
    }
}

/// A seed, d_model, d_ff, p_drop and an input.
type FfnCase = (u64, usize, usize, f64, Tensor);

exercise! {
    /// The lecture's `PointwiseFeedforward` as a struct of your own, built under the seed.
    q7: Q7 = Info {
        id: "04.q7",
        title: "the position-wise feed-forward network of your own",
        lecture: "002#17",
        hints: &[
            "Two linear layers, `Linear::new(d_model, d_ff)` then `Linear::new(d_ff, d_model)`, created in that order (each draws its weights from the generator), and a `Dropout::new(p_drop)`.",
            "`forward` widens, applies ReLU, drops out and narrows again: the same for every position, since a linear layer acts on the last dimension only.",
            "`self.linear2.forward(&self.dropout.forward(&self.linear1.forward(x)?.relu()?)?)`.",
        ],
        solution: solution!(transformer::MyFeedforward: new, forward),
    }
}

/// The feed-forward network as the mistakes compute it, all under `seed`: the layers created in
/// the lecture's order or the other, the ReLU between the layers, at the end, or nowhere.
fn ffn_with((seed, d, d_ff, p, x): &FfnCase, lecture_order: bool, relu: Relu) -> Result<Tensor> {
    seeded(*seed, || {
        let (l1, l2) = if lecture_order {
            let l1 = Linear::new(*d, *d_ff)?;
            (l1, Linear::new(*d_ff, *d)?)
        } else {
            let l2 = Linear::new(*d_ff, *d)?;
            (Linear::new(*d, *d_ff)?, l2)
        };
        let dropout = Dropout::new(*p)?;
        let h = l1.forward(x)?;
        let h = if relu == Relu::Between { h.relu()? } else { h };
        let y = l2.forward(&dropout.forward(&h)?)?;
        if relu == Relu::Last { y.relu() } else { Ok(y) }
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Relu {
    Between,
    Last,
    Nowhere,
}

impl Exercise for Q7 {
    type Input = FfnCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("d_model 6, d_ff 24, no dropout, (2, 5, 6), seed 3", (3, 6, 24, 0.0, randn(80, &[2, 5, 6])?)),
            Case::new("d_model 4, d_ff 8, one token (1, 1, 4), seed 11", (11, 4, 8, 0.0, randn(81, &[1, 1, 4])?)),
            Case::new("d_model 8, d_ff 32, p_drop 0.2, (3, 4, 8), seed 7", (7, 8, 32, 0.2, randn(82, &[3, 4, 8])?)),
        ])
    }

    fn reference((seed, d, d_ff, p, x): &Self::Input) -> Result<Tensor> {
        seeded(*seed, || PointwiseFeedforward::new(*d, *d_ff, *p)?.forward(x))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The ReLU is missing: without it the two linear layers are one linear map. Apply it to the wide layer's output.",
                answer: |c| ffn_with(c, true, Relu::Nowhere),
            },
            Mistake {
                sentence: "The ReLU comes last: it belongs between the two linear layers, on the d_ff-wide activations; the output is not clipped at 0.",
                answer: |c| ffn_with(c, true, Relu::Last),
            },
            Mistake {
                sentence: "The weights are not the lecture's: the second linear layer was created first. Create Linear(d_model, d_ff), then Linear(d_ff, d_model).",
                answer: |c| ffn_with(c, false, Relu::Between),
            },
        ]
    }
}

impl Q7 {
    /// Checks a feed-forward network of your own: `new(d_model, d_ff, p_drop)` builds it and
    /// `forward(&model, x)` gives `(N, L, D)`, both under the check's seed, against the crate's
    /// `PointwiseFeedforward`.
    #[allow(clippy::type_complexity)]
    pub fn check<M>(&self, new: impl Fn(usize, usize, f64) -> Result<M>, forward: impl Fn(&M, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(seed, d, d_ff, p, x)| seeded(*seed, || new(*d, *d_ff, *p).and_then(|m| forward(&m, x))))
    }
}
