//! PyTorch's initialisation recipes: the bounds of its uniform initialisations, drawn from the
//! default generator in PyTorch's order.

use super::default;
use candle_core::{Result, Shape, Tensor};

/// Uniforms in `[-bound, bound)` from the default generator (`nn.init.uniform_(w, -bound, bound)`).
pub fn uniform_init<S: Into<Shape>>(shape: S, bound: f64) -> Result<Tensor> {
    default::uniform(shape, -bound, bound)
}

/// PyTorch's `kaiming_uniform_(w, a=sqrt(5))` bound, which is `1/sqrt(fan_in)` computed its way.
pub fn kaiming_uniform_bound(fan_in: usize) -> f64 {
    let gain = (2.0f64 / (1.0 + 5.0)).sqrt();
    let std = gain / (fan_in as f64).sqrt();
    3.0f64.sqrt() * std
}
