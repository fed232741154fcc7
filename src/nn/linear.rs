//! `nn.Linear`, with PyTorch's initialisation and float32 sums.

use super::errors_as;
use super::fused::dense;
use super::module::{Walk, Walker};
use super::param::Param;
use super::shape::{check_input_dtype, check_last_dim, check_size, invalid};
use crate::repro::{kaiming_uniform_bound, uniform_init};
use candle_core::{Result, Tensor};

/// `nn.Linear(in_features, out_features)`: `y = x W^T + b`. Parameters `weight` (out, in) and `bias` (out).
#[derive(Clone, Debug)]
pub struct Linear {
    pub weight: Param,
    pub bias: Option<Param>,
    pub in_features: usize,
    pub out_features: usize,
}

impl Linear {
    /// Draws weight then bias from the default generator, uniform in `±1/sqrt(in_features)`.
    pub fn new(in_features: usize, out_features: usize) -> Result<Self> {
        Self::with_bias(in_features, out_features, true)
    }

    /// Like [`Linear::new`], with or without a bias (`bias=False`).
    #[errors_as("Linear")]
    pub fn with_bias(in_features: usize, out_features: usize, bias: bool) -> Result<Self> {
        if in_features == 0 || out_features == 0 {
            return Err(invalid(format!("sizes must be positive, got in_features = {in_features}, out_features = {out_features}")));
        }
        check_size(&[out_features, in_features])?;
        let weight = Param::new(&uniform_init((out_features, in_features), kaiming_uniform_bound(in_features))?)?;
        let bias = if bias { Some(Param::new(&uniform_init(out_features, 1.0 / (in_features as f64).sqrt())?)?) } else { None };
        Ok(Linear { weight, bias, in_features, out_features })
    }

    /// `y = x W^T + b`.
    ///
    /// # Shapes
    /// - `x`: `(..., in_features)`
    /// - returns `(..., out_features)`
    #[errors_as]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim(x, self.in_features, "in_features")?;
        check_input_dtype(x, self.weight.tensor().dtype())?;
        let w = self.weight.tensor();
        let bias = self.bias.as_ref().map(|b| b.tensor());
        dense::linear(x, &w, bias.as_ref())
    }
}

impl Walk for Linear {
    fn walk(&self, w: &mut Walker) {
        w.param("weight", &self.weight);
        if let Some(b) = &self.bias {
            w.param("bias", b);
        }
    }
}
