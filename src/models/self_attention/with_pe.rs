//! Positional encoding in front of a self-attention encoder or decoder: one wrapper, [`WithPe`],
//! serves both ([`EncoderPe`] and [`DecoderPe`]).

use super::config::SelfAttnConfig;
use super::layers::{DecoderSelfAttn, EncoderSelfAttn, SelfAttnDecoder, SelfAttnEncoder};
use crate::attention::PositionalEncoding;
use crate::nn::shape::Within;
use crate::nn::{Walk, Walker};
use candle_core::{Result, Tensor};

/// Positional encoding, then a self-attention layer (its parameters under `layer.`, as in the
/// lecture's `EncoderPe`/`DecoderPe`). The encoding is a buffer, not a parameter.
#[derive(Clone, Debug)]
pub struct WithPe<L> {
    pub pe: PositionalEncoding,
    pub layer: L,
}

/// The lecture's `EncoderPe(n_heads, d_model, ff_units, n_features, max_len)`.
pub type EncoderPe = WithPe<EncoderSelfAttn>;

/// The lecture's `DecoderPe(n_heads, d_model, ff_units, n_features, max_len)`.
pub type DecoderPe = WithPe<DecoderSelfAttn>;

impl WithPe<EncoderSelfAttn> {
    /// The lecture's positional constructor; see [`SelfAttnConfig`] for each knob.
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        Self::from_config(&SelfAttnConfig { n_heads, d_model, ff_units, n_features, max_len })
    }

    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        let pe = PositionalEncoding::new(cfg.max_len, cfg.features()).within("EncoderPe")?;
        Ok(WithPe { pe, layer: EncoderSelfAttn::from_config(cfg).within("EncoderPe")? })
    }

    /// Adds the positional encoding, then runs the encoder.
    ///
    /// # Shapes
    /// - `query`: `(N, L, F)`, `L <= max_len`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, L, D)`
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        self.encode(query, mask)
    }
}

impl WithPe<DecoderSelfAttn> {
    /// The lecture's positional constructor; see [`SelfAttnConfig`] for each knob.
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        Self::from_config(&SelfAttnConfig { n_heads, d_model, ff_units, n_features, max_len })
    }

    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        let pe = PositionalEncoding::new(cfg.max_len, cfg.features()).within("DecoderPe")?;
        Ok(WithPe { pe, layer: DecoderSelfAttn::from_config(cfg).within("DecoderPe")? })
    }

    /// The encoder's states become the keys and values of the cross-attention.
    ///
    /// # Shapes
    /// - `states`: `(N, L, D)`
    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        self.layer.init_keys(states).within("DecoderPe::init_keys")
    }

    /// Adds the positional encoding, then runs the decoder.
    ///
    /// # Shapes
    /// - `query`: `(N, Lt, F)`, `Lt <= max_len`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        self.decode(query, source_mask, target_mask)
    }
}

impl<L: Walk> Walk for WithPe<L> {
    fn walk(&self, w: &mut Walker) {
        // PyTorch's `state_dict` names the encoding's table `pe.pe` `(1, max_len, F)`.
        w.child("pe", &self.pe);
        w.child("layer", &self.layer);
    }
}

impl<E: SelfAttnEncoder> SelfAttnEncoder for WithPe<E> {
    fn d_model(&self) -> usize {
        self.layer.d_model()
    }
    fn n_features(&self) -> usize {
        self.layer.n_features()
    }
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let q = self.pe.forward(source)?;
        self.layer.encode(&q, mask)
    }
}

impl<D: SelfAttnDecoder> SelfAttnDecoder for WithPe<D> {
    fn d_model(&self) -> usize {
        self.layer.d_model()
    }
    fn n_features(&self) -> usize {
        self.layer.n_features()
    }
    fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        self.layer.init_keys(states)
    }
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        let q = self.pe.forward(query)?;
        self.layer.decode(&q, source_mask, target_mask)
    }
}
