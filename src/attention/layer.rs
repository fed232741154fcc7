//! The blog post's plain attention layer: linear queries, keys and values, unscaled dot products.

use super::score::{context_vector, dot_products};
use crate::nn::ops::softmax;
use crate::nn::{Linear, Walk, errors_as};
use candle_core::{Result, Tensor};

/// The blog post's plain attention layer `AttentionLayer(input_dim, output_dim)`: linear maps to
/// queries, keys and values, unscaled dot-product scores, softmax, weighted sum.
/// `query (N, Lq, input_dim)`, `key` and `value` `(N, L, input_dim)` -> `(N, Lq, output_dim)`.
#[derive(Clone, Debug, Walk)]
pub struct AttentionLayer {
    pub query: Linear,
    pub key: Linear,
    pub value: Linear,
    /// The attention weights of the last call, `(N, Lq, L)`.
    #[walk(skip)]
    pub alphas: Option<Tensor>,
}

impl AttentionLayer {
    #[errors_as]
    pub fn new(input_dim: usize, output_dim: usize) -> Result<Self> {
        let query = Linear::new(input_dim, output_dim)?;
        let key = Linear::new(input_dim, output_dim)?;
        let value = Linear::new(input_dim, output_dim)?;
        Ok(AttentionLayer { query, key, value, alphas: None })
    }

    /// Projects, scores with unscaled dot products, and averages the values; keeps the alphas.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`; `key`, `value`: `(N, L, input_dim)`
    /// - returns `(N, Lq, output_dim)`; `self.alphas` becomes `(N, Lq, L)`
    #[errors_as]
    pub fn forward(&mut self, query: &Tensor, key: &Tensor, value: &Tensor) -> Result<Tensor> {
        let (q, k, v) = (self.query.forward(query)?, self.key.forward(key)?, self.value.forward(value)?);
        let alphas = softmax(&dot_products(&q, &k)?)?;
        self.alphas = Some(alphas.detach());
        context_vector(&alphas, &v)
    }
}
