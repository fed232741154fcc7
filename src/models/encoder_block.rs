//! The blog post's Transformer encoder block: PyTorch's multi-head attention with a key-padding
//! mask, a residual connection, a feed-forward network with dropout, and another residual
//! connection. As the post writes it, the block has no layer normalisation.

use crate::attention::{MhaOutput, PackedMultiheadAttention};
use crate::nn::shape::Within;
use crate::nn::{Dropout, Linear, Walk, Walker};
use candle_core::{Result, Tensor};

/// `TransformerEncoderBlock(embed_dim, num_heads, ffn_dim, dropout)`: `attention`
/// (`nn.MultiheadAttention`), and `ffn` = `Linear(E, F)`, ReLU, dropout, `Linear(F, E)`, dropout,
/// named `ffn.0` and `ffn.3` as PyTorch's `nn.Sequential` names them, so a PyTorch block's
/// `state_dict` loads with [`Walk::load_pytorch`].
#[derive(Clone, Debug)]
pub struct TransformerEncoderBlock {
    pub attention: PackedMultiheadAttention,
    pub ffn_in: Linear,
    pub ffn_out: Linear,
    pub dropout: Dropout,
    /// The attention weights of the last forward pass, `(N, H, L, L)`.
    pub weights: Option<Tensor>,
}

impl TransformerEncoderBlock {
    pub fn new(embed_dim: usize, num_heads: usize, ffn_dim: usize, dropout: f64) -> Result<Self> {
        let module = "TransformerEncoderBlock";
        let attention = PackedMultiheadAttention::new(embed_dim, num_heads, dropout).within(module)?;
        let ffn_in = Linear::new(embed_dim, ffn_dim).within(module)?;
        let ffn_out = Linear::new(ffn_dim, embed_dim).within(module)?;
        Ok(TransformerEncoderBlock { attention, ffn_in, ffn_out, dropout: Dropout::new(dropout).within(module)?, weights: None })
    }

    /// `x + attention(x)`, then `x + ffn(x)`.
    ///
    /// # Shapes
    /// - `x`: `(L, N, E)`, sequence first as the post's `nn.MultiheadAttention`
    /// - `key_padding_mask`: optional `(N, L)`, non-zero (`true`) where a token is padding and
    ///   must be ignored (the opposite of the lecture's keep masks)
    /// - returns `(L, N, E)`
    pub fn forward(&mut self, x: &Tensor, key_padding_mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "TransformerEncoderBlock";
        let MhaOutput { output, weights } = self.attention.forward(x, x, x, key_padding_mask).within(module)?;
        self.weights = Some(weights);
        let x = (x + output).within(module)?;
        let hidden = crate::nn::relu(&self.ffn_in.forward(&x).within(module)?).within(module)?;
        let hidden = self.dropout.forward(&hidden).within(module)?;
        let ffn = self.dropout.forward(&self.ffn_out.forward(&hidden).within(module)?).within(module)?;
        (x + ffn).within(module)
    }
}

impl Walk for TransformerEncoderBlock {
    fn walk(&self, w: &mut Walker) {
        w.child("attention", &self.attention);
        w.child("ffn.0", &self.ffn_in);
        w.child("ffn.3", &self.ffn_out);
        w.child("dropout", &self.dropout);
    }
}
