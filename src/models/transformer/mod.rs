//! The Transformer of the Transformer lecture, completed: the sub-layers it builds (`AddNorm`,
//! the position-wise feed-forward network), the encoder layer, the decoder layer it leaves empty,
//! the stacks, the embeddings and positional encoding, and the full model.
//!
//! Shapes: `N` sequences, `S` source tokens, `T` target tokens, `D` (`d_model`) model
//! dimensions, `V` the target vocabulary.

pub(crate) mod cache;
pub(crate) mod config;
pub(crate) mod embeddings;
pub(crate) mod layers;
pub(crate) mod mha;
pub(crate) mod model;
pub(crate) mod stacks;
pub(crate) mod sublayers;
pub(crate) mod terms;
pub(crate) mod translate;

pub use cache::DecoderCache;
pub use config::{HeadLayout, TransformerConfig};
pub use embeddings::{Embeddings, TransformerPositionalEncoding, transformer_encoding_table};
pub use layers::{DecoderLayer, DecoderLayerOutput, EncoderLayer, EncoderLayerOutput};
pub use mha::LayerAttention;
pub use model::{Transformer, TransformerOutput, xavier_uniform};
pub use stacks::{TransformerDecoder, TransformerDecoderOutput, TransformerEncoder, TransformerEncoderOutput};
pub use sublayers::{AddNorm, PointwiseFeedforward};
pub use translate::TransformerState;
