//! Loss functions.

use crate::nn::shape::check_float;
use candle_core::{Result, Tensor, bail};

/// A loss function: predictions and targets in, a scalar tensor out. `Sync`, as a data-parallel
/// step ([`StepByStep::threads`](super::StepByStep::threads)) shares it between threads.
pub trait Loss: Sync {
    /// The loss of `prediction` against `target` (the same shape for [`MSELoss`]; logits and
    /// class ids for [`CrossEntropyLoss`](super::CrossEntropyLoss)), a scalar.
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor>;
}

/// `nn.MSELoss()`: the mean of the squared differences.
#[derive(Clone, Copy, Debug, Default)]
pub struct MSELoss;

impl MSELoss {
    pub fn new() -> Self {
        MSELoss
    }
}

impl Loss for MSELoss {
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
        if prediction.dims() != target.dims() {
            bail!("MSELoss: prediction {:?} and target {:?} must have the same shape", prediction.dims(), target.dims())
        }
        check_float("MSELoss", prediction)?;
        check_float("MSELoss", target)?;
        if prediction.elem_count() == 0 {
            bail!("MSELoss: the prediction and target {:?} are empty: their mean is undefined", prediction.dims())
        }
        (prediction - target)?.sqr()?.mean_all()
    }
}
