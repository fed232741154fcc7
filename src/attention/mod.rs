//! Attention: scoring functions and alphas as small pure functions, masks, the lecture's
//! `Attention` head, its wide multi-head attention, the blog post's attention layer and the
//! sinusoidal positional encoding.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `H` (or `d_k`)
//! hidden units.

pub mod head;
pub mod layer;
pub mod mask;
pub mod multi_head;
pub mod positional;
pub mod score;

pub use head::Attention;
pub use layer::AttentionLayer;
pub use mask::{MASK_FILL, source_mask, subsequent_mask};
pub use multi_head::MultiHeadAttention;
pub use positional::{PositionalEncoding, positional_encoding_table};
pub use score::{
    Score, calc_alphas, context_vector, cosine_products, dot_products, scaled_dot_product_attention, scaled_dot_products, uniform_alphas,
};
