//! `torch.nn.utils.clip_grad_norm_`: scaling the gradients so that their total norm stays within
//! a bound, between `loss.backward()` and the optimiser's step.

use crate::nn::Param;
use crate::nn::errors_as;
use crate::nn::fused::in_place::with_f32;
use crate::nn::shape::invalid;
use candle_core::backprop::GradStore;
use candle_core::{DType, Result, Tensor};

/// `torch.nn.utils.clip_grad_norm_(params, max_norm)`: the 2-norm of all the gradients of
/// `params` in `grads` taken together; if it exceeds `max_norm`, every one of those gradients is
/// scaled in place by `max_norm / (total_norm + 1e-6)`. Returns the total norm from before
/// clipping. See [`clip_grad_norm_with`].
///
/// ```no_run
/// # use attention_zoo::prelude::*;
/// # use attention_zoo::train::clip_grad_norm;
/// # fn step(model: &Linear, loss: &Tensor, adam: &mut Adam) -> Result<()> {
/// let mut grads = loss.backward()?;
/// let total_norm = clip_grad_norm(&model.parameters(), &mut grads, 1.0)?;
/// adam.step(&grads)?;
/// # Ok(()) }
/// ```
pub fn clip_grad_norm(params: &[Param], grads: &mut GradStore, max_norm: f64) -> Result<f64> {
    clip_grad_norm_with(params, grads, max_norm, 2.0)
}

/// `clip_grad_norm_(params, max_norm, norm_type)` for a `norm_type` `p > 0` (`f64::INFINITY`
/// for the largest absolute value): the total norm is the `p`-norm of the per-parameter
/// `p`-norms, and the gradients are multiplied by `max_norm / (total_norm + 1e-6)` when that is
/// below 1. The arithmetic is PyTorch's, in float32.
///
/// Parameters without a gradient in `grads` are skipped (none at all: the total norm is 0).
/// Unlike PyTorch's default (`error_if_nonfinite=False`, which turns every gradient into NaN),
/// a NaN or infinite total norm is an error, and `grads` are then left as they were.
#[errors_as("clip_grad_norm")]
pub fn clip_grad_norm_with(params: &[Param], grads: &mut GradStore, max_norm: f64, norm_type: f64) -> Result<f64> {
    check_norm_options(max_norm, norm_type)?;
    let (with_grads, total) = check_total_norm(params, grads, norm_type)?;
    // PyTorch: clip_coef = max_norm / (total_norm + 1e-6), as `reciprocal() * max_norm` in f32.
    let coef = (1.0f32 / (total + 1e-6f32)) * max_norm as f32;
    if coef < 1.0 {
        for (t, g) in with_grads {
            let scaled = with_f32(&g, |values| values.iter().map(|v| v * coef).collect::<Vec<f32>>());
            let clipped: Tensor = match scaled {
                Some(values) => Tensor::from_vec(values, g.shape(), g.device())?,
                None => (g.to_dtype(DType::F32)? * coef as f64)?.to_dtype(g.dtype())?,
            };
            grads.insert(&t, clipped);
        }
    }
    Ok(total as f64)
}

/// Checks `max_norm >= 0` (infinite: no clipping, as PyTorch accepts) and `norm_type > 0`.
fn check_norm_options(max_norm: f64, norm_type: f64) -> Result<()> {
    if max_norm.is_nan() || max_norm < 0.0 {
        return Err(invalid(format!("invalid max_norm {max_norm}: expected max_norm >= 0 (f64::INFINITY clips nothing)")));
    }
    if norm_type.is_nan() || norm_type <= 0.0 {
        return Err(invalid(format!("invalid norm_type {norm_type}: expected a p > 0 or f64::INFINITY")));
    }
    Ok(())
}

/// Checks that every gradient of `params` in `grads` fits its parameter and that their total
/// `norm_type`-norm is finite; returns those parameters with their gradients, and the total norm.
fn check_total_norm(params: &[Param], grads: &GradStore, norm_type: f64) -> Result<(Vec<(Tensor, Tensor)>, f32)> {
    let p_norm = |values: &[f32]| p_norm(values, norm_type);
    let mut with_grads = vec![];
    let mut norms = vec![];
    for (k, p) in params.iter().enumerate() {
        let t = p.tensor();
        let Some(g) = grads.get(&t) else { continue };
        if g.elem_count() != p.elem_count() {
            return Err(invalid(format!("gradient {:?} does not fit parameter {k} of shape {:?}", g.dims(), p.dims())));
        }
        let norm = match with_f32(g, p_norm) {
            Some(norm) => norm,
            None => p_norm(&g.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()?),
        };
        norms.push(norm);
        with_grads.push((t, g.clone()));
    }
    let total = p_norm(&norms);
    if !total.is_finite() {
        return Err(invalid(format!(
            "the total norm of the gradients of {} parameters is {total}; the gradients are left as they were",
            with_grads.len()
        )));
    }
    Ok((with_grads, total))
}

/// The `p`-norm of `values`, summed in f64 and rounded to f32 (`f64::INFINITY`: the largest
/// absolute value).
fn p_norm(values: &[f32], norm_type: f64) -> f32 {
    let values64 = || values.iter().map(|&v| v as f64);
    if norm_type == f64::INFINITY {
        values64().fold(0.0f64, |acc, v| acc.max(v.abs())) as f32
    } else if norm_type == 2.0 {
        // the same terms as powf(2.0) (a float32 value squared is exact in f64), without a pow
        // call per gradient entry (it was 15% of a recurrent translator's step)
        sum_of_squares(values).sqrt() as f32
    } else {
        values64().map(|v| v.abs().powf(norm_type)).sum::<f64>().powf(1.0 / norm_type) as f32
    }
}

/// The sum of the squares of `values` in f64, as eight partial sums side by side: one chain of
/// dependent additions took 0.4 ms a step for a GRU translator's 492,589 gradients (a twentieth
/// of its step). The order of the f64 additions changes the sum in its last bits only (the terms
/// are all non-negative): the float32 norm it is rounded to differs, by one ulp, only where the
/// sum lies within about 1e-16 of a float32 rounding boundary.
fn sum_of_squares(values: &[f32]) -> f64 {
    let mut partial = [0f64; 8];
    let mut chunks = values.chunks_exact(8);
    for chunk in &mut chunks {
        for (p, &v) in partial.iter_mut().zip(chunk) {
            *p += v as f64 * v as f64;
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|&v| v as f64 * v as f64).sum();
    partial.iter().sum::<f64>() + tail
}
