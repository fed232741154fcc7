//! The lecture's wide multi-head attention: every head sees all `d_model` dimensions.

use super::head::Attention;
use crate::nn::shape::Within;
use crate::nn::{Linear, Walk, Walker};
use candle_core::{D, Result, Tensor, bail};

/// The lecture's wide `MultiHeadAttention(n_heads, d_model, input_dim, proj_values)`: every head
/// is a full [`Attention`] over all `d_model` dimensions; their contexts are concatenated and
/// mapped back to `d_model` by a linear layer.
#[derive(Clone, Debug)]
pub struct MultiHeadAttention {
    pub n_heads: usize,
    pub d_model: usize,
    pub linear_out: Linear,
    pub attn_heads: Vec<Attention>,
}

impl MultiHeadAttention {
    /// Draws the output layer first, then each head, in PyTorch's order.
    pub fn new(n_heads: usize, d_model: usize, input_dim: Option<usize>, proj_values: bool) -> Result<Self> {
        if n_heads == 0 {
            bail!("MultiHeadAttention: n_heads must be positive")
        }
        let Some(width) = n_heads.checked_mul(d_model) else { bail!("MultiHeadAttention: {n_heads} heads of d_model {d_model} overflow") };
        let linear_out = Linear::new(width, d_model).within("MultiHeadAttention")?;
        let attn_heads =
            (0..n_heads).map(|_| Attention::new(d_model, input_dim, proj_values)).collect::<Result<_>>().within("MultiHeadAttention")?;
        Ok(MultiHeadAttention { n_heads, d_model, linear_out, attn_heads })
    }

    /// Gives every head the keys (and values).
    ///
    /// # Shapes
    /// - `keys`: `(N, L, input_dim)`
    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        self.attn_heads.iter_mut().try_for_each(|h| h.init_keys(keys)).within("MultiHeadAttention::init_keys")
    }

    /// Every head's alphas, stacked: `(n_heads, N, Lq, L)`.
    pub fn alphas(&self) -> Result<Tensor> {
        let a: Vec<Tensor> = self
            .attn_heads
            .iter()
            .map(|h| h.alphas.clone().ok_or_else(|| candle_core::Error::Msg("MultiHeadAttention: no alphas yet; run forward first".into())))
            .collect::<Result<_>>()?;
        Tensor::stack(&a, 0)
    }

    /// Runs every head, concatenates their contexts and maps them back to `d_model`.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - `mask`: optional, broadcasting to `(N, Lq, L)` (the source mask `(N, 1, L)`, a target mask `(1, Lq, Lq)`)
    /// - returns `(N, Lq, D)` with `D = d_model`
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "MultiHeadAttention";
        let contexts: Vec<Tensor> = self.attn_heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<_>>().within(module)?;
        let concatenated = Tensor::cat(&contexts, D::Minus1).within(module)?;
        self.linear_out.forward(&concatenated).within(module)
    }
}

impl Walk for MultiHeadAttention {
    fn walk(&self, w: &mut Walker) {
        w.child("linear_out", &self.linear_out);
        w.children("attn_heads", &self.attn_heads);
    }
}
