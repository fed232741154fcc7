//! Keys and values projected once and kept: what a decoder reuses at every step of incremental
//! decoding (its own earlier positions, the encoder's memory), instead of projecting them again.

use crate::nn::errors_as;
use crate::nn::fused::rows::index_rows;
use candle_core::{Result, Tensor};

/// Keys `(…, L, d_k)` as [`ProjectedKv`] keeps them: `(…, d_k, L)`, contiguous.
pub(crate) fn transposed(keys: &Tensor) -> Result<Tensor> {
    let rank = keys.rank();
    keys.transpose(rank - 2, rank - 1)?.contiguous()
}

/// Keys `(…, L, d_k)` laid out transposed in memory: the same shape and values, but their
/// transpose `(…, d_k, L)` is contiguous, so that scores `q kᵀ` read them without a copy. For keys
/// made once and read at every decoder step (`Attention::init_keys`, a translator's state).
pub(crate) fn transposed_in_memory(keys: &Tensor) -> Result<Tensor> {
    let rank = keys.rank();
    transposed(keys)?.transpose(rank - 2, rank - 1)
}

/// The rows `rows` of keys kept by [`transposed_in_memory`], laid out the same way (whole
/// contiguous rows copied, no new transposition).
pub(crate) fn select_rows_transposed(keys: &Tensor, rows: &Tensor) -> Result<Tensor> {
    let rank = keys.rank();
    index_rows(&keys.transpose(rank - 2, rank - 1)?, rows)?.transpose(rank - 2, rank - 1)
}

/// The projected keys and values of a multi-head attention, split into heads as it reads them:
/// the narrow form keeps one tensor per head, the vectorised form one for all heads. The keys are
/// kept transposed, as the scores read them: `(N, d_k, L)` per head or `(N, n_heads, d_k, L)`;
/// the values `(N, L, d_k)` or `(N, n_heads, L, d_k)`.
#[derive(Clone, Debug)]
pub struct ProjectedKv {
    /// Transposed and contiguous: the positions `L` on the last dim.
    pub(crate) keys_t: Vec<Tensor>,
    /// The positions `L` on the second-to-last dim.
    pub(crate) values: Vec<Tensor>,
}

impl ProjectedKv {
    /// The positions held, `L`.
    pub fn len(&self) -> usize {
        self.keys_t.first().map_or(0, |k| k.dims()[k.rank() - 1])
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// These positions followed by `more`'s (the same heads and rows).
    #[errors_as("ProjectedKv")]
    pub fn append(&self, more: &ProjectedKv) -> Result<ProjectedKv> {
        let cat = |a: &[Tensor], b: &[Tensor], from_last: usize| -> Result<Vec<Tensor>> {
            a.iter().zip(b).map(|(x, y)| Tensor::cat(&[x, y], x.rank() - from_last)).collect()
        };
        Ok(ProjectedKv { keys_t: cat(&self.keys_t, &more.keys_t, 1)?, values: cat(&self.values, &more.values, 2)? })
    }

    /// The same keys and values without the operations that made them: what a decoding cache
    /// keeps between steps, so that each step's graph is freed with the step instead of chaining
    /// every earlier step's to the cache.
    pub fn detach(&self) -> ProjectedKv {
        ProjectedKv { keys_t: self.keys_t.iter().map(Tensor::detach).collect(), values: self.values.iter().map(Tensor::detach).collect() }
    }

    /// The rows (sentences) at `rows`, in that order, repeats allowed.
    ///
    /// # Shapes
    /// - `rows`: integer indices `(K,)` into the `N` rows; returns `K` rows
    #[errors_as("ProjectedKv")]
    pub fn select_rows(&self, rows: &Tensor) -> Result<ProjectedKv> {
        let pick = |ts: &[Tensor]| -> Result<Vec<Tensor>> { ts.iter().map(|t| index_rows(t, rows)).collect() };
        Ok(ProjectedKv { keys_t: pick(&self.keys_t)?, values: pick(&self.values)? })
    }
}
