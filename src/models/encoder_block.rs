//! The blog post's Transformer encoder block: PyTorch's multi-head attention with a key-padding
//! mask, a residual connection, a feed-forward network with dropout, and another residual
//! connection. As the post writes it, the block has no layer normalisation.

use crate::attention::{MhaOutput, PackedMultiheadAttention};
use crate::nn::{Dropout, Linear, Walk, errors_as};
use candle_core::{Result, Tensor};

/// `TransformerEncoderBlock(embed_dim, num_heads, ffn_dim, dropout)`: `attention`
/// (`nn.MultiheadAttention`), and `ffn` = `Linear(E, F)`, ReLU, dropout, `Linear(F, E)`, dropout,
/// named `ffn.0` and `ffn.3` as PyTorch's `nn.Sequential` names them, so a PyTorch block's
/// `state_dict` loads with [`Walk::load_pytorch`].
#[derive(Clone, Debug, Walk)]
pub struct TransformerEncoderBlock {
    pub attention: PackedMultiheadAttention,
    #[walk(rename = "ffn.0")]
    pub ffn_in: Linear,
    #[walk(rename = "ffn.3")]
    pub ffn_out: Linear,
    pub dropout: Dropout,
    /// The attention weights of the last forward pass, `(N, H, L, L)`.
    #[walk(skip)]
    pub weights: Option<Tensor>,
}

impl TransformerEncoderBlock {
    #[errors_as]
    pub fn new(embed_dim: usize, num_heads: usize, ffn_dim: usize, dropout: f64) -> Result<Self> {
        let attention = PackedMultiheadAttention::new(embed_dim, num_heads, dropout)?;
        let ffn_in = Linear::new(embed_dim, ffn_dim)?;
        let ffn_out = Linear::new(ffn_dim, embed_dim)?;
        let dropout = Dropout::new(dropout)?;
        Ok(TransformerEncoderBlock { attention, ffn_in, ffn_out, dropout, weights: None })
    }

    /// `x + attention(x)`, then `x + ffn(x)`.
    ///
    /// # Shapes
    /// - `x`: `(L, N, E)`, sequence first as the post's `nn.MultiheadAttention`
    /// - `key_padding_mask`: optional `(N, L)`, non-zero (`true`) where a token is padding and
    ///   must be ignored (the opposite of the lecture's keep masks)
    /// - returns `(L, N, E)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor, key_padding_mask: Option<&Tensor>) -> Result<Tensor> {
        let MhaOutput { output, weights } = self.attention.forward(x, x, x, key_padding_mask)?;
        self.weights = Some(weights);
        let x = (x + output)?;
        let hidden = crate::nn::relu(&self.ffn_in.forward(&x)?)?;
        let hidden = self.dropout.forward(&hidden)?;
        let ffn = self.dropout.forward(&self.ffn_out.forward(&hidden)?)?;
        x + ffn
    }
}
