//! The lecture's wide multi-head attention: every head sees all `d_model` dimensions.

use super::head::Attention;
use crate::nn::shape::invalid;
use crate::nn::{Linear, Walk, errors_as};
use candle_core::{D, Result, Tensor};

/// The lecture's wide `MultiHeadAttention(n_heads, d_model, input_dim, proj_values)`: every head
/// is a full [`Attention`] over all `d_model` dimensions; their contexts are concatenated and
/// mapped back to `d_model` by a linear layer.
#[derive(Clone, Debug, Walk)]
pub struct MultiHeadAttention {
    #[walk(skip)]
    pub n_heads: usize,
    #[walk(skip)]
    pub d_model: usize,
    pub linear_out: Linear,
    pub attn_heads: Vec<Attention>,
}

impl MultiHeadAttention {
    /// Draws the output layer first, then each head, in PyTorch's order.
    #[errors_as]
    pub fn new(n_heads: usize, d_model: usize, input_dim: Option<usize>, proj_values: bool) -> Result<Self> {
        if n_heads == 0 {
            return Err(invalid("n_heads must be positive"));
        }
        let Some(width) = n_heads.checked_mul(d_model) else {
            return Err(invalid(format!("{n_heads} heads of d_model {d_model} overflow")));
        };
        let linear_out = Linear::new(width, d_model)?;
        let attn_heads = (0..n_heads).map(|_| Attention::new(d_model, input_dim, proj_values)).collect::<Result<_>>()?;
        Ok(MultiHeadAttention { n_heads, d_model, linear_out, attn_heads })
    }

    /// Gives every head the keys (and values).
    ///
    /// # Shapes
    /// - `keys`: `(N, L, input_dim)`
    #[errors_as]
    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        for head in self.attn_heads.iter_mut() {
            head.init_keys(keys)?;
        }
        Ok(())
    }

    /// Every head's alphas, stacked: `(n_heads, N, Lq, L)`.
    #[errors_as("MultiHeadAttention")]
    pub fn alphas(&self) -> Result<Tensor> {
        let alphas: Vec<Tensor> = self
            .attn_heads
            .iter()
            .map(|h| h.alphas.clone().ok_or_else(|| invalid("no alphas yet; run forward first")))
            .collect::<Result<_>>()?;
        Tensor::stack(&alphas, 0)
    }

    /// Runs every head, concatenates their contexts and maps them back to `d_model`.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - `mask`: optional, broadcasting to `(N, Lq, L)` (the source mask `(N, 1, L)`, a target mask `(1, Lq, Lq)`)
    /// - returns `(N, Lq, D)` with `D = d_model`
    #[errors_as]
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let contexts: Vec<Tensor> = self.attn_heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<_>>()?;
        let concatenated = Tensor::cat(&contexts, D::Minus1)?;
        self.linear_out.forward(&concatenated)
    }
}
