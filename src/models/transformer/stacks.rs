//! The encoder and decoder stacks: `n_layers` layers, each feeding the next.

use super::config::TransformerConfig;
use super::layers::{DecoderLayer, EncoderLayer};
use crate::nn::shape::{error, in_module};
use crate::nn::{Walk, Walker};
use candle_core::{Result, Tensor};

/// A stack of `n_layers` [`EncoderLayer`]s (named `TransformerEncoder` so as not to clash with the
/// lecture's GRU `Encoder`). Parameters `layers.{i}`.
#[derive(Clone, Debug)]
pub struct TransformerEncoder {
    pub layers: Vec<EncoderLayer>,
}

impl TransformerEncoder {
    /// Draws the layers one after the other; uses `d_model`, `n_heads`, `d_ff`, `n_layers`,
    /// `dropout` and `heads` of `cfg`.
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        let build = || -> Result<Self> {
            if cfg.n_layers == 0 {
                return Err(error("TransformerEncoder", "n_layers must be positive"));
            }
            Ok(TransformerEncoder { layers: (0..cfg.n_layers).map(|_| EncoderLayer::from_config(cfg)).collect::<Result<_>>()? })
        };
        in_module("TransformerEncoder", build())
    }

    /// Runs every layer in turn under the same mask.
    ///
    /// # Shapes
    /// - `x`: the embedded source `(N, S, D)`
    /// - `mask`: optional additive mask `(1 or N, 1 or S, S)`, such as the source padding mask `(N, 1, S)`
    /// - returns the memory `(N, S, D)`
    pub fn forward(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let run = |me: &mut Self| -> Result<Tensor> {
            let mut h = x.clone();
            for layer in me.layers.iter_mut() {
                h = layer.forward(&h, mask)?;
            }
            Ok(h)
        };
        in_module("TransformerEncoder", run(self))
    }

    /// Every layer's self-attention weights of the last call, each `(N, n_heads, S, S)`.
    pub fn attention_weights(&self) -> Vec<Option<Tensor>> {
        self.layers.iter().map(|l| l.attention_weights().cloned()).collect()
    }
}

impl Walk for TransformerEncoder {
    fn walk(&self, w: &mut Walker) {
        w.children("layers", &self.layers);
    }
}

/// A stack of `n_layers` [`DecoderLayer`]s, each attending over the same encoder memory.
/// Parameters `layers.{i}`.
#[derive(Clone, Debug)]
pub struct TransformerDecoder {
    pub layers: Vec<DecoderLayer>,
}

impl TransformerDecoder {
    /// Draws the layers one after the other; uses `d_model`, `n_heads`, `d_ff`, `n_layers`,
    /// `dropout` and `heads` of `cfg`.
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        let build = || -> Result<Self> {
            if cfg.n_layers == 0 {
                return Err(error("TransformerDecoder", "n_layers must be positive"));
            }
            Ok(TransformerDecoder { layers: (0..cfg.n_layers).map(|_| DecoderLayer::from_config(cfg)).collect::<Result<_>>()? })
        };
        in_module("TransformerDecoder", build())
    }

    /// Runs every layer in turn over the same memory and masks.
    ///
    /// # Shapes
    /// - `x`: the embedded target `(N, T, D)`; `memory`: the encoder's output `(N, S, D)`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or T, S)`; `tgt_mask`: optional `(1 or N, 1 or T, T)`
    /// - returns `(N, T, D)`
    pub fn forward(&mut self, x: &Tensor, memory: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Tensor> {
        let run = |me: &mut Self| -> Result<Tensor> {
            let mut h = x.clone();
            for layer in me.layers.iter_mut() {
                h = layer.forward(&h, memory, src_mask, tgt_mask)?;
            }
            Ok(h)
        };
        in_module("TransformerDecoder", run(self))
    }

    /// Every layer's masked self-attention weights of the last call, each `(N, n_heads, T, T)`.
    pub fn self_attention_weights(&self) -> Vec<Option<Tensor>> {
        self.layers.iter().map(|l| l.self_attention_weights().cloned()).collect()
    }

    /// Every layer's cross-attention weights of the last call, each `(N, n_heads, T, S)`.
    pub fn cross_attention_weights(&self) -> Vec<Option<Tensor>> {
        self.layers.iter().map(|l| l.cross_attention_weights().cloned()).collect()
    }
}

impl Walk for TransformerDecoder {
    fn walk(&self, w: &mut Walker) {
        w.children("layers", &self.layers);
    }
}
