//! The sizes of the GRU translator.

use crate::models::translate::check_translator_sizes;
use candle_core::Result;

/// The knobs of the [`GruTranslator`](super::GruTranslator). [`GruTranslatorConfig::new`] takes the
/// two vocabulary sizes; the embeddings default to 64 wide and the hidden state to 128, the sizes
/// of the LSTM translator, so that the two compare like for like.
#[derive(Clone, Debug, PartialEq)]
pub struct GruTranslatorConfig {
    /// Source vocabulary size. No default.
    pub src_vocab: usize,
    /// Target vocabulary size, the width of the logits. No default.
    pub tgt_vocab: usize,
    /// Width of both embeddings. Default 64.
    pub embed_dim: usize,
    /// Hidden size `H` of both GRUs and of the attention. Default 128.
    pub hidden_dim: usize,
}

impl GruTranslatorConfig {
    pub fn new(src_vocab: usize, tgt_vocab: usize) -> Self {
        GruTranslatorConfig { src_vocab, tgt_vocab, embed_dim: 64, hidden_dim: 128 }
    }

    /// Checks every field, naming it in the error (the public constructor called labels it): each
    /// size at least 1, and each embedding and output layer small enough to make. The constructors
    /// check once; the model keeps the config it was built from, and reads its sizes unchecked
    /// after that.
    pub(crate) fn check(&self) -> Result<()> {
        check_translator_sizes(self.src_vocab, self.tgt_vocab, self.embed_dim, self.hidden_dim)
    }
}
