//! Keys and values projected once and kept: what a decoder reuses at every step of incremental
//! decoding (its own earlier positions, the encoder's memory), instead of projecting them again.

use candle_core::{Result, Tensor};

/// The projected keys and values of a multi-head attention, split into heads as it reads them:
/// the narrow form keeps one `(N, L, d_k)` tensor per head, the vectorised form one
/// `(N, n_heads, L, d_k)` tensor. `L`, the positions, lies on the second-to-last dim of each.
#[derive(Clone, Debug)]
pub struct ProjectedKv {
    pub(crate) keys: Vec<Tensor>,
    pub(crate) values: Vec<Tensor>,
}

impl ProjectedKv {
    /// The positions held, `L`.
    pub fn len(&self) -> usize {
        self.keys.first().map_or(0, |k| k.dims()[k.rank() - 2])
    }

    /// Whether no position is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// These positions followed by `more`'s (the same heads and rows).
    pub fn append(&self, more: &ProjectedKv) -> Result<ProjectedKv> {
        let cat = |a: &[Tensor], b: &[Tensor]| -> Result<Vec<Tensor>> {
            a.iter().zip(b).map(|(x, y)| Tensor::cat(&[x, y], x.rank() - 2)).collect()
        };
        Ok(ProjectedKv { keys: cat(&self.keys, &more.keys)?, values: cat(&self.values, &more.values)? })
    }

    /// The rows (sentences) at `rows`, in that order, repeats allowed.
    ///
    /// # Shapes
    /// - `rows`: integer indices `(K,)` into the `N` rows; returns `K` rows
    pub fn select_rows(&self, rows: &Tensor) -> Result<ProjectedKv> {
        let pick = |ts: &[Tensor]| -> Result<Vec<Tensor>> { ts.iter().map(|t| t.index_select(rows, 0)).collect() };
        Ok(ProjectedKv { keys: pick(&self.keys)?, values: pick(&self.values)? })
    }
}
