//! The two sub-layer helpers of every Transformer layer: the residual connection with layer
//! normalisation (`AddNorm`) and the position-wise feed-forward network.

use crate::nn::shape::{Within, check_last_dim};
use crate::nn::{Dropout, LayerNorm, Linear, Walk, Walker};
use candle_core::{Result, Tensor};

/// The lecture's `AddNorm(d_model, p_drop)`: `dropout(layer_norm(res_input + x))`, the residual
/// connection followed by layer normalisation (and dropout, as the lecture puts it after the
/// norm). Parameters `layer_norm.weight` (ones) and `layer_norm.bias` (zeros).
#[derive(Clone, Debug)]
pub struct AddNorm {
    pub layer_norm: LayerNorm,
    pub dropout: Dropout,
}

impl AddNorm {
    pub fn new(d_model: usize, p_drop: f64) -> Result<Self> {
        let module = "AddNorm";
        Ok(AddNorm { layer_norm: LayerNorm::new(d_model).within(module)?, dropout: Dropout::new(p_drop).within(module)? })
    }

    /// Adds the sub-layer's output `x` to its input `res_input`, normalises, drops.
    ///
    /// # Shapes
    /// - `x`, `res_input`: `(N, L, D)` (any `(..., D)`), the same shape
    /// - returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor, res_input: &Tensor) -> Result<Tensor> {
        let module = "AddNorm";
        check_last_dim(x, self.layer_norm.d_model, "d_model").within(module)?;
        if x.dims() != res_input.dims() {
            return Err(crate::nn::shape::error(
                module,
                format!("the sub-layer's output {:?} and its input {:?} must have the same shape", x.dims(), res_input.dims()),
            ));
        }
        let sum = (res_input + x).within(module)?;
        let normed = self.layer_norm.forward(&sum).within(module)?;
        self.dropout.forward(&normed).within(module)
    }
}

impl Walk for AddNorm {
    fn walk(&self, w: &mut Walker) {
        w.child("layer_norm", &self.layer_norm);
        w.child("dropout", &self.dropout);
    }
}

/// The lecture's `PointwiseFeedforward(d_model, d_ff, p_drop)`: `nn.Sequential(Linear(d_model,
/// d_ff), ReLU(), Dropout(p_drop), Linear(d_ff, d_model))`, applied to every position alike.
/// Parameters `pffn.0` and `pffn.3`, as PyTorch numbers a sequential's layers.
#[derive(Clone, Debug)]
pub struct PointwiseFeedforward {
    pub linear1: Linear,
    pub dropout: Dropout,
    pub linear2: Linear,
}

impl PointwiseFeedforward {
    pub fn new(d_model: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        let module = "PointwiseFeedforward";
        let linear1 = Linear::new(d_model, d_ff).within(module)?;
        let dropout = Dropout::new(p_drop).within(module)?;
        let linear2 = Linear::new(d_ff, d_model).within(module)?;
        Ok(PointwiseFeedforward { linear1, dropout, linear2 })
    }

    /// Linear, ReLU, dropout, linear.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)` (any `(..., D)`)
    /// - returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let module = "PointwiseFeedforward";
        let h = crate::nn::relu(&self.linear1.forward(x).within(module)?).within(module)?;
        let h = self.dropout.forward(&h).within(module)?;
        self.linear2.forward(&h).within(module)
    }
}

impl Walk for PointwiseFeedforward {
    fn walk(&self, w: &mut Walker) {
        w.child("pffn.0", &self.linear1);
        w.child("pffn.3", &self.linear2);
        w.child("dropout", &self.dropout);
    }
}
