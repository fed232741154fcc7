//! `nn.Embedding`: a lookup table of vectors, initialised with standard normals.

use super::errors_as;
use super::module::{Walk, Walker};
use super::param::Param;
use super::shape::{check_size, invalid};
use crate::repro;
use candle_core::{DType, Result, Tensor};

/// `nn.Embedding(num_embeddings, embedding_dim)`, initialised with standard normals.
#[derive(Clone, Debug)]
pub struct Embedding {
    pub weight: Param,
    pub num_embeddings: usize,
    pub embedding_dim: usize,
}

impl Embedding {
    #[errors_as]
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Self> {
        if num_embeddings == 0 || embedding_dim == 0 {
            return Err(invalid(format!("sizes must be positive, got ({num_embeddings}, {embedding_dim})")));
        }
        check_size(&[num_embeddings, embedding_dim])?;
        let weight = Param::new(&repro::randn((num_embeddings, embedding_dim))?)?;
        Ok(Embedding { weight, num_embeddings, embedding_dim })
    }

    /// Looks up one vector per id.
    ///
    /// # Shapes
    /// - `ids`: integer ids of any shape `S`
    /// - returns `(S..., embedding_dim)`
    #[errors_as]
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let idx = check_ids(ids, self.num_embeddings)?;
        let mut dims = ids.dims().to_vec();
        dims.push(self.embedding_dim);
        let n = idx.len();
        let idx = Tensor::from_vec(idx, n, ids.device())?;
        self.weight.tensor().index_select(&idx, 0)?.reshape(dims)
    }
}

/// Checks that `ids` hold whole numbers in `[0, num_embeddings)` (integers, or whole floats);
/// returns them as row indices.
fn check_ids(ids: &Tensor, num_embeddings: usize) -> Result<Vec<u32>> {
    let readable = matches!(ids.dtype(), DType::U8 | DType::U32 | DType::I64 | DType::F16 | DType::BF16 | DType::F32 | DType::F64);
    if !readable {
        return Err(invalid(format!("expected integer ids (u8, u32, i64) or whole floats, got dtype {:?}", ids.dtype())));
    }
    let values = ids.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()?;
    let mut idx = Vec::with_capacity(values.len());
    for (k, v) in values.iter().enumerate() {
        if !(v.is_finite() && v.fract() == 0.0 && *v >= 0.0 && *v < num_embeddings as f64) {
            return Err(invalid(format!(
                "id {v} (position {k}) is not a whole number in [0, {num_embeddings}) for {num_embeddings} embeddings"
            )));
        }
        idx.push(*v as u32);
    }
    Ok(idx)
}

impl Walk for Embedding {
    fn walk(&self, w: &mut Walker) {
        w.param("weight", &self.weight);
    }
}
