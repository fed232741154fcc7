//! The sizes of the GRU translator.

use crate::nn::shape::{MAX_ELEMENTS, error};
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

    /// Checks every field, naming it and `module` (the public constructor called) in the error:
    /// each size at least 1, and each embedding and output layer small enough to make.
    pub(crate) fn check(&self, module: &str) -> Result<()> {
        let fields =
            [("src_vocab", self.src_vocab), ("tgt_vocab", self.tgt_vocab), ("embed_dim", self.embed_dim), ("hidden_dim", self.hidden_dim)];
        if let Some((name, _)) = fields.iter().find(|(_, v)| *v == 0) {
            return Err(error(module, format!("{name} must be at least 1, got 0")));
        }
        for (a, x, b, y) in [
            ("src_vocab", self.src_vocab, "embed_dim", self.embed_dim),
            ("tgt_vocab", self.tgt_vocab, "embed_dim", self.embed_dim),
            ("tgt_vocab", self.tgt_vocab, "hidden_dim", self.hidden_dim),
            ("embed_dim", self.embed_dim, "hidden_dim", self.hidden_dim),
            ("hidden_dim", self.hidden_dim, "hidden_dim", self.hidden_dim),
        ] {
            if x.checked_mul(y).and_then(|p| p.checked_mul(8)).is_none_or(|p| p > MAX_ELEMENTS) {
                return Err(error(
                    module,
                    format!("{a} {x} and {b} {y} make a layer too large (at most {MAX_ELEMENTS} parameters a tensor)"),
                ));
            }
        }
        Ok(())
    }
}
