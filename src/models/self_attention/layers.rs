//! The lecture's self-attention encoder and decoder, and the traits the encoder-decoder drives.

use super::config::SelfAttnConfig;
use crate::attention::MultiHeadAttention;
use crate::nn::shape::{check_batch, invalid};
use crate::nn::{FeedForward, Walk, errors_as};
use candle_core::{Result, Tensor};

/// The lecture's `EncoderSelfAttn(n_heads, d_model, ff_units, n_features)`: multi-head
/// self-attention over the source (every point is a query, a key and a value), then a
/// feed-forward network. `(N, L, F) -> (N, L, D)`.
#[derive(Clone, Debug, Walk)]
pub struct EncoderSelfAttn {
    #[walk(skip)]
    pub n_heads: usize,
    #[walk(skip)]
    pub d_model: usize,
    #[walk(skip)]
    pub ff_units: usize,
    #[walk(skip)]
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl EncoderSelfAttn {
    /// The lecture's constructor; `n_features` defaults to `d_model`. Draws the attention heads,
    /// then the feed-forward block, as PyTorch does.
    #[errors_as]
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        let n_features = n_features.unwrap_or(d_model);
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true)?;
        let ffn = FeedForward::new(d_model, ff_units, d_model)?;
        Ok(EncoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, ffn })
    }

    /// [`new`](Self::new) with the knobs of `cfg` (its `max_len` serves only the PE versions).
    #[errors_as("EncoderSelfAttn")]
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        Self::new(cfg.n_heads, cfg.d_model, cfg.ff_units, cfg.n_features)
    }

    /// Self-attention over the source, then the feed-forward block.
    ///
    /// # Shapes
    /// - `query`: `(N, L, F)`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, L, D)`
    #[errors_as]
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        check_batch(query, self.n_features)?;
        self.self_attn_heads.init_keys(query)?;
        let att = self.self_attn_heads.forward(query, mask)?;
        self.ffn.forward(&att)
    }
}

/// The lecture's `DecoderSelfAttn(n_heads, d_model, ff_units, n_features)`: masked
/// self-attention over the (shifted) target, cross-attention over the encoder's states, then a
/// feed-forward network back to `n_features`. `(N, Lt, F) -> (N, Lt, F)`.
#[derive(Clone, Debug, Walk)]
pub struct DecoderSelfAttn {
    #[walk(skip)]
    pub n_heads: usize,
    #[walk(skip)]
    pub d_model: usize,
    #[walk(skip)]
    pub ff_units: usize,
    #[walk(skip)]
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub cross_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl DecoderSelfAttn {
    /// The lecture's constructor; `n_features` defaults to `d_model`. Draws the self-attention
    /// heads, the cross-attention heads, then the feed-forward block.
    #[errors_as]
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        let n_features = n_features.unwrap_or(d_model);
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true)?;
        let cross_attn_heads = MultiHeadAttention::new(n_heads, d_model, None, true)?;
        let ffn = FeedForward::new(d_model, ff_units, n_features)?;
        Ok(DecoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, cross_attn_heads, ffn })
    }

    /// [`new`](Self::new) with the knobs of `cfg` (its `max_len` serves only the PE versions).
    #[errors_as("DecoderSelfAttn")]
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        Self::new(cfg.n_heads, cfg.d_model, cfg.ff_units, cfg.n_features)
    }

    /// The encoder's states become the keys and values of the cross-attention.
    ///
    /// # Shapes
    /// - `states`: `(N, L, D)`
    #[errors_as]
    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        check_batch(states, self.d_model)?;
        self.cross_attn_heads.init_keys(states)
    }

    /// Masked self-attention over the target, cross-attention over the encoder's states, then
    /// the feed-forward block.
    ///
    /// # Shapes
    /// - `query`: `(N, Lt, F)`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    #[errors_as]
    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        check_batch(query, self.n_features)?;
        check_target_mask(target_mask, query)?;
        check_keys(&self.cross_attn_heads)?;
        self.self_attn_heads.init_keys(query)?;
        let att1 = self.self_attn_heads.forward(query, target_mask)?;
        let att2 = self.cross_attn_heads.forward(&att1, source_mask)?;
        self.ffn.forward(&att2)
    }
}

/// A target mask, if any, is `(1 or N, Lt, Lt)` for a query `(N, Lt, F)`.
fn check_target_mask(target_mask: Option<&Tensor>, query: &Tensor) -> Result<()> {
    let lt = query.dim(1)?;
    match target_mask.map(|m| m.dims()) {
        Some(&[_, a, b]) if a == lt && b == lt => Ok(()),
        None => Ok(()),
        Some(d) => Err(invalid(format!("expected a target mask of shape (1, {lt}, {lt}) for a target of {lt} steps, got {d:?}"))),
    }
}

/// The cross-attention has keys once `init_keys` has given it the encoder's states.
fn check_keys(cross_attn_heads: &MultiHeadAttention) -> Result<()> {
    if cross_attn_heads.attn_heads.first().is_none_or(|h| h.proj_keys.is_none()) {
        return Err(invalid("no encoder states; call init_keys (or encode) first"));
    }
    Ok(())
}

/// An encoder the self-attention encoder-decoder can drive.
pub trait SelfAttnEncoder: Walk {
    /// The width of the states it returns.
    fn d_model(&self) -> usize;
    /// The features of the source it takes.
    fn n_features(&self) -> usize;
    /// Encodes a source.
    ///
    /// # Shapes
    /// - `source`: `(N, L, F)`; `mask`: optional `(N, 1, L)`
    /// - returns the states `(N, L, D)`
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor>;
}

/// A decoder the self-attention encoder-decoder can drive.
pub trait SelfAttnDecoder: Walk {
    /// The width of the encoder states it attends over.
    fn d_model(&self) -> usize;
    /// The features of the target it takes and predicts.
    fn n_features(&self) -> usize;
    /// Takes the encoder's states as the cross-attention's keys and values.
    ///
    /// # Shapes
    /// - `states`: `(N, L, D)`
    fn init_keys(&mut self, states: &Tensor) -> Result<()>;
    /// Decodes a (shifted) target.
    ///
    /// # Shapes
    /// - `query`: `(N, Lt, F)`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor>;
}

impl SelfAttnEncoder for EncoderSelfAttn {
    fn d_model(&self) -> usize {
        self.d_model
    }
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(source, mask)
    }
}

impl SelfAttnDecoder for DecoderSelfAttn {
    fn d_model(&self) -> usize {
        self.d_model
    }
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        DecoderSelfAttn::init_keys(self, states)
    }
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(query, source_mask, target_mask)
    }
}
