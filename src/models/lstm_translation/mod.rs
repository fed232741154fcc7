//! The blog post's LSTM translation models: an embedding and LSTM encoder (optionally
//! bidirectional over padded batches), and a decoder that attends over the encoder's outputs with
//! its previous hidden state and feeds `[embedding; context]` to an `LstmCell` at every step.

pub(crate) mod config;
pub(crate) mod decoder;
pub(crate) mod encoder;
pub(crate) mod model;

pub use config::LstmTranslatorConfig;
pub use decoder::AttnLstmDecoder;
pub use encoder::LstmEncoder;
pub use model::{LstmState, LstmTranslator};
