//! Masks: the source (padding) mask and the target (subsequent) mask of the lecture, both
//! "1 keeps, 0 masks".

use crate::nn::errors_as;
use crate::nn::shape::{check_float, check_size, invalid, invalid_shape};
use candle_core::{D, DType, Device, Result, Tensor};

/// The value masked positions get before the softmax, as in the lecture.
pub const MASK_FILL: f64 = -1e9;

/// The source mask of the lecture, `(source_seq != 0).all(axis=2).unsqueeze(1)`: 1 where
/// **every** feature of a point is non-zero, 0 where at least one feature is zero. A point such as
/// `[0.5, 0]` therefore counts as padding, as it does in the lecture; only points with no zero
/// feature at all are kept. As in PyTorch, NaN and ±inf are non-zero (`nan != 0` is true), and a
/// point with no features (`F = 0`) is kept (`all` of nothing is true).
/// `(N, L, F) -> (N, 1, L)`, u8; an empty batch (`N = 0` or `L = 0`) gives an empty mask.
///
/// Data whose real points can have a zero feature lose those points under this rule, as they
/// would with the lecture's line: after a min-max scaling each feature's smallest value is exactly
/// 0 (in the GPS exercise, the first timestamp of every sequence). The lecture's GPS exercise
/// builds no source mask, and neither does the crate's GPS notebook.
#[errors_as]
pub fn source_mask(source_seq: &Tensor) -> Result<Tensor> {
    check_float(source_seq)?;
    let (n, l, _) = source_seq.dims3().map_err(|_| invalid_shape("a source sequence (N, L, F)", source_seq.dims()))?;
    // The number of zero features of each point; the point is kept when there is none. A count
    // (a sum) rather than a min over the features: candle's min refuses empty tensors and skips
    // a NaN unless it comes first, while `eq(0)` is false for NaN and ±inf, as in PyTorch.
    let zeros = source_seq.eq(0f32)?.to_dtype(DType::F32)?.sum(D::Minus1)?;
    zeros.eq(0f32)?.reshape((n, 1, l))
}

/// The target mask: 1 on and below the diagonal, 0 above (no peeking at later steps),
/// `(1, size, size)`, u8.
#[errors_as]
pub fn subsequent_mask(size: usize) -> Result<Tensor> {
    if size == 0 {
        return Err(invalid("size must be positive"));
    }
    check_size(&[size, size])?;
    let data: Vec<u8> = (0..size).flat_map(|i| (0..size).map(move |j| u8::from(j <= i))).collect();
    Tensor::from_vec(data, (1, size, size), &Device::Cpu)
}
