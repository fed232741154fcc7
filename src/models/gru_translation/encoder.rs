//! The encoder: embeddings, then the lecture's GRU, its final state read at each true length.

use super::config::GruTranslatorConfig;
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Embedding, Gru, Walk, errors_as};
use candle_core::{Result, Tensor};

/// `embed` (`nn.Embedding(src_vocab, embed_dim)`) and `basic_rnn` (`nn.GRU(embed_dim, H)`, batch
/// first), the lecture's `Encoder` given token ids instead of coordinates.
#[derive(Clone, Debug, Walk)]
pub struct GruEncoder {
    pub embed: Embedding,
    pub basic_rnn: Gru,
}

impl GruEncoder {
    /// Checks `cfg`, then builds the layers (`GruEncoder::build`).
    #[errors_as("GruEncoder::new")]
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        Self::build(cfg)
    }

    /// The embedding and the GRU of a checked config (the translator's constructor checks it once
    /// for the encoder and the decoder). Sizes that passed the check make every layer.
    pub(crate) fn build(cfg: &GruTranslatorConfig) -> Result<Self> {
        let embed = Embedding::new(cfg.src_vocab, cfg.embed_dim)?;
        let basic_rnn = Gru::new(cfg.embed_dim, cfg.hidden_dim)?;
        Ok(GruEncoder { embed, basic_rnn })
    }

    /// Encodes a batch padded at the end. Each sentence stops at its last real token
    /// ([`Gru::forward_padded`]): its states at the real tokens are those of the sentence alone,
    /// the final state is the one at its last real token, and the padding costs no steps.
    ///
    /// # Shapes
    /// - `src`: ids `(N, S)`; `lengths`: the `N` real lengths, each in `1..=S`
    /// - returns the states `(N, S, H)` (zero at padding) and the final hidden state `(1, N, H)`
    #[errors_as]
    pub fn forward(&self, src: &Tensor, lengths: &[usize]) -> Result<(Tensor, Tensor)> {
        check_lengths(src, lengths)?;
        let embedded = self.embed.forward(src)?;
        self.basic_rnn.forward_padded(&embedded, lengths, None)
    }
}

/// Checks source ids `(N, S)` and their `N` lengths, each in `1..=S`.
fn check_lengths(src: &Tensor, lengths: &[usize]) -> Result<()> {
    let (n, s) = match src.dims() {
        &[n, s] => (n, s),
        d => return Err(invalid_shape("source ids (N, S)", d)),
    };
    if lengths.len() != n {
        return Err(invalid(format!("{} lengths for a batch of {n}", lengths.len())));
    }
    if let Some(k) = lengths.iter().position(|&l| l == 0 || l > s) {
        return Err(invalid(format!("length {} of sentence {k} is not in 1..={s}", lengths[k])));
    }
    Ok(())
}
