//! Positional encoding in front of a self-attention encoder or decoder: one wrapper, [`WithPe`],
//! serves both ([`EncoderPe`] and [`DecoderPe`]).

use super::config::SelfAttnConfig;
use super::layers::{DecoderSelfAttn, EncoderSelfAttn, SelfAttnDecoder, SelfAttnEncoder};
use crate::attention::PositionalEncoding;
use crate::nn::{Walk, errors_as};
use candle_core::{Result, Tensor};

/// Positional encoding, then a self-attention layer (its parameters under `layer.`, as in the
/// lecture's `EncoderPe`/`DecoderPe`). The encoding is a buffer, not a parameter.
#[derive(Clone, Debug, Walk)]
pub struct WithPe<L> {
    /// PyTorch's `state_dict` names the encoding's table `pe.pe` `(1, max_len, F)`.
    pub pe: PositionalEncoding,
    pub layer: L,
}

/// The lecture's `EncoderPe(n_heads, d_model, ff_units, n_features, max_len)`.
pub type EncoderPe = WithPe<EncoderSelfAttn>;

/// The lecture's `DecoderPe(n_heads, d_model, ff_units, n_features, max_len)`.
pub type DecoderPe = WithPe<DecoderSelfAttn>;

impl WithPe<EncoderSelfAttn> {
    /// The lecture's constructor; see [`SelfAttnConfig`] for each knob.
    #[errors_as("EncoderPe")]
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        let pe_dim = n_features.unwrap_or(d_model);
        let pe = PositionalEncoding::new(max_len, pe_dim)?;
        let layer = EncoderSelfAttn::new(n_heads, d_model, ff_units, n_features)?;
        Ok(WithPe { pe, layer })
    }

    /// [`new`](Self::new) with the knobs of `cfg`.
    #[errors_as("EncoderPe")]
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        Self::new(cfg.n_heads, cfg.d_model, cfg.ff_units, cfg.n_features, cfg.max_len)
    }

    /// Adds the positional encoding, then runs the encoder. No label of its own: an error is
    /// its encoding's or its layer's, which name themselves (as inside an encoder-decoder).
    ///
    /// # Shapes
    /// - `query`: `(N, L, F)`, `L <= max_len`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, L, D)`
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let query_pe = self.pe.forward(query)?;
        let out = self.layer.forward(&query_pe, mask)?;
        Ok(out)
    }
}

impl WithPe<DecoderSelfAttn> {
    /// The lecture's constructor; see [`SelfAttnConfig`] for each knob.
    #[errors_as("DecoderPe")]
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        let pe_dim = n_features.unwrap_or(d_model);
        let pe = PositionalEncoding::new(max_len, pe_dim)?;
        let layer = DecoderSelfAttn::new(n_heads, d_model, ff_units, n_features)?;
        Ok(WithPe { pe, layer })
    }

    /// [`new`](Self::new) with the knobs of `cfg`.
    #[errors_as("DecoderPe")]
    pub fn from_config(cfg: &SelfAttnConfig) -> Result<Self> {
        Self::new(cfg.n_heads, cfg.d_model, cfg.ff_units, cfg.n_features, cfg.max_len)
    }

    /// The encoder's states become the keys and values of the cross-attention.
    ///
    /// # Shapes
    /// - `states`: `(N, L, D)`
    #[errors_as("DecoderPe::init_keys")]
    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        self.layer.init_keys(states)
    }

    /// Adds the positional encoding, then runs the decoder. No label of its own, as
    /// [`EncoderPe::forward`](WithPe::<EncoderSelfAttn>::forward).
    ///
    /// # Shapes
    /// - `query`: `(N, Lt, F)`, `Lt <= max_len`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        let query_pe = self.pe.forward(query)?;
        let out = self.layer.forward(&query_pe, source_mask, target_mask)?;
        Ok(out)
    }
}

impl SelfAttnEncoder for EncoderPe {
    fn d_model(&self) -> usize {
        self.layer.d_model
    }
    fn n_features(&self) -> usize {
        self.layer.n_features
    }
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(source, mask)
    }
}

impl SelfAttnDecoder for DecoderPe {
    fn d_model(&self) -> usize {
        self.layer.d_model
    }
    fn n_features(&self) -> usize {
        self.layer.n_features
    }
    fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        // the layer's own, as before: an encoder-decoder's `encode` puts its name above it
        self.layer.init_keys(states)
    }
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(query, source_mask, target_mask)
    }
}
