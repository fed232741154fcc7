//! The lecture's models, one file per family: the GRU encoder-decoder (part 1), the attention
//! decoder (part 2), the self-attention encoder-decoder (part 3) and the Transformer; the blog
//! post's translators and encoder block; and the [`Translate`] contract every translator
//! implements in its own folder.
//!
//! # Which forwards return what they compute, and which store it
//!
//! - **Return**: the Transformer's attention ([`MhaOutput`](crate::attention::MhaOutput)), layers
//!   ([`EncoderLayerOutput`], [`DecoderLayerOutput`]), stacks ([`TransformerEncoderOutput`],
//!   [`TransformerDecoderOutput`]) and [`Transformer::forward_with_attention`]
//!   ([`TransformerOutput`]): their forwards take `&self` and keep nothing.
//! - **Store**: the lecture's own models keep what the lecture reads from them after a call:
//!   `Attention` its keys (`init_keys`) and `alphas`, `DecoderAttn` through it
//!   (`model.decoder.attn.alphas`), `EncoderDecoder` its `outputs` and `alphas`, the
//!   self-attention heads their `alphas`; the notebooks mirror the lecture's cells, so these stay
//!   fields. The GRU translator reuses the lecture's `Attention` and so sets its keys before
//!   decoding; the recurrent translators and the blog's `TransformerEncoderBlock` keep the
//!   weights of their last call for the notebook's plots.

pub(crate) mod attention_decoder;
pub(crate) mod encoder_block;
pub(crate) mod gru_translation;
pub(crate) mod lstm_translation;
pub(crate) mod recurrent_translate;
pub(crate) mod self_attention;
pub(crate) mod seq2seq;
pub(crate) mod special_ids;
pub(crate) mod transformer;
pub(crate) mod translate;

pub use attention_decoder::{DecoderAttn, EncoderDecoderAttn};
pub use encoder_block::TransformerEncoderBlock;
pub use gru_translation::{GruAttnDecoder, GruEncoder, GruState, GruTranslator, GruTranslatorConfig};
pub use lstm_translation::{AttnLstmDecoder, LstmEncoder, LstmState, LstmTranslator, LstmTranslatorConfig};
pub use recurrent_translate::{RecurrentState, RecurrentTranslate};
pub use self_attention::{
    DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn, SelfAttnConfig, SelfAttnDecoder, SelfAttnEncoder,
    WithPe, shifted_target,
};
pub use seq2seq::{Decoder, Encoder, EncoderDecoder, StepDecoder, teacher_forcing};
pub use special_ids::{EOS_ID, PAD_ID, SOS_ID, UNK_ID};
pub use transformer::{
    AddNorm, DecoderCache, DecoderLayer, DecoderLayerOutput, Embeddings, EncoderLayer, EncoderLayerOutput, HeadLayout, LayerAttention,
    PointwiseFeedforward, Transformer, TransformerConfig, TransformerDecoder, TransformerDecoderOutput, TransformerEncoder,
    TransformerEncoderOutput, TransformerOutput, TransformerPositionalEncoding, TransformerState, transformer_encoding_table,
    xavier_uniform,
};
pub use translate::{AttentionMaps, SentenceAttention, SentenceTerms, TermMaps, Translate, source_lengths};
