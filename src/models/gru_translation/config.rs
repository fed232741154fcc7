//! The sizes of the GRU translator.

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
}
