//! The hidden cases: inputs drawn from generators of their own (never the student's default
//! generator), with shapes the notebooks do not use: a batch of one, one step, longer sequences.

use crate::repro::{Generator, with_default};
use candle_core::{Result, Tensor};

/// One hidden case: what it is, in words, and its inputs.
pub(crate) struct Case<I> {
    pub label: String,
    pub input: I,
}

impl<I> Case<I> {
    pub fn new(label: impl Into<String>, input: I) -> Self {
        Case { label: label.into(), input }
    }
}

/// Standard normals of `shape` from a generator seeded with `seed`.
pub(crate) fn randn(seed: u64, shape: &[usize]) -> Result<Tensor> {
    Generator::new(seed).randn(shape)
}

/// Uniforms in `[from, to)` of `shape` from a generator seeded with `seed`.
pub(crate) fn uniform(seed: u64, shape: &[usize], from: f64, to: f64) -> Result<Tensor> {
    Generator::new(seed).rand_range(shape, from, to)
}

/// Runs `f` with the default generator seeded with `seed`, as `manual_seed(seed)` would, and puts
/// the student's generator back as it was afterwards, even when `f` panics: a check never moves
/// the student's numbers.
pub(crate) fn seeded<T>(seed: u64, f: impl FnOnce() -> Result<T>) -> Result<T> {
    struct Restore(Option<Generator>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(saved) = self.0.take() {
                with_default(|g| *g = saved);
            }
        }
    }
    let _restore = Restore(Some(with_default(|g| std::mem::replace(g, Generator::new(seed)))));
    f()
}
