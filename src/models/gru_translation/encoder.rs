//! The encoder: embeddings, then the lecture's GRU, its final state read at each true length.

use super::config::GruTranslatorConfig;
use crate::nn::shape::{Within, error, shape_error};
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
        let module = "GruEncoder";
        let embed = Embedding::new(cfg.src_vocab, cfg.embed_dim).within(module)?;
        let basic_rnn = Gru::new(cfg.embed_dim, cfg.hidden_dim).within(module)?;
        Ok(GruEncoder { embed, basic_rnn })
    }

    /// Encodes a batch padded at the end. Each sentence stops at its last real token
    /// ([`Gru::forward_padded`]): its states at the real tokens are those of the sentence alone,
    /// the final state is the one at its last real token, and the padding costs no steps.
    ///
    /// # Shapes
    /// - `src`: ids `(N, S)`; `lengths`: the `N` real lengths, each in `1..=S`
    /// - returns the states `(N, S, H)` (zero at padding) and the final hidden state `(1, N, H)`
    pub fn forward(&self, src: &Tensor, lengths: &[usize]) -> Result<(Tensor, Tensor)> {
        let module = "GruEncoder";
        let (n, s) = match src.dims() {
            &[n, s] => (n, s),
            d => return Err(shape_error(module, "source ids (N, S)", d)),
        };
        if lengths.len() != n {
            return Err(error(module, format!("{} lengths for a batch of {n}", lengths.len())));
        }
        if let Some(k) = lengths.iter().position(|&l| l == 0 || l > s) {
            return Err(error(module, format!("length {} of sentence {k} is not in 1..={s}", lengths[k])));
        }
        let embedded = self.embed.forward(src).within(module)?;
        self.basic_rnn.forward_padded(&embedded, lengths, None).within(module)
    }
}

impl Walk for GruEncoder {
    fn walk(&self, w: &mut Walker) {
        w.child("embed", &self.embed);
        w.child("basic_rnn", &self.basic_rnn);
    }
}
