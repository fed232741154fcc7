//! The lecture's GRU encoder-decoder with attention, made a translator: embeddings in front of
//! both GRUs, the encoder's final state read at each sentence's true length, padding masked out of
//! the attention, and logits over the target vocabulary. Notebook 05 compares it with the blog
//! post's LSTM translators and the Transformer.

pub(crate) mod config;
pub(crate) mod decoder;
pub(crate) mod encoder;
pub(crate) mod model;

pub use config::GruTranslatorConfig;
pub use decoder::GruAttnDecoder;
pub use encoder::GruEncoder;
pub use model::{GruState, GruTranslator};
