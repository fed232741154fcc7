//! `nn.LayerNorm` with a backward pass (candle's own layer norm records none).

use super::errors_as;
use super::fused::layer_norm::layer_norm_node;
use super::module::{Walk, Walker};
use super::param::Param;
use super::shape::{check_input_dtype, check_last_dim, check_size, invalid};
use candle_core::{D, DType, Device, Result, Tensor};

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
    #[errors_as]
    pub fn new(d_model: usize) -> Result<Self> {
        if d_model == 0 {
            return Err(invalid("d_model must be positive"));
        }
        check_size(&[d_model])?;
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
    #[errors_as]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim(x, self.d_model, "d_model")?;
        check_input_dtype(x, self.weight.tensor().dtype())?;
        layer_norm(x, &self.weight.tensor(), &self.bias.tensor(), self.eps)
    }
}

/// Layer normalisation over the last dimension (biased variance), differentiable: on the CPU in
/// f32 one graph node with a hand-written backward pass (the kernel wing's); otherwise candle's
/// tensor operations.
#[errors_as]
pub fn layer_norm(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Tensor> {
    let Some(&n) = x.dims().last() else { return Err(invalid("expected x (..., D), got a scalar")) };
    // PyTorch accepts any eps >= 0 (0 divides a constant row by zero, there as here); a negative,
    // NaN or infinite eps turns every row into NaN or zeros without a word
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(invalid(format!("eps must be a finite number >= 0 (PyTorch's default is 1e-5), got {eps}")));
    }
    if weight.dims() != [n] || bias.dims() != [n] {
        return Err(invalid(format!("expected weight and bias ({n}) for x {:?}, got {:?} and {:?}", x.dims(), weight.dims(), bias.dims())));
    }
    if let Some(y) = layer_norm_node(x, weight, bias, eps)? {
        return Ok(y);
    }
    // what the node computes, composed of candle's operations (its reference in the tests)
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
    let normed = centered.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(weight)?.broadcast_add(bias)
}

impl Walk for LayerNorm {
    fn walk(&self, w: &mut Walker) {
        w.param("weight", &self.weight);
        w.param("bias", &self.bias);
    }
}
