//! The encoder: embeddings, then an LSTM over the padded batch.

use super::config::LstmTranslatorConfig;
use crate::nn::shape::{Within, error};
use crate::nn::{Embedding, Lstm, Walk, Walker};
use candle_core::{Result, Tensor};

/// `embed` (`nn.Embedding(src_vocab, embed_dim)`) and `rnn` (`nn.LSTM`, batch first; two
/// directions of `H / 2` units when bidirectional).
#[derive(Clone, Debug)]
pub struct LstmEncoder {
    pub embed: Embedding,
    pub rnn: Lstm,
}

impl LstmEncoder {
    pub fn new(cfg: &LstmTranslatorConfig) -> Result<Self> {
        cfg.check("LstmEncoder::new")?;
        let module = "LstmEncoder";
        if cfg.bidirectional && !cfg.hidden_dim.is_multiple_of(2) {
            return Err(error(module, format!("a bidirectional encoder needs an even hidden_dim, got {}", cfg.hidden_dim)));
        }
        let units = if cfg.bidirectional { cfg.hidden_dim / 2 } else { cfg.hidden_dim };
        Ok(LstmEncoder {
            embed: Embedding::new(cfg.src_vocab, cfg.embed_dim).within(module)?,
            rnn: Lstm::with_layers(cfg.embed_dim, units, 1, cfg.bidirectional).within(module)?,
        })
    }

    /// Encodes a padded batch.
    ///
    /// # Shapes
    /// - `src`: ids `(N, S)`; `lengths`: the `N` real lengths (padding after them)
    /// - returns the outputs `(N, S, H)` (zero at padding) and the final `(h, c)`, each `(N, H)`
    ///   (both directions side by side when bidirectional)
    pub fn forward(&self, src: &Tensor, lengths: &[usize]) -> Result<(Tensor, (Tensor, Tensor))> {
        let module = "LstmEncoder";
        let embedded = self.embed.forward(src).within(module)?;
        let (out, (h, c)) = self.rnn.forward_padded(&embedded, lengths, None).within(module)?;
        Ok((out, (side_by_side(&h).within(module)?, side_by_side(&c).within(module)?)))
    }
}

/// A final state `(dirs, N, H / dirs)` as `(N, H)`: the directions side by side.
fn side_by_side(s: &Tensor) -> Result<Tensor> {
    Tensor::cat(&(0..s.dim(0)?).map(|k| s.get(k)).collect::<Result<Vec<_>>>()?, 1)
}

impl Walk for LstmEncoder {
    fn walk(&self, w: &mut Walker) {
        w.child("embed", &self.embed);
        w.child("rnn", &self.rnn);
    }
}
