//! Sinusoidal positional encoding: the table and the lecture's `PositionalEncoding` module.

use crate::nn::shape::{check_batch, check_size, invalid};
use crate::nn::{Walk, Walker, errors_as};
use candle_core::{DType, Device, Result, Tensor};

/// The sinusoidal encoding table `(max_len, d_model)`: `sin(pos * w_i)` in even dimensions,
/// `cos(pos * w_i)` in odd ones, with angular speeds `w_i = exp(-2i ln(10000) / d_model)`,
/// computed as PyTorch computes them in float32.
#[errors_as("PositionalEncoding")]
pub fn positional_encoding_table(max_len: usize, d_model: usize) -> Result<Tensor> {
    check_table(max_len, d_model)?;
    let position = Tensor::arange(0u32, max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
    let factor = (-(10000.0f64).ln() / d_model as f64) as f32;
    let angular_speed = (Tensor::arange_step(0u32, d_model as u32, 2, &Device::Cpu)?.to_dtype(DType::F32)? * factor as f64)?.exp()?;
    let angles = position.broadcast_mul(&angular_speed.unsqueeze(0)?)?; // (max_len, ceil(d_model / 2))
    // pe[:, 0::2] = sin(position * angular_speed), pe[:, 1::2] = cos(...): the two interleaved
    let pe = Tensor::stack(&[angles.sin()?, angles.cos()?], 2)?.flatten_from(1)?;
    pe.narrow(1, 0, d_model)?.contiguous()
}

/// The door of a sinusoidal table (this one and the Transformer lecture's): both sizes positive,
/// the table within the crate's size limit.
pub(crate) fn check_table(max_len: usize, d_model: usize) -> Result<()> {
    if max_len == 0 || d_model == 0 {
        return Err(invalid(format!("max_len and d_model must be positive, got max_len = {max_len}, d_model = {d_model}")));
    }
    check_size(&[max_len, d_model]).map(|_| ())
}

/// `PositionalEncoding(max_len, d_model)`: scales the input by `sqrt(d_model)` and adds the
/// encoding of each position. The encoding is a buffer, not a parameter.
#[derive(Clone, Debug)]
pub struct PositionalEncoding {
    pub max_len: usize,
    pub d_model: usize,
    /// `(1, max_len, d_model)`.
    pub pe: Tensor,
}

impl PositionalEncoding {
    #[errors_as]
    pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
        let pe = positional_encoding_table(max_len, d_model)?;
        Ok(PositionalEncoding { max_len, d_model, pe: pe.unsqueeze(0)? })
    }

    /// Scales the input by `sqrt(d_model)` and adds the encoding of each position.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)` with `D = d_model`, `L <= max_len`
    /// - returns `(N, L, D)`
    #[errors_as]
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (_, l) = check_batch(x, self.d_model)?;
        if l > self.max_len {
            return Err(invalid(format!("a sequence of {l} steps is longer than max_len = {}", self.max_len)));
        }
        let scaled_x = (x * (self.d_model as f64).sqrt())?;
        scaled_x.broadcast_add(&self.pe.narrow(1, 0, l)?)
    }
}

// By hand: `pe` is a buffer, not a child module.
impl Walk for PositionalEncoding {
    /// The table `pe` `(1, max_len, d_model)`, registered as a buffer by the lecture's module.
    fn walk(&self, w: &mut Walker) {
        w.buffer("pe", &self.pe);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as the crate first built it, entry by entry in float32: the reference the
    /// tensor form must match bit for bit.
    fn table_by_loops(max_len: usize, d_model: usize) -> Vec<f32> {
        let factor = (-(10000.0f64).ln() / d_model as f64) as f32;
        let speeds: Vec<f32> = (0..d_model).step_by(2).map(|i| (i as f32 * factor).exp()).collect();
        let mut pe = vec![0f32; max_len * d_model];
        for pos in 0..max_len {
            for (k, w) in speeds.iter().enumerate() {
                let angle = pos as f32 * w;
                pe[pos * d_model + 2 * k] = angle.sin();
                if 2 * k + 1 < d_model {
                    pe[pos * d_model + 2 * k + 1] = angle.cos();
                }
            }
        }
        pe
    }

    #[test]
    fn the_table_is_the_loops_bit_for_bit() -> Result<()> {
        for (max_len, d_model) in [(1, 1), (1, 2), (3, 1), (10, 8), (7, 5), (100, 6), (50, 33), (5000, 512), (2048, 63), (1, 1000)] {
            let table = positional_encoding_table(max_len, d_model)?;
            assert_eq!(table.dims(), [max_len, d_model]);
            let new: Vec<u32> = table.flatten_all()?.to_vec1::<f32>()?.iter().map(|v| v.to_bits()).collect();
            let old: Vec<u32> = table_by_loops(max_len, d_model).iter().map(|v| v.to_bits()).collect();
            assert!(new == old, "max_len {max_len}, d_model {d_model}: the tables differ");
        }
        Ok(())
    }
}
