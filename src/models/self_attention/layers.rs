//! The lecture's self-attention encoder and decoder, and the traits the encoder-decoder drives.

use super::config::SelfAttnConfig;
use crate::attention::MultiHeadAttention;
use crate::nn::shape::{Within, check_batch};
use crate::nn::{FeedForward, Walk, Walker};
use candle_core::{Result, Tensor, bail};

/// The lecture's `EncoderSelfAttn(n_heads, d_model, ff_units, n_features)`: multi-head
/// self-attention over the source (every point is a query, a key and a value), then a
/// feed-forward network. `(N, L, F) -> (N, L, D)`.
#[derive(Clone, Debug)]
pub struct EncoderSelfAttn {
    pub n_heads: usize,
    pub d_model: usize,
    pub ff_units: usize,
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl EncoderSelfAttn {
    /// The lecture's positional constructor; `n_features` defaults to `d_model`.
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        Self::from_config(&SelfAttnConfig { n_heads, d_model, ff_units, n_features, ..SelfAttnConfig::default() })
    }

    /// Draws the attention heads, then the feed-forward block, as PyTorch does.
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        let SelfAttnConfig { n_heads, d_model, ff_units, .. } = *cfg;
        let n_features = cfg.features();
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true).within("EncoderSelfAttn")?;
        let ffn = FeedForward::new(d_model, ff_units, d_model).within("EncoderSelfAttn")?;
        Ok(EncoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, ffn })
    }

    /// Self-attention over the source, then the feed-forward block.
    ///
    /// # Shapes
    /// - `query`: `(N, L, F)`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, L, D)`
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "EncoderSelfAttn";
        check_batch(query, self.n_features).within(module)?;
        self.self_attn_heads.init_keys(query).within(module)?;
        let att = self.self_attn_heads.forward(query, mask).within(module)?;
        self.ffn.forward(&att).within(module)
    }
}

impl Walk for EncoderSelfAttn {
    fn walk(&self, w: &mut Walker) {
        w.child("self_attn_heads", &self.self_attn_heads);
        w.child("ffn", &self.ffn);
    }
}

/// The lecture's `DecoderSelfAttn(n_heads, d_model, ff_units, n_features)`: masked
/// self-attention over the (shifted) target, cross-attention over the encoder's states, then a
/// feed-forward network back to `n_features`. `(N, Lt, F) -> (N, Lt, F)`.
#[derive(Clone, Debug)]
pub struct DecoderSelfAttn {
    pub n_heads: usize,
    pub d_model: usize,
    pub ff_units: usize,
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub cross_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl DecoderSelfAttn {
    /// The lecture's positional constructor; `n_features` defaults to `d_model`.
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        Self::from_config(&SelfAttnConfig { n_heads, d_model, ff_units, n_features, ..SelfAttnConfig::default() })
    }

    /// Draws the self-attention heads, the cross-attention heads, then the feed-forward block.
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        let SelfAttnConfig { n_heads, d_model, ff_units, .. } = *cfg;
        let n_features = cfg.features();
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true).within("DecoderSelfAttn")?;
        let cross_attn_heads = MultiHeadAttention::new(n_heads, d_model, None, true).within("DecoderSelfAttn")?;
        let ffn = FeedForward::new(d_model, ff_units, n_features).within("DecoderSelfAttn")?;
        Ok(DecoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, cross_attn_heads, ffn })
    }

    /// The encoder's states become the keys and values of the cross-attention.
    ///
    /// # Shapes
    /// - `states`: `(N, L, D)`
    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        check_batch(states, self.d_model).within("DecoderSelfAttn::init_keys")?;
        self.cross_attn_heads.init_keys(states).within("DecoderSelfAttn::init_keys")
    }

    /// Masked self-attention over the target, cross-attention over the encoder's states, then
    /// the feed-forward block.
    ///
    /// # Shapes
    /// - `query`: `(N, Lt, F)`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "DecoderSelfAttn";
        let (_, lt) = check_batch(query, self.n_features).within(module)?;
        if let Some(m) = target_mask
            && (m.rank() != 3 || m.dim(1).within(module)? != lt || m.dim(2).within(module)? != lt)
        {
            bail!("DecoderSelfAttn: expected a target mask of shape (1, {lt}, {lt}) for a target of {lt} steps, got {:?}", m.dims())
        }
        if self.cross_attn_heads.attn_heads.first().is_none_or(|h| h.proj_keys.is_none()) {
            bail!("DecoderSelfAttn: no encoder states; call init_keys (or encode) first")
        }
        self.self_attn_heads.init_keys(query).within(module)?;
        let att1 = self.self_attn_heads.forward(query, target_mask).within(module)?;
        let att2 = self.cross_attn_heads.forward(&att1, source_mask).within(module)?;
        self.ffn.forward(&att2).within(module)
    }
}

impl Walk for DecoderSelfAttn {
    fn walk(&self, w: &mut Walker) {
        w.child("self_attn_heads", &self.self_attn_heads);
        w.child("cross_attn_heads", &self.cross_attn_heads);
        w.child("ffn", &self.ffn);
    }
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
