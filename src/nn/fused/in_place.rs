//! Reading a float32 CPU tensor's values where they lie, and changing them in place: what the
//! optimiser, gradient clipping and the data-parallel step do to every parameter at every step.
//!
//! Going through tensor operations there costs a copy per read (`to_vec1`) and per write
//! (`Var::set`), and a new tensor per arithmetic step; for a Transformer's 330,000 parameters
//! that was a tenth of a training step. Both helpers return `None` where the tensor is not a
//! contiguous float32 CPU tensor, so callers keep their tensor-operation path for the rest.

use super::unexpected::unexpected;
use candle_core::{CpuStorage, InplaceOp1, Layout, Result, Storage, Tensor};
use std::cell::RefCell;

/// `f` applied to the values of `t` (in their logical order), without copying them; `None`
/// when `t` is not a contiguous float32 tensor on the CPU.
pub fn with_f32<R>(t: &Tensor, f: impl FnOnce(&[f32]) -> R) -> Option<R> {
    let (storage, layout) = t.storage_and_layout();
    let Storage::Cpu(CpuStorage::F32(data)) = &*storage else { return None };
    let (start, end) = layout.contiguous_offsets()?;
    data.get(start..end).map(f)
}

/// `f` applied to the values of `a` and `b` (a node's output and its gradient, say): read where
/// they lie when both are contiguous float32 CPU tensors, from float32 copies otherwise.
pub fn with_f32_pair<R>(a: &Tensor, b: &Tensor, f: impl FnOnce(&[f32], &[f32]) -> R) -> Result<R> {
    let mut f = Some(f);
    let mut call = |a: &[f32], b: &[f32]| f.take().map(|f| f(a, b));
    if let Some(Some(Some(r))) = with_f32(a, |a| with_f32(b, |b| call(a, b))) {
        return Ok(r);
    }
    let copy = |t: &Tensor| t.to_dtype(candle_core::DType::F32)?.flatten_all()?.to_vec1::<f32>();
    let (a, b) = (copy(a)?, copy(b)?);
    match call(&a, &b) {
        Some(r) => Ok(r),
        None => Err(unexpected("with_f32_pair: the function already ran")),
    }
}

/// Whether [`update_f32`] can change `t` in place.
pub fn is_f32_in_place(t: &Tensor) -> bool {
    with_f32(t, |_| ()).is_some()
}

/// Runs `f` on the values of `t`, which it may change in place: every tensor sharing the storage
/// (a `Var` and its clones) sees the change. An error, and `f` not run, when `t` is not a
/// contiguous float32 CPU tensor (check with [`is_f32_in_place`] first).
pub fn update_f32(t: &Tensor, f: impl FnOnce(&mut [f32])) -> Result<()> {
    if !is_f32_in_place(t) {
        return Err(unexpected(format!(
            "update_f32: expected a contiguous float32 tensor on the CPU, got {:?} {:?} on {:?}",
            t.dtype(),
            t.dims(),
            t.device()
        )));
    }
    t.inplace_op1(&Update(RefCell::new(Some(f))))
}

struct Update<F>(RefCell<Option<F>>);

impl<F: FnOnce(&mut [f32])> InplaceOp1 for Update<F> {
    fn name(&self) -> &'static str {
        "update-f32"
    }

    fn cpu_fwd(&self, s: &mut CpuStorage, l: &Layout) -> Result<()> {
        let CpuStorage::F32(data) = s else { return Err(unexpected("update_f32: expected f32 storage")) };
        let Some((start, end)) = l.contiguous_offsets() else {
            return Err(unexpected("update_f32: expected a contiguous tensor"));
        };
        let Some(values) = data.get_mut(start..end) else { return Err(unexpected("update_f32: storage shorter than its layout")) };
        match self.0.borrow_mut().take() {
            Some(f) => f(values),
            None => return Err(unexpected("update_f32: the update already ran")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{update_f32, with_f32};
    use candle_core::{DType, Device, Tensor, Var};

    #[test]
    fn reads_and_updates_where_the_values_lie() {
        let var = Var::from_tensor(&Tensor::arange(0f32, 6.0, &Device::Cpu).unwrap().reshape((2, 3)).unwrap()).unwrap();
        let view = var.as_tensor().clone();
        assert_eq!(with_f32(&view.narrow(0, 1, 1).unwrap(), |s| s.to_vec()), Some(vec![3.0, 4.0, 5.0]));
        assert_eq!(with_f32(&view.t().unwrap(), |s| s.len()), None, "a transposed view is not contiguous");
        assert_eq!(with_f32(&view.to_dtype(DType::F64).unwrap(), |s| s.len()), None);
        update_f32(&view, |v| v.iter_mut().for_each(|x| *x *= 2.0)).unwrap();
        assert_eq!(var.as_tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap(), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert!(update_f32(&view.t().unwrap(), |_| ()).is_err());
    }
}
