//! The decoder: the lecture's `DecoderAttn` with embeddings and a vocabulary-wide output layer.

use super::config::GruTranslatorConfig;
use crate::attention::Attention;
use crate::nn::{Embedding, Gru, Linear, Walk, errors_as};
use candle_core::{D, Result, Tensor};

/// `embed` (`nn.Embedding(tgt_vocab, embed_dim)`), `basic_rnn` (`nn.GRU(embed_dim, H)`), `attn`
/// (the lecture's `Attention(H)`: scaled dot product of projected queries and keys, the encoder's
/// states as values) and `out` (`Linear(2H, tgt_vocab)` on `[context; query]`, the lecture's
/// `regression` turned into logits).
///
/// As in the lecture, the GRU reads only the previous token and the context does not feed back
/// into it: the queries of every target position come from one run of the GRU, and teacher
/// forcing needs no loop over time.
#[derive(Clone, Debug, Walk)]
pub struct GruAttnDecoder {
    pub embed: Embedding,
    pub basic_rnn: Gru,
    pub attn: Attention,
    pub out: Linear,
}

impl GruAttnDecoder {
    /// Checks `cfg`, then builds the layers (`GruAttnDecoder::build`).
    #[errors_as("GruAttnDecoder::new")]
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        Self::build(cfg)
    }

    /// The layers of a checked config (the translator's constructor checks it once for the
    /// encoder and the decoder). Sizes that passed the check make every layer.
    pub(crate) fn build(cfg: &GruTranslatorConfig) -> Result<Self> {
        let h = cfg.hidden_dim;
        Ok(GruAttnDecoder {
            embed: Embedding::new(cfg.tgt_vocab, cfg.embed_dim)?,
            basic_rnn: Gru::new(cfg.embed_dim, h)?,
            attn: Attention::new(h, None, false)?,
            out: Linear::new(2 * h, cfg.tgt_vocab)?,
        })
    }

    /// Runs the GRU over the target prefix from the encoder's final state, lets every output
    /// attend over the source (keys set by `attn.init_keys`), and maps `[context; query]` to
    /// logits.
    ///
    /// # Shapes
    /// - `tgt`: ids `(N, T)`; `hidden`: `(1, N, H)`; `mask`: keep mask `(N, 1, S)` (0 at padding)
    /// - returns the logits `(N, T, V)`; `attn.alphas` holds the weights `(N, T, S)`
    #[errors_as]
    pub fn forward(&mut self, tgt: &Tensor, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        Ok(self.forward_with_hidden(tgt, hidden, mask)?.0)
    }

    /// [`GruAttnDecoder::forward`], with the GRU's hidden state after the last target token (what
    /// decoding carries into the next step).
    ///
    /// # Shapes
    /// - as [`GruAttnDecoder::forward`]; returns the logits `(N, T, V)` and the hidden state `(1, N, H)`
    #[errors_as("GruAttnDecoder")]
    pub fn forward_with_hidden(&mut self, tgt: &Tensor, hidden: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
        let embedded = self.embed.forward(tgt)?;
        let (queries, last) = self.basic_rnn.forward(&embedded, Some(hidden))?;
        let context = self.attn.forward(&queries, Some(mask))?;
        let joined = Tensor::cat(&[context, queries], D::Minus1)?;
        Ok((self.out.forward(&joined)?, last))
    }
}
