//! Helpers every test file shares: the fixtures, the lock on the default generator, the
//! lecture's small inputs, and the kernel checks' loss and gradient comparison.

#![allow(dead_code)]

pub mod fixtures;

use attention_zoo::prelude::*;

/// The default generator is one per process, as in PyTorch: tests that seed it or draw from it
/// take this lock so they do not draw from each other's sequence.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The lecture's first sequence, the corners of the square `(1, 4, 2)`: `[-1, -1]`, `[-1, 1]`,
/// `[1, 1]`, `[1, -1]`.
pub fn corners() -> Tensor {
    Tensor::new(&[[[-1f32, -1.], [-1., 1.], [1., 1.], [1., -1.]]], &Device::Cpu).expect("the corners tensor")
}

/// Values rounded to 4 decimals, as the lecture prints them.
pub fn round4(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| (x * 1e4).round() / 1e4).collect()
}

/// A loss that weighs every output differently, so that no gradient is a plain sum (the kernel
/// checks' loss; an empty `t` gives 0).
pub fn weighted(t: &Tensor) -> Tensor {
    let w = Tensor::arange(0f32, t.elem_count() as f32, &Device::Cpu).unwrap().reshape(t.shape()).unwrap();
    (t * (w / t.elem_count().max(1) as f64).unwrap().cos().unwrap()).unwrap().sum_all().unwrap()
}

/// Every named tensor's gradient in `got` within `tol` of its gradient in `want`.
pub fn same_grads(
    what: &str,
    got: &candle_core::backprop::GradStore,
    want: &candle_core::backprop::GradStore,
    tensors: &[(&str, Tensor)],
    tol: f64,
) {
    for (name, t) in tensors {
        let (g, w) = (got.get(t).expect(name), want.get(t).expect(name));
        fixtures::assert_tensor_close(&format!("{what}: gradient of {name}"), g, w, tol);
    }
}
