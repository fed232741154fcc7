//! A training step's wide weights, transposed once for every forward product that reads them.
//!
//! gemm computes the forward product `y = x Wᵀ` of a wide layer (`dense`) as
//! `yᵀ = W xᵀ`, and packs `W` in panels down its columns: from the row-major weight that is a
//! gather, one float from each row at a time, and at the base size of `make bench-scale` it was
//! 15% of a training step (perf). From a transposed copy the same panels are contiguous runs: the
//! same kernels, blocking and sums, so the same bits, and each product a fifth to a third faster.
//!
//! The copies are made once a step, of the weights of [`COPY_MIN_VALUES`] values or more (split
//! over the training pool's two threads for a data-parallel step, on the calling thread for a
//! step on one), and read by every part of the step:
//! [`StepWeights::of`] makes them, [`with_transposed`] opens them on a thread for a pass, and the
//! wide layers' forward product (`dense`) looks its weight up by address. A pass inside must leave
//! those weights' values alone: the step's parameters, between two updates.

use super::fast_math::with_simd;
use super::in_place::with_f32;
use super::kernels::FUSED_LINEAR_MAX_IN;
use super::scoped::with_scoped;
use candle_core::Tensor;
use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// The fewest values a weight has for a step to copy it: 2^18, a 1 MiB weight (such as
/// `(512, 512)` or `(256, 1024)`). A smaller weight is gathered cheaply, and its copy cost more
/// than it saved: with no copies below this size, notebook 04's size trained 6% faster (5.02
/// against 5.33 s, medians of 8 alternating runs, two threads), the 6 M model 0.7% on two threads
/// and 1.2% on one, and the base model was unchanged (every weight there is at least this size);
/// the Zen 4 VM of docs/performance.md §8, idle.
pub(crate) const COPY_MIN_VALUES: usize = 1 << 18;

/// A weight's place and shape: the address of its first value, `n_out`, `n_in`.
type Key = (usize, usize, usize);

/// A weight `W (n_out, n_in)` in its transposed layout `Wᵀ (n_in, n_out)`, keyed by where `W` lies.
pub(crate) struct TransposedCopy {
    key: Key,
    values: Vec<f32>,
}

impl TransposedCopy {
    /// The copy of a parameter that a wide layer's forward product reads: a contiguous float32
    /// CPU matrix of more than [`FUSED_LINEAR_MAX_IN`] columns; `None` for any other tensor.
    pub(crate) fn of(t: &Tensor) -> Option<Self> {
        // not `dims2().ok()`: a candle error captures a backtrace where RUST_BACKTRACE is set (as
        // evcxr sets it), and this runs for every parameter at every step
        let &[n_out, n_in] = t.dims() else { return None };
        if n_in <= FUSED_LINEAR_MAX_IN || n_out == 0 {
            return None;
        }
        with_f32(t, |w| TransposedCopy { key: (w.as_ptr() as usize, n_out, n_in), values: transpose(w, n_out, n_in) })
    }
}

/// The transposed copies of one step's weights.
pub(crate) struct StepWeights(HashMap<Key, Vec<f32>>);

impl StepWeights {
    /// The table of `copies`, shared by the threads of a step.
    pub(crate) fn of(copies: impl IntoIterator<Item = TransposedCopy>) -> Arc<Self> {
        Arc::new(StepWeights(copies.into_iter().map(|c| (c.key, c.values)).collect()))
    }
}

thread_local! {
    static OPEN: RefCell<Option<Arc<StepWeights>>> = const { RefCell::new(None) };
}

/// Runs `pass` on this thread with `weights` open to the wide layers' forward product (`dense`); the table
/// is closed again when `pass` returns or panics (this thread's reference to it dropped), and a
/// thread `pass` starts has none.
pub(crate) fn with_transposed<T>(weights: Arc<StepWeights>, pass: impl FnOnce() -> T) -> T {
    with_scoped(&OPEN, weights, pass).0
}

/// Calls `f` with the transposed copy of the weight `w (n_out, n_in)` when a table open on this
/// thread holds one for these very values (same address and shape), else with `None`.
pub(crate) fn with_copy_of<R>(w: &[f32], n_out: usize, n_in: usize, f: impl FnOnce(Option<&[f32]>) -> R) -> R {
    let table = OPEN.with(|open| open.borrow().clone());
    let copy = table.as_ref().and_then(|t| t.0.get(&(w.as_ptr() as usize, n_out, n_in))).filter(|c| c.len() == w.len());
    f(copy.map(Vec::as_slice))
}

