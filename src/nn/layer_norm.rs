//! `nn.LayerNorm` with a backward pass (candle's own layer norm records none).

use super::module::{Module, NamedParams};
use super::param::Param;
use super::shape::{check_last_dim, check_size};
use candle_core::{D, DType, Device, Result, Tensor, bail};

/// `nn.LayerNorm(d_model)` over the last dimension, with a backward pass (candle's own layer
/// norm records none). Parameters `weight` (ones) and `bias` (zeros); eps 1e-5.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    pub weight: Param,
    pub bias: Param,
    pub eps: f64,
    pub d_model: usize,
}

impl LayerNorm {
    pub fn new(d_model: usize) -> Result<Self> {
        if d_model == 0 {
            bail!("LayerNorm: d_model must be positive")
        }
        check_size("LayerNorm", &[d_model])?;
        Ok(LayerNorm {
            weight: Param::new(&Tensor::ones(d_model, DType::F32, &Device::Cpu)?)?,
            bias: Param::new(&Tensor::zeros(d_model, DType::F32, &Device::Cpu)?)?,
            eps: 1e-5,
            d_model,
        })
    }

    /// Normalises over the last dimension, then scales by `weight` and shifts by `bias`.
    ///
    /// # Shapes
    /// - `x`: `(..., D)` with `D = d_model`
    /// - returns `(..., D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim("LayerNorm", x, self.d_model, "d_model")?;
        layer_norm(x, &self.weight.tensor(), &self.bias.tensor(), self.eps)
    }
}

/// Layer normalisation over the last dimension (biased variance), written with differentiable ops.
pub fn layer_norm(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
    let normed = centered.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(weight)?.broadcast_add(bias)
}

impl Module for LayerNorm {
    fn named_parameters(&self) -> NamedParams {
        vec![("weight".to_string(), self.weight.clone()), ("bias".to_string(), self.bias.clone())]
    }
}
