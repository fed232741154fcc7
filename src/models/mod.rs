//! The lecture's models, one file per family: the GRU encoder-decoder (part 1), the attention
//! decoder (part 2), the self-attention encoder-decoder (part 3) and the Transformer.

pub mod attention_decoder;
pub mod encoder_block;
pub mod gru_translation;
pub mod lstm_translation;
pub mod self_attention;
pub mod seq2seq;
pub mod transformer;
pub mod translate;

pub use attention_decoder::{DecoderAttn, EncoderDecoderAttn};
pub use encoder_block::TransformerEncoderBlock;
pub use gru_translation::{GruAttnDecoder, GruEncoder, GruTranslator, GruTranslatorConfig};
pub use lstm_translation::{AttnLstmDecoder, LstmEncoder, LstmTranslator, LstmTranslatorConfig};
pub use self_attention::{
    DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn, SelfAttnConfig, SelfAttnDecoder, SelfAttnEncoder,
    WithPe, shifted_target,
};
pub use seq2seq::{Decoder, Encoder, EncoderDecoder, StepDecoder, teacher_forcing};
pub use transformer::{
    AddNorm, AttentionMaps, DecoderLayer, Embeddings, EncoderLayer, HeadLayout, LayerAttention, PointwiseFeedforward, Transformer,
    TransformerConfig, TransformerDecoder, TransformerEncoder, TransformerPositionalEncoding, TransformerState, transformer_encoding_table,
};
pub use translate::{PAD_ID, SentenceAttention, Translate, source_lengths};
