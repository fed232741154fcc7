//! Attention: scoring functions and alphas as small pure functions, masks, the lecture's
//! `Attention` head, its wide multi-head attention, the blog post's attention layer and the
//! sinusoidal positional encoding; and the Transformer lecture's pieces: additive masks, the
//! narrow multi-head attention and its vectorised form.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `H` (or `d_k`)
//! hidden units.

pub mod additive_mask;
pub mod head;
pub mod layer;
pub mod mask;
pub mod multi_head;
pub mod narrow;
pub mod packed;
pub mod positional;
pub mod score;
pub mod vectorised;

pub use additive_mask::{check_additive_mask, create_mask, padding_mask, scaled_dot_product_attention_additive, target_mask};
pub use head::Attention;
pub use layer::AttentionLayer;
pub use mask::{MASK_FILL, source_mask, subsequent_mask};
pub use multi_head::MultiHeadAttention;
pub use narrow::{MhaOutput, NarrowMultiHeadAttention};
pub use packed::{PackedMultiheadAttention, key_padding_to_additive};
pub use positional::{PositionalEncoding, positional_encoding_table};
pub use score::{
    Score, calc_alphas, context_vector, cosine_products, dot_products, scaled_dot_product_attention, scaled_dot_products, uniform_alphas,
};
pub use vectorised::VectorisedMultiHeadAttention;
