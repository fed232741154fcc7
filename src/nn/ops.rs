//! Small differentiable operations the layers share: sigmoid, softmax, relu, masked fill, time reversal.

use super::fused::kernels;
use super::shape::{Within, check_float, error};
use candle_core::{Result, Tensor};

/// The logistic function with a recorded backward pass.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    // candle's unary kernels panic on integer dtypes: refuse them first
    check_float(x).within("sigmoid")?;
    (x.neg()?.exp()? + 1.0)?.recip()
}

/// Softmax over the last dimension, with a backward pass.
pub fn softmax(x: &Tensor) -> Result<Tensor> {
    check_float(x).within("softmax")?;
    if x.elem_count() == 0 {
        // Nothing to normalise (no rows, or rows of no entries): PyTorch returns the empty tensor.
        return Ok(x.clone());
    }
    kernels::softmax_last_dim(x)
}

/// `max(x, 0)` with a recorded backward pass: on the CPU in f32 one node with PyTorch's backward
/// (no gradient where the output is 0); elsewhere candle's `relu`, which passes the gradient at
/// exactly 0.
pub fn relu(x: &Tensor) -> Result<Tensor> {
    check_float(x).within("relu")?;
    kernels::relu(x)
}

/// Sets the scores to `value` where `mask` is 0 (the lecture fills with -1e9). The mask (u8, or anything non-zero for
/// "keep") must broadcast to the scores, e.g. `(N, 1, L)` against `(N, Lq, L)`.
pub fn masked_fill(scores: &Tensor, mask: &Tensor, value: f64) -> Result<Tensor> {
    let mask = mask.ne(0u8).or_else(|_| mask.ne(0f32))?;
    let mask = mask.broadcast_as(scores.shape()).map_err(|_| {
        candle_core::Error::Msg(format!("masked_fill: mask {:?} does not broadcast to scores {:?}", mask.dims(), scores.dims()))
    })?;
    let fill = Tensor::full(value as f32, scores.shape(), scores.device())?.to_dtype(scores.dtype())?;
    mask.where_cond(scores, &fill)
}

/// Reverses a batch-first sequence along its time axis.
pub fn reverse_time(x: &Tensor) -> Result<Tensor> {
    if x.rank() < 2 {
        return Err(error("reverse_time", format!("expected a batch-first sequence (N, L, ...), got shape {:?}", x.dims())));
    }
    let l = x.dim(1)?;
    let idx = Tensor::from_vec((0..l as u32).rev().collect::<Vec<_>>(), l, x.device())?;
    // candle's index_select reads contiguous tensors only (the fused LSTM's outputs are views)
    x.contiguous()?.index_select(&idx, 1)
}
