//! The hidden cases: inputs drawn from generators of their own (never the student's default
//! generator), with shapes the notebooks do not use: a batch of one, one step, longer sequences.

pub(crate) use super::diagnose::Facts;
use crate::repro::{Generator, with_default};
use candle_core::{Result, Tensor};

/// One hidden case: what it is, in words, its inputs, and what it tells the diagnosis (the sizes
/// a factor may be named after, the positions a mask hides).
pub(crate) struct Case<I> {
    pub label: String,
    pub input: I,
    pub facts: Facts,
}

impl<I> Case<I> {
    pub fn new(label: impl Into<String>, input: I) -> Self {
        Case { label: label.into(), input, facts: Facts::default() }
    }

    /// Sizes worth naming a constant factor after: `.sizes(&[("d_k", 4)])`.
    pub fn sizes(mut self, sizes: &[(&'static str, usize)]) -> Self {
        self.facts.sizes = sizes.to_vec();
        self
    }

    /// The padding id the case's input uses, for a function that takes one.
    pub fn pad(mut self, pad: u32) -> Self {
        self.facts.pad = Some(pad);
        self
    }

    /// A mask shaped like (or broadcasting to) the answer, 1 where the reference hides or pads.
    pub fn mask(mut self, mask: Tensor) -> Self {
        self.facts.mask = Some(mask);
        self
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

/// The student's default generator as it was when this was made, put back when this is dropped
/// (a panic unwinding included): what keeps a check from moving the student's numbers.
pub(crate) struct KeptGenerator(Option<Generator>);

impl KeptGenerator {
    pub fn keep() -> KeptGenerator {
        KeptGenerator(Some(with_default(|g| g.clone())))
    }
}

impl Drop for KeptGenerator {
    fn drop(&mut self) {
        if let Some(saved) = self.0.take() {
            with_default(|g| *g = saved);
        }
    }
}

/// Runs `f` with the default generator seeded with `seed`, as `manual_seed(seed)` would, and puts
/// the student's generator back as it was afterwards, even when `f` panics.
pub(crate) fn seeded<T>(seed: u64, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let _kept = KeptGenerator::keep();
    with_default(|g| *g = Generator::new(seed));
    f()
}