/// The transpose `(cols, rows)` of a row-major `(rows, cols)` matrix, in blocks of 8 by 8 read
/// into registers (every element read and written once, a row of 8 at a time; on the widest
/// vectors the CPU has), the edges element by element. Empty unless `a` holds `rows * cols`
/// values (the callers check it). 16-by-16 tiles written a float at a time took 1.2 ms for a
/// `(512, 2048)` weight on the Zen 4 VM of docs/performance.md §8, the blocks 0.43 ms.
pub(crate) fn transpose(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = Vec::with_capacity(a.len());
    if a.len() != rows * cols {
        return t;
    }
    transpose_into(a, rows, cols, &mut t.spare_capacity_mut()[..a.len()]);
    // SAFETY: `transpose_into` writes each of the `rows * cols` places.
    unsafe { t.set_len(a.len()) };
    t
}

with_simd!(fn transpose_into(a: &[f32], rows: usize, cols: usize, t: &mut [MaybeUninit<f32>]) => transpose_body);

#[inline(always)]
fn transpose_body(a: &[f32], rows: usize, cols: usize, t: &mut [MaybeUninit<f32>]) {
    const B: usize = 8;
    let (rb, cb) = (rows / B * B, cols / B * B);
    for r0 in (0..rb).step_by(B) {
        for c0 in (0..cb).step_by(B) {
            let mut block = [[0f32; B]; B];
            for (i, row) in block.iter_mut().enumerate() {
                row.copy_from_slice(&a[(r0 + i) * cols + c0..(r0 + i) * cols + c0 + B]);
            }
            for j in 0..B {
                for (i, d) in t[(c0 + j) * rows + r0..(c0 + j) * rows + r0 + B].iter_mut().enumerate() {
                    d.write(block[i][j]);
                }
            }
        }
    }
    // the edges: the columns right of the blocks, then the rows below them
    for r in 0..rows {
        let from = if r < rb { cb } else { 0 };
        for c in from..cols {
            t[c * rows + r].write(a[r * cols + c]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{StepWeights, TransposedCopy, with_copy_of, with_transposed};
    use crate::nn::fused::in_place::with_f32;
    use candle_core::{DType, Device, Tensor};

    /// Only the very values copied are found: not another weight of the same shape, not the same
    /// values read with another shape; tensors a wide layer never reads get no copy.
    #[test]
    fn finds_only_the_weight_it_copied() {
        let dev = Device::Cpu;
        let w = Tensor::randn(0f32, 1.0, (8, 32), &dev).unwrap();
        let other = Tensor::randn(0f32, 1.0, (8, 32), &dev).unwrap();
        let copy = TransposedCopy::of(&w).unwrap();
        with_f32(&w, |v| assert_eq!(copy.values, super::transpose(v, 8, 32)));
        with_transposed(StepWeights::of([copy]), || {
            with_f32(&other, |v| with_copy_of(v, 8, 32, |c| assert!(c.is_none())));
            with_f32(&w, |v| with_copy_of(v, 16, 16, |c| assert!(c.is_none())));
            with_f32(&w, |v| with_copy_of(&v[..128], 8, 16, |c| assert!(c.is_none())));
            // another thread has no table open
            std::thread::scope(|s| {
                s.spawn(|| with_f32(&w, |v| with_copy_of(v, 8, 32, |c| assert!(c.is_none()))));
            });
        });
        for t in [
            Tensor::randn(0f32, 1.0, (8, 16), &dev).unwrap(),
            Tensor::randn(0f32, 1.0, 64, &dev).unwrap(),
            w.to_dtype(DType::F64).unwrap(),
            w.t().unwrap(),
        ] {
            assert!(TransposedCopy::of(&t).is_none(), "{:?} {:?}", t.dims(), t.dtype());
        }
    }

    /// The scope closes on a panic and restores an outer one.
    #[test]
    fn closes_on_a_panic_and_nests() {
        let w = Tensor::randn(0f32, 1.0, (4, 20), &Device::Cpu).unwrap();
        let found = || with_f32(&w, |v| with_copy_of(v, 4, 20, |c| c.is_some())).unwrap();
        let outer = StepWeights::of(TransposedCopy::of(&w));
        with_transposed(outer, || {
            let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_transposed(StepWeights::of([]), || {
                    assert!(!found());
                    panic!("inside")
                })
            }));
            assert!(panicked.is_err());
            assert!(found(), "the outer table is open again");
        });
        assert!(!found());
    }
}
