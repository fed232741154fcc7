//! Loss functions.

use crate::nn::errors_as;
use crate::nn::shape::{check_float, check_same_dtype, invalid};
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
    #[errors_as("MSELoss")]
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
        if prediction.dims() != target.dims() {
            return Err(invalid(format!("prediction {:?} and target {:?} must have the same shape", prediction.dims(), target.dims())));
        }
        check_float(prediction)?;
        check_float(target)?;
        check_same_dtype(&[("prediction", prediction), ("target", target)])?;
        if prediction.elem_count() == 0 {
            return Err(invalid(format!("the prediction and target {:?} are empty: their mean is undefined", prediction.dims())));
        }
        (prediction - target)?.sqr()?.mean_all()
    }
}

/// A loss on the first `features` features of the last dimension only, such as 001's MSE on
/// latitude and longitude that leaves the timestamp out: `LeadingFeatures::new(MSELoss, 2)`.
#[derive(Clone, Copy, Debug)]
pub struct LeadingFeatures<L> {
    pub inner: L,
    pub features: usize,
}

impl<L: Loss> LeadingFeatures<L> {
    pub fn new(inner: L, features: usize) -> Self {
        LeadingFeatures { inner, features }
    }
}

impl<L: Loss> Loss for LeadingFeatures<L> {
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
        check_features(self.features, prediction, target)?;
        let lead = |t: &Tensor| t.narrow(candle_core::D::Minus1, 0, self.features);
        self.inner.loss(&lead(prediction)?, &lead(target)?)
    }
}

/// Checks that `prediction` and `target` have at least `features >= 1` features in their last
/// dimension.
fn check_features(features: usize, prediction: &Tensor, target: &Tensor) -> Result<()> {
    let last = |t: &Tensor| t.dims().last().copied().unwrap_or(0);
    if features == 0 || last(prediction) < features || last(target) < features {
        bail!(
            "LeadingFeatures: a loss on the first {features} features needs that many in the last dimension, got prediction {:?} and target {:?}",
            prediction.dims(),
            target.dims()
        )
    }
    Ok(())
}
