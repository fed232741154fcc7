//! The encoder and decoder stacks: `n_layers` layers, each feeding the next.

use super::config::TransformerConfig;
use super::layers::{DecoderLayer, EncoderLayer};
use crate::nn::shape::invalid;
use crate::nn::{Walk, errors_as};
use candle_core::{Result, Tensor};

/// What the encoder stack computes.
#[derive(Clone, Debug)]
pub struct TransformerEncoderOutput {
    /// The last layer's output, the memory the decoder attends over `(N, S, D)`.
    pub memory: Tensor,
    /// Every layer's self-attention weights, each `(N, n_heads, S, S)`.
    pub self_attention: Vec<Tensor>,
    /// Every layer's input `(N, S, D)` (for the score terms).
    pub inputs: Vec<Tensor>,
}

/// What the decoder stack computes.
#[derive(Clone, Debug)]
pub struct TransformerDecoderOutput {
    /// The last layer's output `(N, T, D)`.
    pub output: Tensor,
    /// Every layer's masked self-attention weights, each `(N, n_heads, T, T)`.
    pub self_attention: Vec<Tensor>,
    /// Every layer's cross-attention weights, each `(N, n_heads, T, S)`.
    pub cross_attention: Vec<Tensor>,
    /// Every layer's input `(N, T, D)` and its cross-attention's query input (for the score terms).
    pub inputs: Vec<Tensor>,
    pub cross_inputs: Vec<Tensor>,
}

/// A stack of `n_layers` [`EncoderLayer`]s (named `TransformerEncoder` so as not to clash with the
/// lecture's GRU `Encoder`). Parameters `layers.{i}`.
#[derive(Clone, Debug, Walk)]
pub struct TransformerEncoder {
    pub layers: Vec<EncoderLayer>,
}

impl TransformerEncoder {
    /// Draws the layers one after the other; uses `d_model`, `n_heads`, `d_ff`, `n_layers`,
    /// `dropout` and `heads` of `cfg`.
    #[errors_as("TransformerEncoder")]
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        if cfg.n_layers == 0 {
            return Err(invalid("n_layers must be positive"));
        }
        let layers = (0..cfg.n_layers).map(|_| EncoderLayer::from_config(cfg)).collect::<Result<_>>()?;
        Ok(TransformerEncoder { layers })
    }

    /// Runs every layer in turn under the same mask.
    ///
    /// # Shapes
    /// - `x`: the embedded source `(N, S, D)`
    /// - `mask`: optional additive mask `(1 or N, 1 or S, S)`, such as the source padding mask `(N, 1, S)`
    /// - returns the memory `(N, S, D)` and every layer's self-attention weights
    #[errors_as]
    pub fn forward(&self, x: &Tensor, mask: Option<&Tensor>) -> Result<TransformerEncoderOutput> {
        let mut memory = x.clone();
        let (mut self_attention, mut inputs) = (vec![], vec![]);
        for layer in &self.layers {
            let out = layer.forward(&memory, mask)?;
            inputs.push(std::mem::replace(&mut memory, out.output));
            self_attention.push(out.self_attention);
        }
        Ok(TransformerEncoderOutput { memory, self_attention, inputs })
    }
}

/// A stack of `n_layers` [`DecoderLayer`]s, each attending over the same encoder memory.
/// Parameters `layers.{i}`.
#[derive(Clone, Debug, Walk)]
pub struct TransformerDecoder {
    pub layers: Vec<DecoderLayer>,
}

impl TransformerDecoder {
    /// Draws the layers one after the other; uses `d_model`, `n_heads`, `d_ff`, `n_layers`,
    /// `dropout` and `heads` of `cfg`.
    #[errors_as("TransformerDecoder")]
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        if cfg.n_layers == 0 {
            return Err(invalid("n_layers must be positive"));
        }
        let layers = (0..cfg.n_layers).map(|_| DecoderLayer::from_config(cfg)).collect::<Result<_>>()?;
        Ok(TransformerDecoder { layers })
    }

    /// Runs every layer in turn over the same memory and masks.
    ///
    /// # Shapes
    /// - `x`: the embedded target `(N, T, D)`; `memory`: the encoder's output `(N, S, D)`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or T, S)`; `tgt_mask`: optional `(1 or N, 1 or T, T)`
    /// - returns the output `(N, T, D)` and every layer's attention weights
    #[errors_as]
    pub fn forward(
        &self,
        x: &Tensor,
        memory: &Tensor,
        src_mask: Option<&Tensor>,
        tgt_mask: Option<&Tensor>,
    ) -> Result<TransformerDecoderOutput> {
        let mut output = x.clone();
        let (mut self_attention, mut cross_attention, mut inputs, mut cross_inputs) = (vec![], vec![], vec![], vec![]);
        for layer in &self.layers {
            let out = layer.forward(&output, memory, src_mask, tgt_mask)?;
            inputs.push(std::mem::replace(&mut output, out.output));
            self_attention.push(out.self_attention);
            cross_attention.push(out.cross_attention);
            cross_inputs.push(out.cross_input);
        }
        Ok(TransformerDecoderOutput { output, self_attention, cross_attention, inputs, cross_inputs })
    }
}
