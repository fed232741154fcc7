//! The alphas under a source mask, and the wide multi-head attention's forward pass.

use crate::attention::{Attention, MASK_FILL, MultiHeadAttention};
use crate::nn::{Linear, masked_fill, softmax};
use crate::practice::answer::Tolerance;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{D, Device, Result, Tensor};

/// A source mask `(N, 1, L)`, u8, from one row of 1s (keep) and 0s (padding) per sequence.
fn mask(rows: &[&[u8]]) -> Result<Tensor> {
    let l = rows[0].len();
    Tensor::from_vec(rows.concat(), (rows.len(), 1, l), &Device::Cpu)
}

exercise! {
    /// The alphas with the padded keys masked out before the softmax.
    q8: Q8 = Info {
        id: "02.q8",
        title: "alphas under a source mask",
        lecture: "000#52",
        hints: &[
            "Padded keys must get an alpha of exactly zero, and the alphas of the real keys must still add up to one: mask the scores before the softmax.",
            "Where the mask is 0 the score becomes a huge negative number (the lecture's -1e9), whose exponential is zero. The mask (N, 1, L) broadcasts to the scores (N, Lq, L).",
            "`mask.broadcast_as(scores.shape())?.where_cond(scores, &fill)?` keeps the score where the mask is 1 and takes `fill` (all -1e9) elsewhere; then `softmax`. The crate's `masked_fill(scores, mask, -1e9)` does the first step.",
        ],
        solution: solution!(attention::masked_alphas),
    }
}

impl Exercise for Q8 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        // each case's mask for the diagnosis: 1 where a key is padding
        let case = |label: &str, scores: Tensor, keep: Tensor| -> Result<Case<(Tensor, Tensor)>> {
            let hidden = keep.eq(0u8)?;
            Ok(Case::new(label, (scores, keep)).mask(hidden))
        };
        Ok(vec![
            case(
                "a padded batch of 2, one query, 4 keys, the second sequence's last two padded",
                randn(81, &[2, 1, 4])?,
                mask(&[&[1, 1, 1, 1], &[1, 1, 0, 0]])?,
            )?,
            case(
                "a batch of 3, 3 queries each, 5 keys, with 1, 0 and 3 padded keys",
                randn(82, &[3, 3, 5])?,
                mask(&[&[1, 1, 1, 1, 0], &[1, 1, 1, 1, 1], &[1, 1, 0, 0, 0]])?,
            )?,
            case("a batch of one, 3 keys, nothing padded", randn(83, &[1, 1, 3])?, mask(&[&[1, 1, 1]])?)?,
        ])
    }

    fn reference((s, m): &Self::Input) -> Result<Tensor> {
        softmax(&masked_fill(s, m, MASK_FILL)?)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The mask is inverted: a 1 keeps its key, a 0 marks padding. Fill the scores where the mask is 0.",
                answer: |(s, m)| softmax(&masked_fill(s, &m.eq(0u8)?, MASK_FILL)?),
            },
            Mistake {
                sentence: "The mask was applied after the softmax: zeroing alphas leaves the rest summing to less than one. Mask the scores, then take the softmax.",
                answer: |(s, m)| softmax(s)?.broadcast_mul(&m.to_dtype(s.dtype())?),
            },
            Mistake {
                sentence: "The padded scores became 0, which the softmax still turns into a weight: fill them with a huge negative number (-1e9) instead.",
                answer: |(s, m)| softmax(&masked_fill(s, m, 0.0)?),
            },
            Mistake {
                sentence: "These are the masked scores: the alphas are their softmax, which turns the -1e9 into exact zeros.",
                answer: |(s, m)| masked_fill(s, m, MASK_FILL),
            },
        ]
    }
}

impl Q8 {
    /// Checks `f(scores (N, Lq, L), mask (N, 1, L), u8, 1 keeps) -> alphas (N, Lq, L)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(s, m)| f(s, m))
    }
}

/// The crate's wide multi-head attention (keys initialised), a query and an optional mask.
type MultiHeadCase = (MultiHeadAttention, Tensor, Option<Tensor>);

/// Every head's context, joined on the last dimension: `(N, Lq, n_heads * D)`.
fn concatenated(mha: &MultiHeadAttention, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
    let mut heads = mha.attn_heads.clone();
    let contexts: Vec<Tensor> = heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<_>>()?;
    Tensor::cat(&contexts, D::Minus1)
}

