//! Part 4, the Transformer (notebooks/exercises/04_transformer.ipynb): scaled dot-product
//! attention with an additive mask, the additive mask itself, splitting and merging heads, layer
//! normalisation, add & norm, the position-wise feed-forward network, greedy decoding, a
//! translator of your own trained to a BLEU of 90, one step of beam search, and the encoder
//! layer's padding mask with a pad id of the model's choosing.

mod beam;
mod decoding;
mod layers;
mod padding;

pub use beam::*;
pub use decoding::*;
pub use layers::*;
pub use padding::*;

use super::cases::{Case, randn, uniform};
use super::declaration::Exercise;
use super::progress::Progress;
use super::run::{Mistake, Outcome};
use super::{Info, exercise, solution};
use crate::attention::{create_mask, padding_mask, scaled_dot_product_attention_additive, subsequent_mask, target_mask};
use crate::nn::fused::heads::{merge_heads, split_heads};
use candle_core::{D, DType, Device, Result, Tensor};

/// Every exercise of part 4, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO, Q8::INFO, Q9::INFO, Q10::INFO, Q11::INFO];

/// The table of part 4's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("04")
}

/// Token ids `(N, L)` padded with 0 after `lengths[n]` tokens, the tokens drawn in `2..vocab`.
pub(super) fn padded_ids(seed: u64, lengths: &[usize], width: usize, vocab: usize) -> Result<Tensor> {
    let draws = uniform(seed, &[lengths.len(), width], 2.0, vocab as f64)?.to_vec2::<f32>()?;
    let ids: Vec<u32> = draws
        .iter()
        .zip(lengths)
        .flat_map(|(row, &len)| row.iter().enumerate().map(move |(j, v)| if j < len { *v as u32 } else { 0 }))
        .collect();
    Tensor::from_vec(ids, (lengths.len(), width), &Device::Cpu)
}

/// Query, keys, values and an optional additive mask.
type AttnCase = (Tensor, Tensor, Tensor, Option<Tensor>);

exercise! {
    /// Scaled dot-product attention with an optional additive mask.
    q1: Q1 = Info {
        id: "04.q1",
        title: "scaled dot-product attention with an additive mask",
        lecture: "002#28",
        hints: &[
            "Score every query against every key: `q.matmul(&k_t)` with the keys transposed over their last two dimensions, then divide by the square root of d_k, the width of the queries.",
            "The mask is added to the scaled scores before the softmax (`broadcast_add`: it may have fewer rows or batch entries than the scores); the softmax runs over the keys, the last dimension.",
            "`let weights = softmax(&scaled)?;` (the prelude's, over the last dimension) and return `(weights.matmul(v)?, weights)`.",
        ],
        solution: solution!(transformer::masked_attention),
    }
}

/// Attention as the mistakes compute it: `scale` divides the scores, the softmax runs over `dim`.
fn attention_with(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: f64, dim: D) -> Result<(Tensor, Tensor)> {
    let mut scores = (q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)? / scale)?;
    if let Some(m) = mask {
        scores = scores.broadcast_add(m)?;
    }
    let weights = candle_nn::ops::softmax(&scores, dim)?;
    Ok((weights.matmul(v)?, weights))
}

