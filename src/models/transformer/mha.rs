//! One type for the attention of a Transformer layer, in either head layout.

use super::config::HeadLayout;
use crate::attention::{MhaOutput, NarrowMultiHeadAttention, ProjectedKv, ScoreTerms, VectorisedMultiHeadAttention};
use crate::nn::{Walk, Walker};
use candle_core::{Result, Tensor};

/// A Transformer layer's multi-head attention: narrow (the lecture's) or vectorised (the blog
/// post's). Both compute the same function; their parameters differ in names and shapes.
#[derive(Clone, Debug)]
pub enum LayerAttention {
    Narrow(NarrowMultiHeadAttention),
    Vectorised(VectorisedMultiHeadAttention),
}

impl LayerAttention {
    /// Draws the attention's parameters in the layout's order.
    pub fn new(layout: HeadLayout, d_model: usize, n_heads: usize, p_drop: f64) -> Result<Self> {
        Ok(match layout {
            HeadLayout::Narrow => LayerAttention::Narrow(NarrowMultiHeadAttention::new(d_model, n_heads, p_drop)?),
            HeadLayout::Vectorised => LayerAttention::Vectorised(VectorisedMultiHeadAttention::new(d_model, n_heads, p_drop)?),
        })
    }

    /// Attention of the queries over the keys and values.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, D)`; `key`, `value`: `(N, Lk, D)`
    /// - `mask`: optional additive mask `(1 or N, 1 or Lq, Lk)`
    /// - returns the output `(N, Lq, D)` and the weights `(N, n_heads, Lq, Lk)`
    pub fn forward(&self, query: &Tensor, key: &Tensor, value: &Tensor, mask: Option<&Tensor>) -> Result<MhaOutput> {
        match self {
            LayerAttention::Narrow(a) => a.forward(query, key, value, mask),
            LayerAttention::Vectorised(a) => a.forward(query, key, value, mask),
        }
    }

    /// The keys and values projected and split into heads (incremental decoding keeps them).
    pub(crate) fn project_kv(&self, key: &Tensor, value: &Tensor) -> Result<ProjectedKv> {
        match self {
            LayerAttention::Narrow(a) => a.project_kv(key, value),
            LayerAttention::Vectorised(a) => a.project_kv(key, value),
        }
    }

    /// The queries' attention over keys and values projected by [`LayerAttention::project_kv`].
    pub(crate) fn attend_kv(&self, query: &Tensor, kv: &ProjectedKv, mask: Option<&Tensor>) -> Result<MhaOutput> {
        match self {
            LayerAttention::Narrow(a) => a.attend_kv(query, kv, mask),
            LayerAttention::Vectorised(a) => a.attend_kv(query, kv, mask),
        }
    }

    /// The score terms of one pass (see [`ScoreTerms`]): the heads' queries and keys projected by
    /// this attention's own layers from the pass's `query` and `key` inputs, with the additive
    /// mask the pass used and the weights it gave.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, D)`; `key`: `(N, Lk, D)`; `mask`: optional `(1 or N, 1 or Lq, Lk)`
    /// - `weights`: `(N, n_heads, Lq, Lk)`
    pub(crate) fn score_terms(&self, query: &Tensor, key: &Tensor, mask: Option<&Tensor>, weights: &Tensor) -> Result<ScoreTerms> {
        let (q, k) = match self {
            LayerAttention::Narrow(a) => a.project_qk(query, key)?,
            LayerAttention::Vectorised(a) => a.project_qk(query, key)?,
        };
        let mask = mask.map(|m| m.unsqueeze(1)).transpose()?;
        ScoreTerms::scaled_dot(&q, &k, mask.as_ref(), weights)
    }

    pub fn d_model(&self) -> usize {
        match self {
            LayerAttention::Narrow(a) => a.d_model,
            LayerAttention::Vectorised(a) => a.d_model,
        }
    }
}

// By hand: an enum (no derive), walked as the attention it holds, under the layer's name for it.
impl Walk for LayerAttention {
    fn walk(&self, w: &mut Walker) {
        match self {
            LayerAttention::Narrow(a) => a.walk(w),
            LayerAttention::Vectorised(a) => a.walk(w),
        }
    }
}
