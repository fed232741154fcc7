//! The encoder: embeddings, then the lecture's GRU, its final state read at each true length.

use super::config::GruTranslatorConfig;
use crate::nn::shape::{error, in_module, shape_error};
use crate::nn::{Embedding, Gru, Walk, Walker};
use candle_core::{Result, Tensor};

/// `embed` (`nn.Embedding(src_vocab, embed_dim)`) and `basic_rnn` (`nn.GRU(embed_dim, H)`, batch
/// first), the lecture's `Encoder` given token ids instead of coordinates.
#[derive(Clone, Debug)]
pub struct GruEncoder {
    pub embed: Embedding,
    pub basic_rnn: Gru,
}

impl GruEncoder {
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        cfg.check("GruEncoder::new")?;
        let build = || -> Result<Self> {
            Ok(GruEncoder { embed: Embedding::new(cfg.src_vocab, cfg.embed_dim)?, basic_rnn: Gru::new(cfg.embed_dim, cfg.hidden_dim)? })
        };
        in_module("GruEncoder", build())
    }

    /// Encodes a batch padded at the end. Each sentence stops at its last real token
    /// ([`Gru::forward_padded`]): its states at the real tokens are those of the sentence alone,
    /// the final state is the one at its last real token, and the padding costs no steps.
    ///
    /// # Shapes
    /// - `src`: ids `(N, S)`; `lengths`: the `N` real lengths, each in `1..=S`
    /// - returns the states `(N, S, H)` (zero at padding) and the final hidden state `(1, N, H)`
    pub fn forward(&self, src: &Tensor, lengths: &[usize]) -> Result<(Tensor, Tensor)> {
        let run = || -> Result<(Tensor, Tensor)> {
            let (n, s) = match src.dims() {
                &[n, s] => (n, s),
                d => return Err(shape_error("GruEncoder", "source ids (N, S)", d)),
            };
            if lengths.len() != n {
                return Err(error("GruEncoder", format!("{} lengths for a batch of {n}", lengths.len())));
            }
            if let Some(k) = lengths.iter().position(|&l| l == 0 || l > s) {
                return Err(error("GruEncoder", format!("length {} of sentence {k} is not in 1..={s}", lengths[k])));
            }
            self.basic_rnn.forward_padded(&self.embed.forward(src)?, lengths, None)
        };
        in_module("GruEncoder", run())
    }
}

impl Walk for GruEncoder {
    fn walk(&self, w: &mut Walker) {
        w.child("embed", &self.embed);
        w.child("basic_rnn", &self.basic_rnn);
    }
}
