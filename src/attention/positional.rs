//! Sinusoidal positional encoding: the table and the lecture's `PositionalEncoding` module.

use crate::nn::shape::Within;
use crate::nn::shape::check_batch;
use crate::nn::{Walk, Walker};
use candle_core::{Device, Result, Tensor, bail};

/// The sinusoidal encoding table `(max_len, d_model)`: `sin(pos * w_i)` in even dimensions,
/// `cos(pos * w_i)` in odd ones, with angular speeds `w_i = exp(-2i ln(10000) / d_model)`,
/// computed as PyTorch computes them in float32.
pub fn positional_encoding_table(max_len: usize, d_model: usize) -> Result<Tensor> {
    if max_len == 0 || d_model == 0 {
        bail!("PositionalEncoding: max_len and d_model must be positive, got {max_len} and {d_model}")
    }
    crate::nn::shape::check_size(&[max_len, d_model]).within("PositionalEncoding")?;
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
    Tensor::from_vec(pe, (max_len, d_model), &Device::Cpu)
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
    pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
        Ok(PositionalEncoding { max_len, d_model, pe: positional_encoding_table(max_len, d_model)?.unsqueeze(0)? })
    }

    /// Scales the input by `sqrt(d_model)` and adds the encoding of each position.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)` with `D = d_model`, `L <= max_len`
    /// - returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (_, l) = check_batch(x, self.d_model).within("PositionalEncoding")?;
        if l > self.max_len {
            bail!("PositionalEncoding: a sequence of {l} steps is longer than max_len = {}", self.max_len)
        }
        (x * (self.d_model as f64).sqrt())?.broadcast_add(&self.pe.narrow(1, 0, l)?)
    }
}

impl Walk for PositionalEncoding {
    /// The table `pe` `(1, max_len, d_model)`, registered as a buffer by the lecture's module.
    fn walk(&self, w: &mut Walker) {
        w.buffer("pe", &self.pe);
    }
}
