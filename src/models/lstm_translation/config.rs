//! The sizes of the LSTM translator.

use crate::models::translate::check_translator_sizes;
use crate::nn::shape::invalid;
use candle_core::Result;

/// The knobs of the [`LstmTranslator`](super::LstmTranslator). [`LstmTranslatorConfig::new`] takes
/// the two vocabulary sizes; the rest default to an embedding of 64, a hidden state of 128 and a
/// one-directional encoder.
#[derive(Clone, Debug, PartialEq)]
pub struct LstmTranslatorConfig {
    /// Source vocabulary size. No default.
    pub src_vocab: usize,
    /// Target vocabulary size, the width of the logits. No default.
    pub tgt_vocab: usize,
    /// Width of both embeddings. Default 64.
    pub embed_dim: usize,
    /// The decoder's hidden size `H`, and the width of the encoder's outputs. Default 128.
    pub hidden_dim: usize,
    /// A bidirectional encoder: each direction then has `H / 2` units, so that its outputs and its
    /// two final states side by side are `H` wide and fit the decoder (the blog post feeds 2H-wide
    /// states to an H-wide decoder; we size the directions instead of adding a projection).
    /// `hidden_dim` must then be even. Default `false`.
    pub bidirectional: bool,
}

impl LstmTranslatorConfig {
    pub fn new(src_vocab: usize, tgt_vocab: usize) -> Self {
        LstmTranslatorConfig { src_vocab, tgt_vocab, embed_dim: 64, hidden_dim: 128, bidirectional: false }
    }

    /// Checks every field, naming it in the error (the public constructor called labels it): each
    /// size at least 1, each embedding and output layer small enough to make, and an even
    /// `hidden_dim` for a bidirectional encoder. The constructors check once; the model keeps the
    /// config it was built from, and reads its sizes unchecked after that.
    pub(crate) fn check(&self) -> Result<()> {
        check_translator_sizes(self.src_vocab, self.tgt_vocab, self.embed_dim, self.hidden_dim)?;
        if self.bidirectional && !self.hidden_dim.is_multiple_of(2) {
            return Err(invalid(format!("bidirectional needs an even hidden_dim, got {}", self.hidden_dim)));
        }
        Ok(())
    }
}
