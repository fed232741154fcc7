//! Trainable parameters that survive evcxr's cells.
//!
//! evcxr links a fresh copy of every dependency into each cell it compiles, so candle's tensor
//! ids start again from 1 in every cell. A parameter made in one cell and trained in another
//! can then share its id with a tensor of the training graph, and candle's backward pass, which
//! tells tensors apart by id, mixes their gradients up. A [`Param`] is a shared handle to a
//! candle `Var` that can be re-made ("re-homed") by the code running now: `StepByStep::train`
//! re-homes every parameter before it trains, so all ids in its graphs come from one counter.
//! Every holder of the handle (the model, the optimiser) sees the re-made variable.

use candle_core::{DType, Result, Shape, Tensor, Var};
use std::sync::{Arc, RwLock};

/// A shared, re-homable trainable tensor.
#[derive(Clone, Debug)]
pub struct Param(Arc<RwLock<Var>>);

impl Param {
    /// A parameter holding a float32 copy of `t`.
    pub fn new(t: &Tensor) -> Result<Self> {
        let var = Var::from_tensor(&t.to_dtype(DType::F32)?.detach())?;
        Ok(Param(Arc::new(RwLock::new(var))))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Var> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The variable, for candle's autograd (`grads.get(param.var().as_tensor())`).
    pub fn var(&self) -> Var {
        self.read().clone()
    }

    /// The current value as a tensor that records gradients.
    pub fn tensor(&self) -> Tensor {
        self.read().as_tensor().clone()
    }

    /// The transpose of a 2-D parameter (`weight.t()`).
    pub fn t(&self) -> Result<Tensor> {
        self.tensor().t()
    }

    pub fn dims(&self) -> Vec<usize> {
        self.read().dims().to_vec()
    }

    pub fn shape(&self) -> Shape {
        self.read().shape().clone()
    }

    pub fn elem_count(&self) -> usize {
        self.read().elem_count()
    }

    /// Overwrites the value in place (same shape).
    pub fn set(&self, value: &Tensor) -> Result<()> {
        self.read().set(&value.to_dtype(DType::F32)?)
    }

    /// Re-makes the variable with the candle code running now (a fresh id, the same value).
    pub fn rehome(&self) -> Result<()> {
        let fresh = {
            let current = self.read();
            Var::from_tensor(&current.as_tensor().detach().copy()?)?
        };
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// True when both handles share one parameter.
    pub fn same(&self, other: &Param) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
