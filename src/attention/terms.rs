//! The terms of attention scores, for the explorer's neuron view: for every head, the vectors a
//! score compares (the projected query and keys, or what the score function makes of them),
//! their dot products, the scores the softmax took and the weights it gave. Every tensor comes
//! from the module's own projections and score function; nothing is recomputed by a formula of
//! its own here.

use super::score::{Score, bmm};
use crate::nn::Linear;
use crate::nn::ops::masked_fill;
use crate::nn::shape::invalid;
use candle_core::{D, Result, Tensor};

/// One attention's score terms over a batch, every head at once: score `(i, j)` of a head is
/// `sum_d left[i][d] * right[i][j][d]` (the `dots`), scaled as `scaling` says.
#[derive(Clone, Debug)]
pub struct ScoreTerms {
    /// The score function: "scaled dot", "dot", "general", "additive" or "cosine".
    pub score: &'static str,
    /// What the two vectors are called: `("q", "k")`, `("q", "W k")`, `("v", "tanh(W [q; k])")`.
    pub labels: (&'static str, &'static str),
    /// The query side, `(N, heads, Lq, D)`, or `(N, heads, 1, D)` for one vector every query shares
    /// (the additive score's `v`).
    pub left: Tensor,
    /// The key side, `(N, heads, Lk, D)`, or `(N, heads, Lq, Lk, D)` for a vector per (query, key)
    /// pair (the additive score's `tanh(W [q; k])`).
    pub right: Tensor,
    /// `(N, heads, Lq, Lk)`: the sums of `left * right`.
    pub dots: Tensor,
    /// How a dot becomes a score: "÷ √16", "÷ (|q| |k|)", or "" where the score is the dot.
    pub scaling: String,
    /// `(N, heads, Lq, Lk)`: the scores the softmax took, `-inf` where a mask hid the key.
    pub scores: Tensor,
    /// `(N, heads, Lq, Lk)`: the softmax's weights, as the forward pass gave them.
    pub weights: Tensor,
}

impl ScoreTerms {
    /// Scaled dot-product heads: queries `(N, heads, Lq, d_k)`, keys `(N, heads, Lk, d_k)`, an
    /// optional additive mask broadcasting to `(N, heads, Lq, Lk)` (0 or `-inf`) and the weights
    /// the forward pass computed.
    pub(crate) fn scaled_dot(q: &Tensor, k: &Tensor, additive_mask: Option<&Tensor>, weights: &Tensor) -> Result<Self> {
        let d = q.dim(D::Minus1)?;
        let dots = bmm(q, &k.t()?)?;
        let mut scores = (&dots / (d as f64).sqrt())?;
        if let Some(m) = additive_mask {
            scores = scores.broadcast_add(m)?;
        }
        Ok(ScoreTerms {
            score: "scaled dot",
            labels: ("q", "k"),
            left: q.detach(),
            right: k.detach(),
            dots: dots.detach(),
            scaling: format!("÷ √{d}"),
            scores: scores.detach(),
            weights: weights.detach(),
        })
    }

    /// The lecture's one-head attention: projected queries `(N, Lq, H)` and keys `(N, L, H)`, the
    /// score function with its own layers, the scores as the module computed them `(N, Lq, L)`,
    /// an optional keep mask (0 where masked) broadcasting to them, and its alphas.
    pub(crate) fn one_head(
        score: Score,
        (q, keys): (&Tensor, &Tensor),
        (w, v): (Option<&Linear>, Option<&Linear>),
        scores: &Tensor,
        keep: Option<&Tensor>,
        alphas: &Tensor,
    ) -> Result<Self> {
        let h = q.dim(D::Minus1)?;
        let (name, labels, left, right, scaling) = match (score, w, v) {
            (Score::ScaledDot, ..) => ("scaled dot", ("q", "k"), q.clone(), keys.clone(), format!("÷ √{h}")),
            (Score::Dot, ..) => ("dot", ("q", "k"), q.clone(), keys.clone(), String::new()),
            (Score::Cosine, ..) => ("cosine", ("q", "k"), q.clone(), keys.clone(), "÷ (|q| |k|)".to_string()),
            (Score::General, Some(w), _) => ("general", ("q", "W k"), q.clone(), w.forward(keys)?, String::new()),
            (Score::Additive, Some(w), Some(v)) => {
                let n = q.dim(0)?;
                let shared = v.weight.tensor().unsqueeze(0)?.broadcast_as((n, 1, h))?.contiguous()?;
                ("additive", ("v", "tanh(W [q; k])"), shared, Score::additive_hidden(q, keys, w)?, String::new())
            }
            (Score::Location { .. }, ..) => {
                return Err(invalid("the location-based score compares no key with the query (W q alone): it has no terms to show"));
            }
            _ => return Err(invalid(format!("the {score:?} score's parameters are missing"))),
        };
        // the dot of each pair: the module's own product where the score is one
        let dots = match score {
            Score::ScaledDot | Score::Dot | Score::Cosine => bmm(q, &keys.t()?)?,
            _ => scores.clone(),
        };
        let scores = match keep {
            Some(m) => masked_fill(scores, m, f64::NEG_INFINITY)?,
            None => scores.clone(),
        };
        let heads = |t: &Tensor| t.unsqueeze(1).map(|t| t.detach());
        Ok(ScoreTerms {
            score: name,
            labels,
            left: heads(&left)?,
            right: heads(&right)?,
            dots: heads(&dots)?,
            scaling,
            scores: heads(&scores)?,
            weights: heads(alphas)?,
        })
    }
}
