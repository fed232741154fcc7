//! Masks: the source (padding) mask and the target (subsequent) mask of the lecture, both
//! "1 keeps, 0 masks".

use candle_core::{D, DType, Device, Result, Tensor, bail};

/// The value masked positions get before the softmax, as in the lecture.
pub const MASK_FILL: f64 = -1e9;

/// The source mask of the lecture: 1 where a point has any non-zero feature, 0 for padding.
/// `(N, L, F) -> (N, 1, L)`, u8.
pub fn source_mask(source_seq: &Tensor) -> Result<Tensor> {
    crate::nn::shape::check_float("source_mask", source_seq)?;
    let (n, l, _) =
        source_seq.dims3().map_err(|_| crate::nn::shape::shape_error("source_mask", "a source sequence (N, L, F)", source_seq.dims()))?;
    // A point is padding when all its features are zero.
    let nonzero = source_seq.ne(0f32)?.to_dtype(DType::F32)?.sum(D::Minus1)?;
    nonzero.gt(0f32)?.to_dtype(DType::U8)?.reshape((n, 1, l))
}

/// The target mask: 1 on and below the diagonal, 0 above (no peeking at later steps),
/// `(1, size, size)`, u8.
pub fn subsequent_mask(size: usize) -> Result<Tensor> {
    if size == 0 {
        bail!("subsequent_mask: size must be positive")
    }
    crate::nn::shape::check_size("subsequent_mask", &[size, size])?;
    let data: Vec<u8> = (0..size).flat_map(|i| (0..size).map(move |j| u8::from(j <= i))).collect();
    Tensor::from_vec(data, (1, size, size), &Device::Cpu)
}