exercise! {
    /// The wide multi-head attention's forward: every head, their contexts joined, the output layer.
    q9: Q9 = Info {
        id: "02.q9",
        title: "the wide multi-head attention's forward",
        lecture: "000#65",
        hints: &[
            "Every head is a whole `Attention`: call each one's `forward(query, mask)` and keep its context vector, (N, Lq, D).",
            "Join the contexts along the last dimension, `Tensor::cat(&contexts, D::Minus1)?`, (N, Lq, n_heads * D); the output layer maps that back to D.",
            "`linear_out.forward(&Tensor::cat(&contexts, D::Minus1)?)`, with `contexts` the heads' `attn.forward(query, mask)?` in order.",
        ],
        solution: solution!(attention::multi_head_forward),
    }
}

impl Exercise for Q9 {
    type Input = MultiHeadCase;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = Tolerance::LAYERS;

    fn cases() -> Result<Vec<Case<MultiHeadCase>>> {
        let case = |seed: u64, n_heads: usize, d_model: usize, input_dim: usize, n: usize, lq: usize, l: usize, m: Option<Tensor>| {
            let mut mha = seeded(seed, || MultiHeadAttention::new(n_heads, d_model, Some(input_dim), true))?;
            mha.init_keys(&randn(seed + 1, &[n, l, input_dim])?)?;
            Ok::<MultiHeadCase, candle_core::Error>((mha, randn(seed + 2, &[n, lq, input_dim])?, m))
        };
        Ok(vec![
            Case::new(
                "2 heads, d_model 3, a batch of 2, 4 keys, one query, the first sequence's last key padded, seed 5",
                case(5, 2, 3, 3, 2, 1, 4, Some(mask(&[&[1, 1, 1, 0], &[1, 1, 1, 1]])?))?,
            ),
            Case::new("3 heads, d_model 2, a batch of one, 5 keys, 3 queries, no mask, seed 9", case(9, 3, 2, 2, 1, 3, 5, None)?),
            Case::new(
                "one head, d_model 4, input_dim 2, a batch of 3, 3 keys, one query, no mask, seed 17",
                case(17, 1, 4, 2, 3, 1, 3, None)?,
            ),
        ])
    }

    fn reference((mha, q, m): &MultiHeadCase) -> Result<Tensor> {
        mha.clone().forward(q, m.as_ref())
    }

    fn mistakes() -> Vec<Mistake<MultiHeadCase, Tensor>> {
        vec![
            Mistake {
                sentence: "The output layer is missing: the joined contexts, (N, Lq, n_heads * D), go through `linear_out` back to D.",
                answer: |(mha, q, m)| concatenated(mha, q, m.as_ref()),
            },
            Mistake {
                sentence: "The mask never reached the heads: pass it to every head's forward, so that none of them attends to padding.",
                answer: |(mha, q, _)| mha.linear_out.forward(&concatenated(mha, q, None)?),
            },
            Mistake {
                sentence: "The contexts are interleaved (stacked on a new last dimension, then flattened): join them head after head, `Tensor::cat(&contexts, D::Minus1)`.",
                answer: |(mha, q, m)| {
                    let mut heads = mha.attn_heads.clone();
                    let contexts: Vec<Tensor> = heads.iter_mut().map(|h| h.forward(q, m.as_ref())).collect::<Result<_>>()?;
                    mha.linear_out.forward(&Tensor::stack(&contexts, 3)?.flatten_from(2)?)
                },
            },
            Mistake {
                sentence: "The contexts are joined in reverse order: the output layer expects the first head's context first.",
                answer: |(mha, q, m)| {
                    let mut heads = mha.attn_heads.clone();
                    let mut contexts: Vec<Tensor> = heads.iter_mut().map(|h| h.forward(q, m.as_ref())).collect::<Result<_>>()?;
                    contexts.reverse();
                    mha.linear_out.forward(&Tensor::cat(&contexts, D::Minus1)?)
                },
            },
        ]
    }
}

impl Q9 {
    /// Checks `f(attn_heads, linear_out, query (N, Lq, input_dim), mask) -> (N, Lq, D)` against
    /// the crate's `MultiHeadAttention` (built under a seed, keys already given to every head).
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&mut [Attention], &Linear, &Tensor, Option<&Tensor>) -> Result<Tensor>) -> Outcome {
        Self::run(|(mha, q, m)| {
            let mut heads = mha.attn_heads.clone();
            f(&mut heads, &mha.linear_out, q, m.as_ref())
        })
    }
}
