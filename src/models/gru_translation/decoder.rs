//! The decoder: the lecture's `DecoderAttn` with embeddings and a vocabulary-wide output layer.

use super::config::GruTranslatorConfig;
use crate::attention::Attention;
use crate::nn::shape::Within;
use crate::nn::{Embedding, Gru, Linear, Walk, Walker};
use candle_core::{D, Result, Tensor};

/// `embed` (`nn.Embedding(tgt_vocab, embed_dim)`), `basic_rnn` (`nn.GRU(embed_dim, H)`), `attn`
/// (the lecture's `Attention(H)`: scaled dot product of projected queries and keys, the encoder's
/// states as values) and `out` (`Linear(2H, tgt_vocab)` on `[context; query]`, the lecture's
/// `regression` turned into logits).
///
/// As in the lecture, the GRU reads only the previous token and the context does not feed back
/// into it: the queries of every target position come from one run of the GRU, and teacher
/// forcing needs no loop over time.
#[derive(Clone, Debug)]
pub struct GruAttnDecoder {
    pub embed: Embedding,
    pub basic_rnn: Gru,
    pub attn: Attention,
    pub out: Linear,
}

impl GruAttnDecoder {
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        cfg.check("GruAttnDecoder::new")?;
        let module = "GruAttnDecoder";
        let h = cfg.hidden_dim;
        Ok(GruAttnDecoder {
            embed: Embedding::new(cfg.tgt_vocab, cfg.embed_dim).within(module)?,
            basic_rnn: Gru::new(cfg.embed_dim, h).within(module)?,
            attn: Attention::new(h, None, false).within(module)?,
            out: Linear::new(2 * h, cfg.tgt_vocab).within(module)?,
        })
    }

    /// Runs the GRU over the target prefix from the encoder's final state, lets every output
    /// attend over the source (keys set by `attn.init_keys`), and maps `[context; query]` to
    /// logits.
    ///
    /// # Shapes
    /// - `tgt`: ids `(N, T)`; `hidden`: `(1, N, H)`; `mask`: keep mask `(N, 1, S)` (0 at padding)
    /// - returns the logits `(N, T, V)`; `attn.alphas` holds the weights `(N, T, S)`
    pub fn forward(&mut self, tgt: &Tensor, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        Ok(self.forward_with_hidden(tgt, hidden, mask)?.0)
    }

    /// [`GruAttnDecoder::forward`], with the GRU's hidden state after the last target token (what
    /// decoding carries into the next step).
    ///
    /// # Shapes
    /// - as [`GruAttnDecoder::forward`]; returns the logits `(N, T, V)` and the hidden state `(1, N, H)`
    pub fn forward_with_hidden(&mut self, tgt: &Tensor, hidden: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
        let module = "GruAttnDecoder";
        let embedded = self.embed.forward(tgt).within(module)?;
        let (queries, last) = self.basic_rnn.forward(&embedded, Some(hidden)).within(module)?;
        let context = self.attn.forward(&queries, Some(mask)).within(module)?;
        let joined = Tensor::cat(&[context, queries], D::Minus1).within(module)?;
        Ok((self.out.forward(&joined).within(module)?, last))
    }
}

impl Walk for GruAttnDecoder {
    fn walk(&self, w: &mut Walker) {
        w.child("embed", &self.embed);
        w.child("basic_rnn", &self.basic_rnn);
        w.child("attn", &self.attn);
        w.child("out", &self.out);
    }
}
