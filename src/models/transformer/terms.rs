//! The score terms of a Transformer's pass, every layer and head of its three attentions: what
//! the explorer's neuron view shows.

use super::model::{Passes, Transformer, check_pair};
use crate::models::translate::TermMaps;
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::{Result, Tensor};

impl Transformer {
    /// [`Transformer::forward_with_attention`]'s pass (the masks made from the ids), with the
    /// terms of every score: each layer's queries and keys projected by its own heads from that
    /// layer's inputs in the pass, their dot products, the scores and the weights the pass gave.
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`; `tgt`: target ids `(N, T)`, the same `N > 0`
    /// - returns per layer the terms of `(N, n_heads, S, S)`, `(N, n_heads, T, T)` and `(N, n_heads, T, S)` scores
    #[errors_as]
    pub fn score_terms(&self, src: &Tensor, tgt: &Tensor) -> Result<TermMaps> {
        if check_pair(src, tgt)?.0 == 0 {
            return Err(invalid("an empty batch has no scores to show the terms of"));
        }
        let Passes { encoded, decoded, src_mask, tgt_mask, .. } = self.passes(src, tgt, None, None)?;
        let (memory, src_mask) = (&encoded.memory, src_mask.as_ref());
        let encoder_self = (self.encoder.layers.iter().zip(&encoded.inputs).zip(&encoded.self_attention))
            .map(|((layer, x), w)| layer.mha.score_terms(x, x, src_mask, w))
            .collect::<Result<_>>()?;
        let decoder_self = (self.decoder.layers.iter().zip(&decoded.inputs).zip(&decoded.self_attention))
            .map(|((layer, x), w)| layer.masked_mha.score_terms(x, x, Some(&tgt_mask), w))
            .collect::<Result<_>>()?;
        let cross = (self.decoder.layers.iter().zip(&decoded.cross_inputs).zip(&decoded.cross_attention))
            .map(|((layer, x), w)| layer.cross_mha.score_terms(x, memory, src_mask, w))
            .collect::<Result<_>>()?;
        Ok(TermMaps { encoder_self, decoder_self, cross })
    }
}
