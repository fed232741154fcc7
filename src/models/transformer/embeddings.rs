//! The Transformer's input side: token embeddings scaled by `sqrt(d_model)`, and the lecture's
//! positional encoding (added without scaling the input, then dropout).

use crate::attention::positional::check_table;
use crate::nn::shape::{check_batch, invalid};
use crate::nn::{Dropout, Embedding, Walk, Walker, errors_as};
use candle_core::{DType, Device, Result, Tensor};

/// The lecture's `Embeddings(len_vocab, d_model)`: an `nn.Embedding(len_vocab, d_model)` (standard
/// normal rows) whose vectors are multiplied by `sqrt(d_model)`. Parameter `embedding.weight`.
#[derive(Clone, Debug, Walk)]
pub struct Embeddings {
    #[walk(skip)]
    pub d_model: usize,
    pub embedding: Embedding,
}

impl Embeddings {
    #[errors_as]
    pub fn new(len_vocab: usize, d_model: usize) -> Result<Self> {
        Ok(Embeddings { d_model, embedding: Embedding::new(len_vocab, d_model)? })
    }

    /// Looks up each id's vector and scales it by `sqrt(d_model)`. An id outside
    /// `0..len_vocab` is an error naming it, its position and the vocabulary size.
    ///
    /// # Shapes
    /// - `ids`: `(N, L)` integer ids (any shape `S` works)
    /// - returns `(N, L, D)` (`(S..., D)`)
    #[errors_as]
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        self.embedding.forward(ids)? * (self.d_model as f64).sqrt()
    }
}

/// The lecture's sinusoidal table `(max_len, d_model)`, computed as it computes it in float32:
/// `div_term = 10000^(2i / d_model)`, `sin(pos / div_term)` in the even dimensions and
/// `cos(pos / div_term)` in the odd ones. (The same function as
/// [`positional_encoding_table`](crate::attention::positional_encoding_table), written with a
/// power and a division instead of an exponential and a product, so it rounds as the lecture's does.)
#[errors_as("TransformerPositionalEncoding")]
pub fn transformer_encoding_table(max_len: usize, d_model: usize) -> Result<Tensor> {
    check_table(max_len, d_model)?;
    let pos = Tensor::arange(0u32, max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
    // torch.pow(10000, two_i / d_model): a float32 power of each exponent (candle has no scalar
    // base raised to a tensor), one per pair of dimensions
    let div_term: Vec<f32> = (0..d_model).step_by(2).map(|two_i| 10000f32.powf(two_i as f32 / d_model as f32)).collect();
    let div_term = Tensor::from_vec(div_term, (1, d_model.div_ceil(2)), &Device::Cpu)?;
    let angles = pos.broadcast_div(&div_term)?; // (max_len, ceil(d_model / 2))
    // pe[:, 0::2] = sin(pos / div_term), pe[:, 1::2] = cos(pos / div_term): the two interleaved
    let pe = Tensor::stack(&[angles.sin()?, angles.cos()?], 2)?.flatten_from(1)?;
    pe.narrow(1, 0, d_model)?.contiguous()
}

/// The lecture's Transformer `PositionalEncoding(d_model, p_drop, max_len=5000)`: adds the
/// encoding of each position to the (already scaled) embeddings, then dropout. Unlike the
/// self-attention lecture's [`PositionalEncoding`](crate::attention::PositionalEncoding) it does
/// not scale its input. The table is a buffer, not a parameter.
#[derive(Clone, Debug)]
pub struct TransformerPositionalEncoding {
    pub d_model: usize,
    pub max_len: usize,
    /// `(1, max_len, d_model)`.
    pub pe: Tensor,
    pub dropout: Dropout,
}

impl TransformerPositionalEncoding {
    /// `max_len` is 5000 in the lecture; `p_drop` in `[0, 1]`.
    #[errors_as]
    pub fn new(d_model: usize, p_drop: f64, max_len: usize) -> Result<Self> {
        let pe = transformer_encoding_table(max_len, d_model)?.unsqueeze(0)?;
        let dropout = Dropout::new(p_drop)?;
        Ok(TransformerPositionalEncoding { d_model, max_len, pe, dropout })
    }

    /// Shares an existing table `(1, max_len, d_model)` (the Transformer's source and target
    /// encodings use one).
    #[errors_as("TransformerPositionalEncoding")]
    pub fn with_table(pe: Tensor, p_drop: f64) -> Result<Self> {
        let (max_len, d_model) = match pe.dims() {
            &[1, m, d] if m > 0 && d > 0 => (m, d),
            d => return Err(invalid(format!("expected a table of shape (1, max_len, d_model), got {d:?}"))),
        };
        Ok(TransformerPositionalEncoding { d_model, max_len, pe, dropout: Dropout::new(p_drop)? })
    }

    /// Adds each position's encoding, then dropout. A sequence longer than `max_len` is an error.
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
        let x = x.broadcast_add(&self.pe.narrow(1, 0, l)?)?;
        self.dropout.forward(&x)
    }

    /// [`TransformerPositionalEncoding::forward`] for positions `start..start + L` (incremental
    /// decoding adds the new positions' encodings only), without checks: the caller has checked
    /// `x` against `d_model` and `start + L <= max_len`.
    pub(crate) fn forward_at(&self, x: &Tensor, start: usize) -> Result<Tensor> {
        let l = x.dim(1)?;
        self.dropout.forward(&x.broadcast_add(&self.pe.narrow(1, start, l)?)?)
    }
}

// By hand: the table is a buffer, not a child.
impl Walk for TransformerPositionalEncoding {
    fn walk(&self, w: &mut Walker) {
        // The table `pe` `(1, max_len, d_model)`, registered as a buffer by the lecture's module.
        w.buffer("pe", &self.pe);
        w.child("dropout", &self.dropout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as the crate first built it, entry by entry in float32: the reference the
    /// tensor form must match bit for bit.
    fn table_by_loops(max_len: usize, d_model: usize) -> Vec<f32> {
        let div_terms: Vec<f32> = (0..d_model).step_by(2).map(|two_i| 10000f32.powf(two_i as f32 / d_model as f32)).collect();
        let mut pe = vec![0f32; max_len * d_model];
        for (pos, row) in pe.chunks_mut(d_model).enumerate() {
            for (k, div) in div_terms.iter().enumerate() {
                let angle = pos as f32 / div;
                row[2 * k] = angle.sin();
                if 2 * k + 1 < d_model {
                    row[2 * k + 1] = angle.cos();
                }
            }
        }
        pe
    }

    #[test]
    fn the_table_is_the_loops_bit_for_bit() -> Result<()> {
        for (max_len, d_model) in [(1, 1), (1, 2), (3, 1), (10, 8), (7, 5), (100, 6), (50, 33), (5000, 512), (2048, 63), (1, 1000)] {
            let table = transformer_encoding_table(max_len, d_model)?;
            assert_eq!(table.dims(), [max_len, d_model]);
            let new: Vec<u32> = table.flatten_all()?.to_vec1::<f32>()?.iter().map(|v| v.to_bits()).collect();
            let old: Vec<u32> = table_by_loops(max_len, d_model).iter().map(|v| v.to_bits()).collect();
            assert!(new == old, "max_len {max_len}, d_model {d_model}: the tables differ");
        }
        Ok(())
    }
}
