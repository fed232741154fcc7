//! The lecture's self-attention encoder-decoder: the encoder and decoder layers, positional
//! encoding in front of them, and the encoder-decoder that trains on the whole shifted target.
//!
//! Shapes: `N` sequences, `L` source steps, `Lt` target steps, `F` features, `D` (`d_model`)
//! model dimensions.

pub(crate) mod config;
pub(crate) mod encoder_decoder;
pub(crate) mod layers;
pub(crate) mod with_pe;

pub use config::SelfAttnConfig;
pub use encoder_decoder::{EncoderDecoderSelfAttn, shifted_target};
pub use layers::{DecoderSelfAttn, EncoderSelfAttn, SelfAttnDecoder, SelfAttnEncoder};
pub use with_pe::{DecoderPe, EncoderPe, WithPe};
