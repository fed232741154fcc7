//! `nn.Embedding`: a lookup table of vectors, initialised with standard normals.

use super::module::{Module, NamedParams};
use super::param::Param;
use crate::repro;
use candle_core::{DType, Result, Tensor, bail};

/// `nn.Embedding(num_embeddings, embedding_dim)`, initialised with standard normals.
#[derive(Clone, Debug)]
pub struct Embedding {
    pub weight: Param,
    pub num_embeddings: usize,
    pub embedding_dim: usize,
}

impl Embedding {
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Self> {
        if num_embeddings == 0 || embedding_dim == 0 {
            bail!("Embedding: sizes must be positive, got ({num_embeddings}, {embedding_dim})")
        }
        let weight = Param::new(&repro::randn((num_embeddings, embedding_dim))?)?;
        Ok(Embedding { weight, num_embeddings, embedding_dim })
    }

    /// Looks up one vector per id.
    ///
    /// # Shapes
    /// - `ids`: integer ids of any shape `S`
    /// - returns `(S..., embedding_dim)`
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let ids = ids.to_dtype(DType::U32)?;
        let max = ids.flatten_all()?.max(0)?.to_scalar::<u32>()? as usize;
        if max >= self.num_embeddings {
            bail!("Embedding: index {max} out of range for {} embeddings", self.num_embeddings)
        }
        let mut dims = ids.dims().to_vec();
        dims.push(self.embedding_dim);
        self.weight.tensor().index_select(&ids.flatten_all()?, 0)?.reshape(dims)
    }
}

impl Module for Embedding {
    fn named_parameters(&self) -> NamedParams {
        vec![("weight".to_string(), self.weight.clone())]
    }
}
