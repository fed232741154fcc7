//! The hyperparameters of the Transformer, in one place.

use crate::models::special_ids::{PAD_ID, check_pad_id};
use candle_core::Result;

/// How the multi-head attention of every layer lays out its heads (the two give the same
/// numbers for the same weights; they differ in parameters' names and in speed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeadLayout {
    /// The lecture's [`NarrowMultiHeadAttention`](crate::attention::NarrowMultiHeadAttention):
    /// per head a `Linear(d_model, d_model / n_heads)` each for queries, keys and values.
    #[default]
    Narrow,
    /// The blog post's [`VectorisedMultiHeadAttention`](crate::attention::VectorisedMultiHeadAttention):
    /// one `Linear(d_model, d_model)` each, heads split by reshape and transpose (faster).
    Vectorised,
}

/// The knobs of the [`Transformer`](super::Transformer) and of its
/// [`TransformerEncoder`](super::TransformerEncoder) and [`TransformerDecoder`](super::TransformerDecoder).
/// [`TransformerConfig::new`] takes the two vocabulary sizes and gives every other knob its
/// default: the lecture's (`d_model` 512, 8 heads, `d_ff` 2048, 6 layers, dropout 0.3 as its
/// `P_DROP`, `max_len` 5000), with id 0 as padding.
///
/// ```
/// use attention_zoo::prelude::*;
/// # fn main() -> Result<()> {
/// let cfg = TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 2, ..TransformerConfig::new(11, 13) };
/// manual_seed(0)?;
/// let model = Transformer::from_config(&cfg)?;
/// assert_eq!(model.encoder.layers.len(), 2);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TransformerConfig {
    /// The model's width `D`: embeddings, attention and every layer's output. Default 512.
    pub d_model: usize,
    /// Attention heads; must divide `d_model`. Default 8.
    pub n_heads: usize,
    /// Hidden units of the position-wise feed-forward networks. Default 2048.
    pub d_ff: usize,
    /// Encoder layers, and decoder layers. Default 6.
    pub n_layers: usize,
    /// The dropout probability of every dropout (attention outputs, AddNorm, feed-forward,
    /// positional encoding). Default 0.3, the lecture's `P_DROP`.
    pub dropout: f64,
    /// Source vocabulary size (ids `0..src_vocab`). No default: [`TransformerConfig::new`] takes it.
    pub src_vocab: usize,
    /// Target vocabulary size (ids `0..tgt_vocab`), the width of the logits. No default.
    pub tgt_vocab: usize,
    /// The longest sequence the positional encodings cover. Default 5000.
    pub max_len: usize,
    /// The padding id: [`Transformer::forward`](super::Transformer::forward) masks it out when no
    /// masks are given. `None`: no padding. Default `Some(0)`.
    pub pad_id: Option<u32>,
    /// The layout of the attention heads. Default [`HeadLayout::Narrow`], the lecture's.
    pub heads: HeadLayout,
    /// After PyTorch's default initialisation, draw every matrix again (embeddings included) with
    /// `nn.init.xavier_uniform_`, in parameter order, as the Annotated Transformer does. The
    /// lecture's model keeps PyTorch's defaults: embeddings drawn from N(0, 1) and then scaled by
    /// `sqrt(d_model)` swamp the positional encodings and train slowly; Xavier's bound
    /// `sqrt(6 / (fan_in + fan_out))` keeps them small. Default `false`, the lecture's.
    pub xavier_init: bool,
}

impl TransformerConfig {
    /// The translator of notebook 04, small enough to train on two CPU cores in minutes:
    /// `d_model` 64, 4 heads, `d_ff` 128, 2 layers, no dropout, `max_len` 64, vectorised heads
    /// and Xavier initialisation; the rest as [`TransformerConfig::new`].
    pub fn small(src_vocab: usize, tgt_vocab: usize) -> Self {
        TransformerConfig {
            d_model: 64,
            n_heads: 4,
            d_ff: 128,
            n_layers: 2,
            dropout: 0.0,
            max_len: 64,
            heads: HeadLayout::Vectorised,
            xavier_init: true,
            ..Self::new(src_vocab, tgt_vocab)
        }
    }

    /// The defaults, with the two vocabulary sizes.
    pub fn new(src_vocab: usize, tgt_vocab: usize) -> Self {
        TransformerConfig {
            d_model: 512,
            n_heads: 8,
            d_ff: 2048,
            n_layers: 6,
            dropout: 0.3,
            src_vocab,
            tgt_vocab,
            max_len: 5000,
            pad_id: Some(PAD_ID),
            heads: HeadLayout::Narrow,
            xavier_init: false,
        }
    }

    /// What the model relies on and the layers' own constructors do not check: the padding id,
    /// where there is one, is a token of both vocabularies. [`Transformer::from_config`](super::Transformer::from_config)
    /// runs it once and keeps the config; the model's passes then take it as checked. (The sizes
    /// and the heads are checked by the constructors that use them, once, as the model is built.)
    pub(crate) fn validate(&self) -> Result<()> {
        if let Some(pad) = self.pad_id {
            check_pad_id(pad, "source", self.src_vocab)?;
            check_pad_id(pad, "target", self.tgt_vocab)?;
        }
        Ok(())
    }
}
