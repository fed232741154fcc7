//! Attention: scoring functions and alphas as small pure functions, masks, the lecture's
//! `Attention` head, its wide multi-head attention, the blog post's attention layer and the
//! sinusoidal positional encoding; and the Transformer lecture's pieces: additive masks, the
//! narrow multi-head attention and its vectorised form.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `H` (or `d_k`)
//! hidden units.

pub(crate) mod additive_mask;
pub(crate) mod head;
pub(crate) mod kv;
pub(crate) mod layer;
pub(crate) mod mask;
pub(crate) mod multi_head;
pub(crate) mod narrow;
pub(crate) mod packed;
pub(crate) mod positional;
pub(crate) mod score;
pub(crate) mod terms;
pub(crate) mod unused_weights;
#[cfg(test)]
mod unused_weights_tests;
pub(crate) mod vectorised;

pub use additive_mask::{check_additive_mask, create_mask, padding_mask, scaled_dot_product_attention_additive, target_mask};
pub use head::Attention;
pub use kv::ProjectedKv;
pub(crate) use kv::{select_rows_transposed, transposed_in_memory};
pub use layer::AttentionLayer;
pub use mask::{MASK_FILL, source_mask, subsequent_mask};
pub use multi_head::MultiHeadAttention;
pub use narrow::{MhaOutput, NarrowMultiHeadAttention};
pub use packed::{PackedMultiheadAttention, key_padding_to_additive};
pub use positional::{PositionalEncoding, positional_encoding_table};
pub use score::{
    Score, calc_alphas, context_vector, cosine_products, dot_products, scaled_dot_product_attention, scaled_dot_products, uniform_alphas,
};
pub use terms::ScoreTerms;
pub use vectorised::VectorisedMultiHeadAttention;
