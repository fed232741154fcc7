//! The two sub-layer helpers of every Transformer layer: the residual connection with layer
//! normalisation (`AddNorm`) and the position-wise feed-forward network.

use crate::nn::shape::{check_last_dim, invalid};
use crate::nn::{Dropout, LayerNorm, Linear, Walk, errors_as};
use candle_core::{Result, Tensor};

/// The lecture's `AddNorm(d_model, p_drop)`: `dropout(layer_norm(res_input + x))`, the residual
/// connection followed by layer normalisation (and dropout, as the lecture puts it after the
/// norm). Parameters `layer_norm.weight` (ones) and `layer_norm.bias` (zeros).
#[derive(Clone, Debug, Walk)]
pub struct AddNorm {
    pub layer_norm: LayerNorm,
    pub dropout: Dropout,
}

impl AddNorm {
    #[errors_as]
    pub fn new(d_model: usize, p_drop: f64) -> Result<Self> {
        let layer_norm = LayerNorm::new(d_model)?;
        let dropout = Dropout::new(p_drop)?;
        Ok(AddNorm { layer_norm, dropout })
    }

    /// Adds the sub-layer's output `x` to its input `res_input`, normalises, drops.
    ///
    /// # Shapes
    /// - `x`, `res_input`: `(N, L, D)` (any `(..., D)`), the same shape
    /// - returns `(N, L, D)`
    #[errors_as]
    pub fn forward(&self, x: &Tensor, res_input: &Tensor) -> Result<Tensor> {
        check_last_dim(x, self.layer_norm.d_model, "d_model")?;
        if x.dims() != res_input.dims() {
            let (out, input) = (x.dims(), res_input.dims());
            return Err(invalid(format!("the sub-layer's output {out:?} and its input {input:?} must have the same shape")));
        }
        let sum = (res_input + x)?;
        let normed = self.layer_norm.forward(&sum)?;
        self.dropout.forward(&normed)
    }
}

/// The lecture's `PointwiseFeedforward(d_model, d_ff, p_drop)`: `nn.Sequential(Linear(d_model,
/// d_ff), ReLU(), Dropout(p_drop), Linear(d_ff, d_model))`, applied to every position alike.
/// Parameters `pffn.0` and `pffn.3`, as PyTorch numbers a sequential's layers.
#[derive(Clone, Debug, Walk)]
pub struct PointwiseFeedforward {
    #[walk(rename = "pffn.0")]
    pub linear1: Linear,
    #[walk(rename = "pffn.3")]
    pub linear2: Linear,
    pub dropout: Dropout,
}

impl PointwiseFeedforward {
    #[errors_as]
    pub fn new(d_model: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        let linear1 = Linear::new(d_model, d_ff)?;
        let dropout = Dropout::new(p_drop)?;
        let linear2 = Linear::new(d_ff, d_model)?;
        Ok(PointwiseFeedforward { linear1, linear2, dropout })
    }

    /// Linear, ReLU, dropout, linear.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)` (any `(..., D)`)
    /// - returns `(N, L, D)`
    #[errors_as]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let h = crate::nn::relu(&self.linear1.forward(x)?)?;
        let h = self.dropout.forward(&h)?;
        self.linear2.forward(&h)
    }
}
