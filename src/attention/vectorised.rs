//! Narrow multi-head attention, vectorised as in the blog post: one `d_model x d_model`
//! projection each for the queries, keys and values, the heads split off by a reshape and a
//! transpose, so every head is computed in one batched product instead of a loop.

use super::narrow::{MhaOutput, NarrowMultiHeadAttention, check_head_size, check_qkv};
use crate::nn::{Dropout, Linear, Param, Walk, errors_as};
use candle_core::{Result, Tensor};

use super::additive_mask::attend_transposed;
use super::kv::ProjectedKv;
use crate::nn::fused::heads::{merge_heads, split_heads, split_heads_transposed};

/// The blog post's `MultiHeadAttention(embed_dim, num_heads)`: `query`, `key`, `value` and
/// `output` are each a `Linear(d_model, d_model)`; the projections are viewed as
/// `(N, L, n_heads, d_k)` and transposed to `(N, n_heads, L, d_k)`, attended over in one batched
/// product (with an optional additive mask), put back to `(N, Lq, d_model)` and mapped by
/// `output`; dropout follows, as in [`NarrowMultiHeadAttention`].
///
/// It computes what the narrow form computes: row block `h` of `query.weight` is head `h`'s
/// `linear_Qs.{h}.weight` (see [`VectorisedMultiHeadAttention::from_narrow`]). Parameters
/// `query`, `key`, `value`, `output`, drawn in that order.
#[derive(Clone, Debug, Walk)]
pub struct VectorisedMultiHeadAttention {
    #[walk(skip)]
    pub d_model: usize,
    #[walk(skip)]
    pub n_heads: usize,
    /// `d_model / n_heads`, every head's width.
    #[walk(skip)]
    pub d_k: usize,
    pub query: Linear,
    pub key: Linear,
    pub value: Linear,
    pub output: Linear,
    pub dropout: Dropout,
}

/// Stacks the heads' layers into one `Linear(d_model, n_heads * d_k)`: weights and biases
/// concatenated along the output dimension, as fresh parameters.
fn stack_heads(heads: &[Linear]) -> Result<Linear> {
    let weights: Vec<Tensor> = heads.iter().map(|l| l.weight.tensor().detach()).collect();
    let biases: Vec<Tensor> = heads.iter().filter_map(|l| l.bias.as_ref().map(|b| b.tensor().detach())).collect();
    let weight = Tensor::cat(&weights, 0)?;
    let bias = if biases.len() == heads.len() { Some(Param::new(&Tensor::cat(&biases, 0)?)?) } else { None };
    let (out_features, in_features) = weight.dims2()?;
    Ok(Linear { weight: Param::new(&weight)?, bias, in_features, out_features })
}

fn copy(l: &Linear) -> Result<Linear> {
    let bias = match &l.bias {
        Some(b) => Some(Param::new(&b.tensor().detach().copy()?)?),
        None => None,
    };
    Ok(Linear { weight: Param::new(&l.weight.tensor().detach().copy()?)?, bias, ..l.clone() })
}

impl VectorisedMultiHeadAttention {
    /// `n_heads` must divide `d_model`; `p_drop` in `[0, 1]`.
    #[errors_as]
    pub fn new(d_model: usize, n_heads: usize, p_drop: f64) -> Result<Self> {
        let d_k = check_head_size(d_model, n_heads)?;
        let dropout = Dropout::new(p_drop)?;
        let query = Linear::new(d_model, d_model)?;
        let key = Linear::new(d_model, d_model)?;
        let value = Linear::new(d_model, d_model)?;
        let output = Linear::new(d_model, d_model)?;
        Ok(VectorisedMultiHeadAttention { d_model, n_heads, d_k, query, key, value, output, dropout })
    }

    /// The vectorised form of a narrow attention, with copies of its weights: the heads'
    /// query, key and value layers stacked row block by row block, its `mha_linear` as `output`,
    /// the same dropout probability and mode. Both then give the same output and weights.
    #[errors_as]
    pub fn from_narrow(narrow: &NarrowMultiHeadAttention) -> Result<Self> {
        Ok(VectorisedMultiHeadAttention {
            d_model: narrow.d_model,
            n_heads: narrow.n_heads,
            d_k: narrow.d_k,
            query: stack_heads(&narrow.linear_qs)?,
            key: stack_heads(&narrow.linear_ks)?,
            value: stack_heads(&narrow.linear_vs)?,
            output: copy(&narrow.mha_linear)?,
            dropout: narrow.dropout.clone(),
        })
    }

    /// `(N, L, D)` -> `(N, n_heads, L, d_k)`.
    fn split_heads(&self, x: &Tensor) -> Result<Tensor> {
        split_heads(x, self.n_heads, self.d_k)
    }

    /// Attention of the queries over the keys and values, all heads at once; returns the output
    /// and the weights it computed (nothing is kept).
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, D)`; `key`, `value`: `(N, Lk, D)` with `D = d_model`
    /// - `mask`: optional additive mask `(1 or N, 1 or Lq, Lk)`, the same for every head
    /// - returns the output `(N, Lq, D)` and the weights `(N, n_heads, Lq, Lk)`
    #[errors_as]
    pub fn forward(&self, query: &Tensor, key: &Tensor, value: &Tensor, mask: Option<&Tensor>) -> Result<MhaOutput> {
        check_qkv(self.d_model, query, key, value, mask)?;
        let kv = self.project_kv(key, value)?;
        self.attend_kv(query, &kv, mask)
    }

    /// The keys and values projected and split into heads, `(N, n_heads, Lk, d_k)`: what
    /// [`VectorisedMultiHeadAttention::attend_kv`] reads (incremental decoding keeps them).
    pub(crate) fn project_kv(&self, key: &Tensor, value: &Tensor) -> Result<ProjectedKv> {
        let keys_t = vec![split_heads_transposed(&self.key.forward(key)?, self.n_heads, self.d_k)?];
        let values = vec![self.split_heads(&self.value.forward(value)?)?];
        Ok(ProjectedKv { keys_t, values })
    }

    /// The queries' attention over keys and values projected already, without checks (the
    /// callers check the shapes and the mask).
    pub(crate) fn attend_kv(&self, query: &Tensor, kv: &ProjectedKv, mask: Option<&Tensor>) -> Result<MhaOutput> {
        let q = self.split_heads(&self.query.forward(query)?)?;
        let mask = mask.map(|m| m.unsqueeze(1)).transpose()?;
        let (attended, weights) = attend_transposed(&q, &kv.keys_t[0], &kv.values[0], mask.as_ref())?;
        let concat = merge_heads(&attended)?; // (N, Lq, D)
        let output = self.dropout.forward(&self.output.forward(&concat)?)?;
        Ok(MhaOutput { output, weights })
    }

    /// Every head's projected queries `(N, n_heads, Lq, d_k)` and keys `(N, n_heads, Lk, d_k)`
    /// (for the score terms), unchecked.
    pub(crate) fn project_qk(&self, query: &Tensor, key: &Tensor) -> Result<(Tensor, Tensor)> {
        Ok((self.split_heads(&self.query.forward(query)?)?, self.split_heads(&self.key.forward(key)?)?))
    }
}
