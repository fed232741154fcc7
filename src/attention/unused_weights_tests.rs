//! The scope of `unused_weights` as the attention reads it: the kernel inside, the weights
//! outside, the scope's end on every way out of the pass.

use super::unused_weights::{are_unused, weights_unused};
use crate::attention::additive_mask::attend_transposed;
use candle_core::Result;
use candle_core::{Device, Tensor};

/// Heads `(2, 3, 5, 8)` over `lk` keys, the keys transposed `(2, 3, 8, lk)`.
fn heads(lk: usize) -> (Tensor, Tensor, Tensor) {
    let d = Device::Cpu;
    let q = Tensor::arange(0f32, 240., &d).unwrap().reshape((2, 3, 5, 8)).unwrap().affine(0.01, -1.).unwrap().sin().unwrap();
    let n = (2 * 3 * 8 * lk) as f32;
    let k_t = Tensor::arange(0f32, n, &d).unwrap().reshape((2, 3, 8, lk)).unwrap().affine(0.37, 0.).unwrap().cos().unwrap();
    let v = Tensor::arange(0f32, n, &d).unwrap().reshape((2, 3, lk, 8)).unwrap().affine(0.11, 0.).unwrap().sin().unwrap();
    (q, k_t, v)
}

fn max_gap(a: &Tensor, b: &Tensor) -> f32 {
    (a - b).unwrap().abs().unwrap().flatten_all().unwrap().max(0).unwrap().to_scalar().unwrap()
}

#[test]
fn inside_the_scope_the_kernel_takes_the_heads_and_hands_back_no_weights() {
    let (q, k_t, v) = heads(70);
    let (plain, weights) = attend_transposed(&q, &k_t, &v, None).unwrap();
    assert_eq!(weights.dims(), &[2, 3, 5, 70]);
    let (fused, none) = weights_unused(|| attend_transposed(&q, &k_t, &v, None)).unwrap();
    assert_eq!(none.dims(), &[2, 3, 5, 0], "the weights of a pass that reads none are empty");
    let gap = max_gap(&plain, &fused);
    assert!(gap > 0.0 && gap < 1e-5, "the kernel's output, to float32 rounding: {gap}");
    assert!(!are_unused(), "the scope ends with the pass");
}

#[test]
fn below_64_keys_the_weights_come_anyway() {
    let (q, k_t, v) = heads(63);
    let (plain, _) = attend_transposed(&q, &k_t, &v, None).unwrap();
    let (inside, weights) = weights_unused(|| attend_transposed(&q, &k_t, &v, None)).unwrap();
    assert_eq!(weights.dims(), &[2, 3, 5, 63]);
    assert_eq!(max_gap(&plain, &inside), 0.0, "the same composition, the same bits");
}

#[test]
fn the_scope_ends_on_an_error_a_panic_and_a_nested_scope() {
    let failed: Result<()> = weights_unused(|| Err(candle_core::Error::Msg("no".into())));
    assert!(failed.is_err() && !are_unused());
    let panicked = std::panic::catch_unwind(|| weights_unused::<()>(|| panic!("inside the pass")));
    assert!(panicked.is_err() && !are_unused());
    weights_unused(|| {
        weights_unused(|| Ok(()))?;
        assert!(are_unused(), "the outer scope holds after an inner one ends");
        Ok(())
    })
    .unwrap();
    assert!(!are_unused());
}

#[test]
fn a_thread_started_inside_the_scope_has_its_own() {
    weights_unused(|| {
        let inner = std::thread::spawn(are_unused).join().unwrap();
        assert!(!inner);
        Ok(())
    })
    .unwrap();
}
