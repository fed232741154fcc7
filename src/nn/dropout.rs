//! `nn.Dropout`: zeroes elements at random in training mode, drawing its masks from the default
//! generator exactly as PyTorch's CPU dropout does.

use super::module::{TrainingMode, Walk, Walker};
use super::shape::{Within, check_float, error};
use crate::repro;
use candle_core::{DType, Result, Tensor};

/// `nn.Dropout(p)`: in training mode each element is zeroed with probability `p` and the others
/// are scaled by `1 / (1 - p)`; in evaluation mode it is the identity. Like every PyTorch module
/// it starts in training mode.
///
/// The mask is PyTorch's to the bit: `bernoulli_(1 - p)` from the default generator (one draw per
/// element, in order), divided by `1 - p` in float32, then multiplied with the input. `p == 0`
/// and empty inputs draw nothing and return the input; `p == 1` draws nothing and returns zeros.
///
/// ```
/// use attention_zoo::prelude::*;
/// # fn main() -> Result<()> {
/// manual_seed(42)?;
/// let dropout = Dropout::new(0.5)?;
/// let x = Tensor::ones((2, 4), DType::F32, &Device::Cpu)?;
/// let y = dropout.forward(&x)?; // zeros and twos
/// assert!(y.flatten_all()?.to_vec1::<f32>()?.iter().all(|v| *v == 0.0 || *v == 2.0));
/// dropout.eval();
/// assert_eq!(dropout.forward(&x)?.flatten_all()?.to_vec1::<f32>()?, vec![1.0; 8]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Dropout {
    /// The probability of zeroing an element, in `[0, 1]`.
    pub p: f64,
    training: TrainingMode,
}

impl Dropout {
    /// `nn.Dropout(p)`; `p` outside `[0, 1]` (or NaN) is an error, as in PyTorch.
    pub fn new(p: f64) -> Result<Self> {
        if !(0.0..=1.0).contains(&p) {
            return Err(error("Dropout", format!("dropout probability has to be between 0 and 1, but got {p}")));
        }
        Ok(Dropout { p, training: TrainingMode::new(true) })
    }

    /// Zeroes and scales in training mode; the identity in evaluation mode.
    ///
    /// # Shapes
    /// - `x`: any shape, floating point
    /// - returns the same shape
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_float(x).within("Dropout")?;
        // `p` is a public field: checked where used, as `new` checks it
        if !(0.0..=1.0).contains(&self.p) {
            return Err(error("Dropout", format!("the field p must be between 0 and 1, but it is {}", self.p)));
        }
        if !self.training.get() || self.p == 0.0 || x.elem_count() == 0 {
            return Ok(x.clone());
        }
        if self.p == 1.0 {
            // PyTorch multiplies by a zero scalar (NaN and infinities stay NaN).
            return x.affine(0.0, 0.0);
        }
        let keep = 1.0 - self.p;
        // `noise.bernoulli_(1 - p).div_(1 - p)`, the divisor in the input's precision.
        let mask = repro::bernoulli(x.shape(), keep)?.flatten_all()?.to_vec1::<f32>()?;
        let noise = if x.dtype() == DType::F64 {
            Tensor::from_vec(mask.into_iter().map(|m| m as f64 / keep).collect::<Vec<f64>>(), x.shape(), x.device())?
        } else {
            let noise: Vec<f32> = mask.into_iter().map(|m| m / keep as f32).collect();
            Tensor::from_vec(noise, x.shape(), x.device())?.to_dtype(x.dtype())?
        };
        x.mul(&noise)
    }
}

impl Walk for Dropout {
    fn walk(&self, w: &mut Walker) {
        w.mode(&self.training);
    }
}

/// Drops with probability `p` when `training`, as `F.dropout(x, p, training)` does.
///
/// # Errors
/// `p` outside `[0, 1]`, or a tensor that is not floating point.
pub fn dropout(x: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    let d = Dropout::new(p)?;
    d.set_training(training);
    d.forward(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn probabilities_outside_the_unit_interval_are_refused() {
        for p in [-0.1, 1.5, f64::NAN] {
            let e = Dropout::new(p).unwrap_err().to_string();
            assert!(e.starts_with("Dropout:") && e.contains("between 0 and 1"), "{e}");
        }
    }

    #[test]
    fn edge_probabilities_draw_nothing() -> candle_core::Result<()> {
        let x = Tensor::new(&[1f32, -2., 3.], &Device::Cpu)?;
        assert_eq!(dropout(&x, 0.0, true)?.to_vec1::<f32>()?, vec![1., -2., 3.]);
        assert_eq!(dropout(&x, 1.0, true)?.to_vec1::<f32>()?, vec![0., 0., 0.]);
        let ints = Tensor::new(&[1u32], &Device::Cpu)?;
        assert!(dropout(&ints, 0.5, true).is_err());
        Ok(())
    }
}
