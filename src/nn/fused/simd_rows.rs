//! Row operations of the attention kernel ([`super::flash`]) in 16 lanes: the loops keep 16
//! running maxima or sums side by side (so that they vectorise; a single running sum would be a
//! chain of dependent additions), compiled for the widest vectors the CPU has ([`with_simd`]).
//! Their sums add in another order than a loop from left to right: the same values to float32
//! rounding.

use super::fast_math::{exp, with_simd};

const LANES: usize = 16;

/// `exp(x)`, and exactly 0 below `exp`'s range (a masked score, `-inf`, among them).
#[inline(always)]
pub(crate) fn exp_or_zero(x: f32) -> f32 {
    let y = exp(x);
    if x < -87.3 { 0.0 } else { y }
}

/// `row = row * scale + mask` (no mask: `row * scale`); returns the row's maximum, NaN where the
/// row holds a NaN (so that the softmax over it is NaN, as the plain one's is).
#[inline(always)]
fn scale_mask_max_body(row: &mut [f32], scale: f32, mask: Option<&[f32]>) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let mut chunks = row.chunks_exact_mut(LANES);
    match mask {
        Some(mask) => {
            let mut masks = mask.chunks_exact(LANES);
            for (c, m) in (&mut chunks).zip(&mut masks) {
                for k in 0..LANES {
                    let z = c[k] * scale + m[k];
                    c[k] = z;
                    lanes[k] = if z > lanes[k] || z.is_nan() { z } else { lanes[k] };
                }
            }
            for (z, m) in chunks.into_remainder().iter_mut().zip(masks.remainder()) {
                *z = *z * scale + m;
                lanes[0] = if *z > lanes[0] || z.is_nan() { *z } else { lanes[0] };
            }
        }
        None => {
            for c in &mut chunks {
                for k in 0..LANES {
                    let z = c[k] * scale;
                    c[k] = z;
                    lanes[k] = if z > lanes[k] || z.is_nan() { z } else { lanes[k] };
                }
            }
            for z in chunks.into_remainder() {
                *z *= scale;
                lanes[0] = if *z > lanes[0] || z.is_nan() { *z } else { lanes[0] };
            }
        }
    }
    lanes.iter().copied().fold(f32::NEG_INFINITY, |m, v| if v > m || v.is_nan() { v } else { m })
}
with_simd!(pub(crate) fn scale_mask_max(row: &mut [f32], scale: f32, mask: Option<&[f32]>) -> f32 => scale_mask_max_body);

/// `row = exp(row - shift)` (0 where that is below `exp`'s range); returns the row's sum.
#[inline(always)]
fn exp_sum_body(row: &mut [f32], shift: f32) -> f32 {
    let mut lanes = [0f32; LANES];
    let mut chunks = row.chunks_exact_mut(LANES);
    for c in &mut chunks {
        for k in 0..LANES {
            let p = exp_or_zero(c[k] - shift);
            c[k] = p;
            lanes[k] += p;
        }
    }
    for z in chunks.into_remainder() {
        *z = exp_or_zero(*z - shift);
        lanes[0] += *z;
    }
    lanes.iter().sum()
}
with_simd!(pub(crate) fn exp_sum(row: &mut [f32], shift: f32) -> f32 => exp_sum_body);

/// `Σ a ⊙ b`, in 16 lanes.
#[inline(always)]
fn dot_body(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; LANES];
    let (mut ca, mut cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    for (x, y) in (&mut ca).zip(&mut cb) {
        for k in 0..LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        lanes[0] += x * y;
    }
    lanes.iter().sum()
}
with_simd!(pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 => dot_body);

/// `dp = p * (dp - d) * scale`: a row of the scores' gradient from the weights' gradient `dp`.
#[inline(always)]
fn softmax_grad_body(dp: &mut [f32], p: &[f32], d: f32, scale: f32) {
    for (g, p) in dp.iter_mut().zip(p) {
        *g = p * (*g - d) * scale;
    }
}
with_simd!(pub(crate) fn softmax_grad(dp: &mut [f32], p: &[f32], d: f32, scale: f32) => softmax_grad_body);

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatched functions (the widest vectors this CPU has) give the bits of their bodies
    /// compiled for the baseline x86-64 (SSE2): the lanes fix the order of every sum, and no
    /// multiply-add is fused at any width.
    #[test]
    fn every_width_gives_the_same_bits() {
        let mut state = 12345u32;
        let mut draw = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 8.0 - 4.0
        };
        for n in [1, 15, 16, 17, 100, 257] {
            let row: Vec<f32> = (0..n).map(|_| draw()).collect();
            let mask: Vec<f32> = (0..n).map(|k| if k % 3 == 0 { f32::NEG_INFINITY } else { draw() }).collect();
            let (mut a, mut b) = (row.clone(), row.clone());
            assert_eq!(scale_mask_max(&mut a, 0.3, Some(&mask)).to_bits(), scale_mask_max_body(&mut b, 0.3, Some(&mask)).to_bits());
            assert_eq!(scale_mask_max(&mut a, 0.7, None).to_bits(), scale_mask_max_body(&mut b, 0.7, None).to_bits());
            assert_eq!(exp_sum(&mut a, 1.5).to_bits(), exp_sum_body(&mut b, 1.5).to_bits());
            assert_eq!(dot(&a, &row).to_bits(), dot_body(&b, &row).to_bits());
            softmax_grad(&mut a, &row, 0.25, 0.5);
            softmax_grad_body(&mut b, &row, 0.25, 0.5);
            assert_eq!(a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