impl Exercise for Q1 {
    type Input = AttnCase;
    type Answer = (Tensor, Tensor);

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let x = randn(41, &[2, 5, 8])?;
        let pad = padding_mask(&padded_ids(44, &[7, 4, 2], 7, 20)?, 0)?;
        Ok(vec![
            Case::new("self-attention (2, 5, 8) with the causal mask (2, 5, 5)", (x.clone(), x.clone(), x, Some(create_mask(2, 5)?)))
                .sizes(&[("d_k", 8)]),
            Case::new(
                "one query and one key (1, 1, 3), no mask",
                (randn(42, &[1, 1, 3])?, randn(43, &[1, 1, 3])?, randn(45, &[1, 1, 3])?, None),
            )
            .sizes(&[("d_k", 3)]),
            Case::new(
                "cross-attention: 4 queries (3, 4, 6) over 7 padded keys, values of width 5, the padding mask (3, 1, 7)",
                (randn(46, &[3, 4, 6])?, randn(47, &[3, 7, 6])?, randn(48, &[3, 7, 5])?, Some(pad)),
            )
            .sizes(&[("d_k", 6)]),
            Case::new(
                "4-D, two heads (2, 2, 6, 4), no mask",
                (randn(49, &[2, 2, 6, 4])?, randn(50, &[2, 2, 6, 4])?, randn(51, &[2, 2, 6, 4])?, None),
            )
            .sizes(&[("d_k", 4)]),
        ])
    }

    fn reference((q, k, v, m): &Self::Input) -> Result<(Tensor, Tensor)> {
        scaled_dot_product_attention_additive(q, k, v, m.as_ref())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, (Tensor, Tensor)>> {
        vec![
            Mistake {
                sentence: "The scores are not scaled: divide Q Kᵀ by the square root of d_k (the queries' last dimension) before the softmax.",
                answer: |(q, k, v, m)| attention_with(q, k, v, m.as_ref(), 1.0, D::Minus1),
            },
            Mistake {
                sentence: "The scores are divided by d_k itself: the scale is its square root, sqrt(d_k).",
                answer: |(q, k, v, m)| attention_with(q, k, v, m.as_ref(), q.dim(D::Minus1)? as f64, D::Minus1),
            },
            Mistake {
                sentence: "The scores are multiplied by the square root of d_k: scaling by one over sqrt(d_k) means dividing by it.",
                answer: |(q, k, v, m)| attention_with(q, k, v, m.as_ref(), 1.0 / (q.dim(D::Minus1)? as f64).sqrt(), D::Minus1),
            },
            Mistake {
                sentence: "The softmax runs over the queries: each query's weights over the keys must sum to 1, so take it over the last dimension.",
                answer: |(q, k, v, m)| attention_with(q, k, v, m.as_ref(), (q.dim(D::Minus1)? as f64).sqrt(), D::Minus2),
            },
            Mistake {
                sentence: "The mask is not used: add it to the scaled scores before the softmax, so that masked keys get a weight of 0.",
                answer: |(q, k, v, _)| attention_with(q, k, v, None, (q.dim(D::Minus1)? as f64).sqrt(), D::Minus1),
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(q (..., Lq, d_k), k (..., Lk, d_k), v (..., Lk, d_v), mask) -> (output (..., Lq, d_v), weights (..., Lq, Lk))`
    /// against the crate's `scaled_dot_product_attention_additive`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, Option<&Tensor>) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|(q, k, v, m)| f(q, k, v, m.as_ref()))
    }
}

exercise! {
    /// A keep/drop mask turned into the lecture's additive mask.
    q2: Q2 = Info {
        id: "04.q2",
        title: "the additive mask from a keep/drop mask",
        lecture: "002#25",
        hints: &[
            "Where the mask is 1 the query may look: add nothing, 0. Where it is 0 the key must vanish after the softmax: add minus infinity.",
            "`keep.where_cond(&on_true, &on_false)` picks from `on_true` where `keep` is non-zero; make a float32 tensor of zeros and one of `f32::NEG_INFINITY` of the same shape.",
            "`keep.where_cond(&Tensor::zeros(keep.shape(), DType::F32, keep.device())?, &Tensor::full(f32::NEG_INFINITY, keep.shape(), keep.device())?)`.",
        ],
        solution: solution!(transformer::additive_mask),
    }
}

/// The mask made of `keep`: `on_keep` where it is 1, `on_drop` where it is 0.
fn mask_of(keep: &Tensor, on_keep: f32, on_drop: f32) -> Result<Tensor> {
    let (a, b) = (Tensor::full(on_keep, keep.shape(), keep.device())?, Tensor::full(on_drop, keep.shape(), keep.device())?);
    keep.where_cond(&a, &b)
}

impl Exercise for Q2 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let ids = padded_ids(52, &[6, 3, 1], 6, 30)?;
        let tgt = padded_ids(53, &[4, 6], 6, 30)?;
        let tgt_keep = subsequent_mask(6)?.broadcast_mul(&tgt.ne(0u32)?.unsqueeze(1)?)?;
        vec![
            Case::new(
                "the causal keep mask of 7 steps, a batch of 2 (2, 7, 7)",
                (subsequent_mask(7)?.repeat((2, 1, 1))?, create_mask(2, 7)?),
            ),
            Case::new("a padding keep mask (3, 1, 6) of three padded sentences", (ids.ne(0u32)?.unsqueeze(1)?, padding_mask(&ids, 0)?)),
            Case::new("causal and padding together, two targets (2, 6, 6)", (tgt_keep, target_mask(&tgt, Some(0))?)),
            Case::new("one step (1, 1, 1)", (subsequent_mask(1)?, create_mask(1, 1)?)),
        ]
        .into_iter()
        .map(|c| {
            // the diagnosis's mask: 1 where the keep mask drops
            let hidden = c.input.0.eq(0u8)?;
            Ok(c.mask(hidden))
        })
        .collect()
    }

    fn reference((_, want): &Self::Input) -> Result<Tensor> {
        Ok(want.clone())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The mask is inverted: -inf goes where the keep mask is 0 (a position that may not be looked at), 0 where it is 1.",
                answer: |(keep, _)| mask_of(keep, f32::NEG_INFINITY, 0.0),
            },
            Mistake {
                sentence: "Those are zeros and ones: an additive mask holds 0 where a key is kept and -inf where it is masked, so that the softmax gives it exactly 0.",
                answer: |(keep, _)| mask_of(keep, 0.0, 1.0),
            },
            Mistake {
                sentence: "That is the keep mask as floats: added to the scores, 1 and 0 mask nothing. Put 0 where it keeps and -inf where it masks.",
                answer: |(keep, _)| keep.to_dtype(DType::F32),
            },
            Mistake {
                sentence: "-1e9 is the fill of notebook 03's keep/drop masks: the lecture's additive mask holds -inf itself (f32::NEG_INFINITY).",
                answer: |(keep, _)| mask_of(keep, 0.0, -1e9),
            },
            Mistake {
                sentence: "Where the mask keeps you have NaN: 0 × -inf is not 0 but NaN, so (1 - keep) × -inf fails there. Choose between 0 and -inf with where_cond instead of multiplying.",
                answer: |(keep, _)| keep.to_dtype(DType::F32)?.affine(-1.0, 1.0)?.affine(f64::NEG_INFINITY, 0.0),
            },
            Mistake {
                sentence: "Your mask is float64 (f64 values or DType::F64): the scores it is added to are float32, so build it from f32 values, f32::NEG_INFINITY.",
                answer: |(_, want)| want.to_dtype(DType::F64),
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(keep (u8, 1 keeps, 0 masks)) -> additive mask (f32, 0 and -inf)` against the
    /// crate's `create_mask`, `padding_mask` and `target_mask` of the same masks.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(keep, _)| f(keep))
    }
}

exercise! {
    /// `(N, L, D)` -> `(N, h, L, D / h)`: every head's slice, heads first.
    q3: Q3 = Info {
        id: "04.q3",
        title: "split the width into heads",
        lecture: "004#14",
        hints: &[
            "First cut the last dimension into `n_heads` pieces of `d_model / n_heads`: a reshape to (N, L, h, d_k) keeps every token's numbers where they are.",
            "Then bring the heads in front of the tokens: swap dimensions 1 and 2. Reshaping straight to (N, h, L, d_k) mixes tokens into the wrong heads.",
            "`x.reshape((n, l, n_heads, d_model / n_heads))?.transpose(1, 2)?.contiguous()`.",
        ],
        solution: solution!(transformer::split_heads),
    }
}

impl Exercise for Q3 {
    type Input = (Tensor, usize);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("(2, 5, 12) into 3 heads", (randn(54, &[2, 5, 12])?, 3)),
            Case::new("a batch of one, one token (1, 1, 8), 2 heads", (randn(55, &[1, 1, 8])?, 2)),
            Case::new("(3, 7, 16) into 4 heads", (randn(56, &[3, 7, 16])?, 4)),
        ])
    }

    fn reference((x, h): &Self::Input) -> Result<Tensor> {
        split_heads(x, *h, x.dim(2)? / h)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "A reshape straight to (N, h, L, d_k) cuts the tokens' numbers in the wrong places: reshape to (N, L, h, d_k) first, then transpose dimensions 1 and 2.",
                answer: |(x, h)| {
                    let (n, l, d) = x.dims3()?;
                    x.reshape((n, *h, l, d / h))
                },
            },
            Mistake {
                sentence: "The heads are cut but still after the tokens, (N, L, h, d_k): transpose dimensions 1 and 2 to put them first.",
                answer: |(x, h)| {
                    let (n, l, d) = x.dims3()?;
                    x.reshape((n, l, *h, d / h))
                },
            },
            Mistake {
                sentence: "The width is cut as (d_k, h), so a head takes every h-th feature: reshape to (N, L, h, d_k), so that head i holds the d_k features from i * d_k on.",
                answer: |(x, h)| {
                    let (n, l, d) = x.dims3()?;
                    x.reshape((n, l, d / h, *h))?.permute((0, 3, 1, 2))
                },
            },
            Mistake {
                sentence: "That is (N, L, d_k, h): the transpose swapped the last two dimensions. Swap dimensions 1 and 2 of (N, L, h, d_k), the tokens and the heads.",
                answer: |(x, h)| {
                    let (n, l, d) = x.dims3()?;
                    x.reshape((n, l, *h, d / h))?.transpose(2, 3)
                },
            },
            Mistake {
                sentence: "That is (N, h, d_k, L), the keys' transposed layout: only dimensions 1 and 2 swap, the last stays d_k.",
                answer: |(x, h)| {
                    let (n, l, d) = x.dims3()?;
                    x.reshape((n, l, *h, d / h))?.permute((0, 2, 3, 1))
                },
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(x (N, L, D), n_heads) -> (N, n_heads, L, D / n_heads)`.
    pub fn check(&self, f: impl Fn(&Tensor, usize) -> Result<Tensor>) -> Outcome {
        Self::run(|(x, h)| f(x, *h))
    }
}

exercise! {
    /// `(N, h, L, d_k)` -> `(N, L, h * d_k)`: the heads' outputs side by side again.
    q4: Q4 = Info {
        id: "04.q4",
        title: "merge the heads back",
        lecture: "004#16",
        hints: &[
            "Undo the split in the reverse order: first put the tokens back in front of the heads, then join the heads' widths.",
            "`transpose(1, 2)` gives (N, L, h, d_k); it is not contiguous, so `.contiguous()` before the reshape to (N, L, h * d_k).",
            "`x.transpose(1, 2)?.contiguous()?.reshape((n, l, h * d_k))`.",
        ],
        solution: solution!(transformer::merge_heads),
    }
}

impl Exercise for Q4 {
    type Input = Tensor;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("3 heads of 4, a batch of 2, 5 tokens (2, 3, 5, 4)", randn(57, &[2, 3, 5, 4])?),
            Case::new("a batch of one, one token, 2 heads (1, 2, 1, 3)", randn(58, &[1, 2, 1, 3])?),
            Case::new("4 heads of 2, 6 tokens (3, 4, 6, 2)", randn(59, &[3, 4, 6, 2])?),
        ])
    }

    fn reference(x: &Self::Input) -> Result<Tensor> {
        merge_heads(x)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "A reshape without the transpose puts one head's tokens side by side: transpose dimensions 1 and 2 first, (N, L, h, d_k), then reshape.",
                answer: |x| {
                    let (n, h, l, d) = x.dims4()?;
                    x.reshape((n, l, h * d))
                },
            },
            Mistake {
                sentence: "The heads are interleaved: each token must hold head 0's d_k numbers, then head 1's, and so on; transpose dimensions 1 and 2 only, (N, L, h, d_k).",
                answer: |x| {
                    let (n, h, l, d) = x.dims4()?;
                    x.permute((0, 2, 3, 1))?.contiguous()?.reshape((n, l, h * d))
                },
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(x (N, h, L, d_k)) -> (N, L, h * d_k)`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|x| f(x))
    }
}
