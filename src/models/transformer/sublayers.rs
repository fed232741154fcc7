//! The two sub-layer helpers of every Transformer layer: the residual connection with layer
//! normalisation (`AddNorm`) and the position-wise feed-forward network.

use crate::nn::shape::{check_last_dim, in_module};
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
        Ok(AddNorm { layer_norm: in_module(module, LayerNorm::new(d_model))?, dropout: in_module(module, Dropout::new(p_drop))? })
    }

    /// Adds the sub-layer's output `x` to its input `res_input`, normalises, drops.
    ///
    /// # Shapes
    /// - `x`, `res_input`: `(N, L, D)` (any `(..., D)`), the same shape
    /// - returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor, res_input: &Tensor) -> Result<Tensor> {
        let module = "AddNorm";
        check_last_dim(module, x, self.layer_norm.d_model, "d_model")?;
        if x.dims() != res_input.dims() {
            return Err(crate::nn::shape::error(
                module,
                format!("the sub-layer's output {:?} and its input {:?} must have the same shape", x.dims(), res_input.dims()),
            ));
        }
        let run = || self.dropout.forward(&self.layer_norm.forward(&(res_input + x)?)?);
        in_module(module, run())
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
        let linear1 = in_module(module, Linear::new(d_model, d_ff))?;
        let dropout = in_module(module, Dropout::new(p_drop))?;
        let linear2 = in_module(module, Linear::new(d_ff, d_model))?;
        Ok(PointwiseFeedforward { linear1, dropout, linear2 })
    }

    /// Linear, ReLU, dropout, linear.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)` (any `(..., D)`)
    /// - returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let run = || self.linear2.forward(&self.dropout.forward(&crate::nn::relu(&self.linear1.forward(x)?)?)?);
        in_module("PointwiseFeedforward", run())
    }
}

impl Walk for PointwiseFeedforward {
    fn walk(&self, w: &mut Walker) {
        w.child("pffn.0", &self.linear1);
        w.child("pffn.3", &self.linear2);
        w.child("dropout", &self.dropout);
    }
}
