//! The encoder: embeddings, then an LSTM over the padded batch.

use super::config::LstmTranslatorConfig;
use crate::nn::{Embedding, Lstm, Walk, errors_as};
use candle_core::{Result, Tensor};

/// `embed` (`nn.Embedding(src_vocab, embed_dim)`) and `rnn` (`nn.LSTM`, batch first; two
/// directions of `H / 2` units when bidirectional).
#[derive(Clone, Debug, Walk)]
pub struct LstmEncoder {
    pub embed: Embedding,
    pub rnn: Lstm,
}

impl LstmEncoder {
    /// Checks `cfg`, then builds the layers (`LstmEncoder::build`).
    #[errors_as("LstmEncoder::new")]
    pub fn new(cfg: &LstmTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        Self::build(cfg)
    }

    /// The embedding and the LSTM of a checked config (the translator's constructor checks it
    /// once for the encoder and the decoder). Sizes that passed the check make every layer.
    pub(crate) fn build(cfg: &LstmTranslatorConfig) -> Result<Self> {
        let units = if cfg.bidirectional { cfg.hidden_dim / 2 } else { cfg.hidden_dim };
        let embed = Embedding::new(cfg.src_vocab, cfg.embed_dim)?;
        let rnn = Lstm::with_layers(cfg.embed_dim, units, 1, cfg.bidirectional)?;
        Ok(LstmEncoder { embed, rnn })
    }

    /// Encodes a padded batch.
    ///
    /// # Shapes
    /// - `src`: ids `(N, S)`; `lengths`: the `N` real lengths (padding after them)
    /// - returns the outputs `(N, S, H)` (zero at padding) and the final `(h, c)`, each `(N, H)`
    ///   (both directions side by side when bidirectional)
    #[errors_as]
    pub fn forward(&self, src: &Tensor, lengths: &[usize]) -> Result<(Tensor, (Tensor, Tensor))> {
        let embedded = self.embed.forward(src)?;
        let (out, (h, c)) = self.rnn.forward_padded(&embedded, lengths, None)?;
        Ok((out, (side_by_side(&h)?, side_by_side(&c)?)))
    }
}

/// A final state `(dirs, N, H / dirs)` as `(N, H)`: the directions side by side.
fn side_by_side(s: &Tensor) -> Result<Tensor> {
    Tensor::cat(&(0..s.dim(0)?).map(|k| s.get(k)).collect::<Result<Vec<_>>>()?, 1)
}
