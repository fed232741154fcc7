//! The position-wise feed-forward block: linear, ReLU, linear.

use super::errors_as;
use super::linear::Linear;
use super::module::{Walk, Walker};
use candle_core::{Result, Tensor};

/// `nn.Sequential(Linear(d_in, ff_units), ReLU(), Linear(ff_units, d_out))`, named `0` and `2`
/// as PyTorch names a sequential's layers.
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub layer0: Linear,
    pub layer2: Linear,
}

impl FeedForward {
    #[errors_as]
    pub fn new(d_in: usize, ff_units: usize, d_out: usize) -> Result<Self> {
        let layer0 = Linear::new(d_in, ff_units)?;
        let layer2 = Linear::new(ff_units, d_out)?;
        Ok(FeedForward { layer0, layer2 })
    }

    /// Linear, ReLU, linear.
    ///
    /// # Shapes
    /// - `x`: `(..., d_in)`
    /// - returns `(..., d_out)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.layer2.forward(&super::ops::relu(&self.layer0.forward(x)?)?)
    }
}

impl Walk for FeedForward {
    fn walk(&self, w: &mut Walker) {
        w.child("0", &self.layer0);
        w.child("2", &self.layer2);
    }
}
