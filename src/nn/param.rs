//! Trainable parameters, and what they need under evcxr as published.
//!
//! Under the project's kernel (tools/evcxr/), every notebook cell links one shared copy of the
//! crate and of candle, as a Rust program does, and a parameter is just a candle `Var` behind a
//! shared handle. evcxr as published links a fresh copy of every dependency into each cell it
//! compiles instead, so candle's tensor ids start again from 1 in every cell: a parameter made in
//! one cell and trained in another can then share its id with a tensor of the training graph,
//! and candle's backward pass, which tells tensors apart by id, mixes their gradients up.
//!
//! So a [`Param`] remembers which copy of the crate made its variable (its home), and
//! [`Param::rehome`] re-makes the variable with the code running now when that is another copy:
//! `StepByStep::train` calls it before it trains. In a program, or under the project's kernel,
//! there is one copy and it does nothing. Every holder of the handle (the model, the optimiser)
//! sees the re-made variable.

use candle_core::{DType, Result, Shape, Tensor, Var};
use std::sync::{Arc, RwLock};

/// A shared trainable tensor, which knows the copy of the crate that made it.
#[derive(Clone, Debug)]
pub struct Param(Arc<RwLock<Homed>>);

#[derive(Debug)]
struct Homed {
    var: Var,
    /// [`home`] of the code that made `var`.
    home: usize,
}

/// An address unique to this copy of the crate: one in a program, one per cell under evcxr as
/// published (each cell's library has its own copy of this static).
fn home() -> usize {
    static HOME: u8 = 0;
    std::ptr::from_ref(&HOME).addr()
}

impl Param {
    /// A parameter holding a float32 copy of `t`.
    pub fn new(t: &Tensor) -> Result<Self> {
        let var = Var::from_tensor(&t.to_dtype(DType::F32)?.detach())?;
        Ok(Param(Arc::new(RwLock::new(Homed { var, home: home() }))))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Homed> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The variable, for candle's autograd (`grads.get(param.var().as_tensor())`).
    pub fn var(&self) -> Var {
        self.read().var.clone()
    }

    /// The current value as a tensor that records gradients.
    pub fn tensor(&self) -> Tensor {
        self.read().var.as_tensor().clone()
    }

    /// The transpose of a 2-D parameter (`weight.t()`).
    pub fn t(&self) -> Result<Tensor> {
        self.tensor().t()
    }

    pub fn dims(&self) -> Vec<usize> {
        self.read().var.dims().to_vec()
    }

    pub fn shape(&self) -> Shape {
        self.read().var.shape().clone()
    }

    pub fn elem_count(&self) -> usize {
        self.read().var.elem_count()
    }

    /// Overwrites the value in place (same shape).
    pub fn set(&self, value: &Tensor) -> Result<()> {
        self.read().var.set(&value.to_dtype(DType::F32)?)
    }

    /// Re-makes the variable with the candle code running now (a fresh id, the same value) if
    /// another copy of the crate made it, which happens only under evcxr as published (see the
    /// module's docs); otherwise does nothing.
    pub fn rehome(&self) -> Result<()> {
        let mut homed = self.0.write().unwrap_or_else(|e| e.into_inner());
        if homed.home != home() {
            homed.var = Var::from_tensor(&homed.var.as_tensor().detach().copy()?)?;
            homed.home = home();
        }
        Ok(())
    }

    /// True when both handles share one parameter.
    pub fn same(&self, other: &Param) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn rehome_in_one_copy_of_the_crate_keeps_the_variable() -> Result<()> {
        // In a program (one copy of the crate, as under the project's kernel) re-homing changes
        // nothing: the optimiser's and the graph's tensors keep their ids.
        let p = Param::new(&Tensor::new(&[1f32, 2.], &Device::Cpu)?)?;
        let (id, holder) = (p.var().as_tensor().id(), p.clone());
        p.rehome()?;
        assert_eq!(p.var().as_tensor().id(), id);
        assert_eq!(holder.var().as_tensor().id(), id);
        assert_eq!(p.tensor().to_vec1::<f32>()?, [1.0, 2.0]);
        Ok(())
    }

    #[test]
    fn rehome_remakes_a_variable_another_copy_made() -> Result<()> {
        // What another cell's copy of the crate leaves under evcxr as published: a home that is
        // not this copy's. The variable is made again with the same value, for every holder.
        let p = Param::new(&Tensor::new(&[3f32], &Device::Cpu)?)?;
        let holder = p.clone();
        let id = p.var().as_tensor().id();
        p.0.write().unwrap().home = home().wrapping_add(1);
        p.rehome()?;
        assert_ne!(holder.var().as_tensor().id(), id);
        assert_eq!(holder.tensor().to_vec1::<f32>()?, [3.0]);
        assert_eq!(p.0.read().unwrap().home, home());
        Ok(())
    }
}
