//! Helpers every test file shares: the fixtures, the lock on the default generator, and the
//! lecture's small inputs.

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
