//! Part 5's attention layers: the plain QKV layer and the vectorised multi-head attention.

use crate::attention::{AttentionLayer, VectorisedMultiHeadAttention};
use crate::nn::softmax;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{Result, Tensor};

/// A layer under one seed, with its query, key and value inputs.
type QkvCase<M> = (M, Tensor, Tensor, Tensor);

/// `AttentionLayer::new(input_dim, output_dim)` under `seed`, `n` batches of `lq` queries and `l` keys.
fn layer_case(seed: u64, n: usize, lq: usize, l: usize, input_dim: usize, output_dim: usize) -> Result<QkvCase<AttentionLayer>> {
    let layer = seeded(seed, || AttentionLayer::new(input_dim, output_dim))?;
    let query = randn(seed + 1, &[n, lq, input_dim])?;
    let key = randn(seed + 2, &[n, l, input_dim])?;
    Ok((layer, query, key.clone(), if lq == l { key } else { randn(seed + 3, &[n, l, input_dim])? }))
}

exercise! {
    /// The blog post's plain attention layer: projections, unscaled scores, softmax, weighted sum.
    q1: Q1 = Info {
        id: "05.q1",
        title: "the plain query-key-value attention layer",
        lecture: "004#3",
        hints: &[
            "Each input goes through its own layer: `layer.query`, `layer.key`, `layer.value`, each a `Linear`.",
            "The scores are the projected queries times the projected keys with their last two dimensions swapped (`.t()?`), (N, Lq, L); this layer does not scale them.",
            "`softmax(&scores)?` normalises over the last dimension, the keys; multiply the weights by `layer.value.forward(value)?`.",
        ],
        solution: solution!(blog::attention_layer_forward),
    }
}

impl Exercise for Q1 {
    type Input = QkvCase<AttentionLayer>;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("self-attention, a batch of 3, 5 tokens, 4 features to 6, seed 11", layer_case(11, 3, 5, 5, 4, 6)?),
            Case::new("one query over 7 keys, a batch of one, 3 features to 2, seed 12", layer_case(12, 1, 1, 7, 3, 2)?),
            Case::new("2 queries over 6 keys, a batch of 2, 5 features to 5, seed 13", layer_case(13, 2, 2, 6, 5, 5)?),
        ])
    }

    fn reference((layer, q, k, v): &Self::Input) -> Result<Tensor> {
        layer.clone().forward(q, k, v)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The scores are scaled: the post's plain layer softmaxes the raw dot products; dividing by sqrt(d) is what its multi-head layer does.",
                answer: |(layer, q, k, v)| {
                    let d = layer.query.out_features as f64;
                    let scores = (layer.query.forward(q)?.matmul(&layer.key.forward(k)?.t()?)? / d.sqrt())?;
                    softmax(&scores)?.matmul(&layer.value.forward(v)?)
                },
            },
            Mistake {
                sentence: "The softmax runs over the queries (dimension 1): each query's row of scores, over the keys (the last dimension), must add up to 1.",
                answer: |(layer, q, k, v)| {
                    let scores = layer.query.forward(q)?.matmul(&layer.key.forward(k)?.t()?)?;
                    candle_nn::ops::softmax(&scores, 1)?.matmul(&layer.value.forward(v)?)
                },
            },
            Mistake {
                sentence: "The weights mix the raw values: the values go through `layer.value` first, as the queries and keys go through theirs.",
                answer: |(layer, q, k, v)| {
                    let scores = layer.query.forward(q)?.matmul(&layer.key.forward(k)?.t()?)?;
                    softmax(&scores)?.matmul(v)
                },
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(layer, query (N, Lq, in), key (N, L, in), value (N, L, in)) -> (N, Lq, out)`
    /// against the crate's `AttentionLayer::forward`.
    pub fn check(&self, f: impl Fn(&AttentionLayer, &Tensor, &Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(layer, q, k, v)| f(layer, q, k, v))
    }
}

/// The blog post's attention of `mha`, with its heads split and merged by `split` and `merge`
/// and the scores divided by `scale`: the wrong answers of q3.
fn mha_with(
    (mha, query, key, value): &QkvCase<VectorisedMultiHeadAttention>,
    split: fn(&Tensor, usize, usize) -> Result<Tensor>,
    merge: fn(&Tensor) -> Result<Tensor>,
    scale: f64,
) -> Result<Tensor> {
    let (q, k, v) = (mha.query.forward(query)?, mha.key.forward(key)?, mha.value.forward(value)?);
    let (q, k, v) = (split(&q, mha.n_heads, mha.d_k)?, split(&k, mha.n_heads, mha.d_k)?, split(&v, mha.n_heads, mha.d_k)?);
    let weights = softmax(&(q.matmul(&k.t()?)? / scale)?)?;
    mha.output.forward(&merge(&weights.matmul(&v)?)?)
}

fn split_permuted(x: &Tensor, heads: usize, d_k: usize) -> Result<Tensor> {
    let (n, l, _) = x.dims3()?;
    x.reshape((n, l, heads, d_k))?.transpose(1, 2)?.contiguous()
}

fn split_reshaped(x: &Tensor, heads: usize, d_k: usize) -> Result<Tensor> {
    let (n, l, _) = x.dims3()?;
    x.reshape((n, heads, l, d_k))
}

fn merge_permuted(x: &Tensor) -> Result<Tensor> {
    let (n, heads, l, d_k) = x.dims4()?;
    x.transpose(1, 2)?.contiguous()?.reshape((n, l, heads * d_k))
}

fn merge_reshaped(x: &Tensor) -> Result<Tensor> {
    let (n, heads, l, d_k) = x.dims4()?;
    x.reshape((n, l, heads * d_k))
}

exercise! {
    /// The blog post's vectorised multi-head attention: every head at once with view and permute.
    q3: Q3 = Info {
        id: "05.q3",
        title: "multi-head attention with view and permute",
        lecture: "004#14",
        hints: &[
            "Project with `mha.query`, `mha.key`, `mha.value`, then give every head its slice: (N, L, D) -> (N, L, heads, d_k) -> (N, heads, L, d_k).",
            "The reshape alone is not enough: `reshape((n, l, mha.n_heads, mha.d_k))?.permute((0, 2, 1, 3))?.contiguous()?` (candle multiplies contiguous batches); the scores are divided by sqrt(d_k) before the softmax.",
            "After `weights.matmul(&v)`, undo the split: `permute((0, 2, 1, 3))?.contiguous()?.reshape((n, lq, mha.d_model))?`, then `mha.output`.",
        ],
        solution: solution!(blog::vectorised_attention),
    }
}

impl Exercise for Q3 {
    type Input = QkvCase<VectorisedMultiHeadAttention>;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, n: usize, lq: usize, l: usize, d: usize, heads: usize| -> Result<QkvCase<VectorisedMultiHeadAttention>> {
            let mha = seeded(seed, || VectorisedMultiHeadAttention::new(d, heads, 0.0))?;
            let query = randn(seed + 1, &[n, lq, d])?;
            let key = if lq == l { query.clone() } else { randn(seed + 2, &[n, l, d])? };
            Ok((mha, query, key.clone(), key))
        };
        Ok(vec![
            Case::new("self-attention, a batch of one, 5 tokens, 8 features in 2 heads, seed 31", case(31, 1, 5, 5, 8, 2)?),
            Case::new("3 queries over 6 keys, a batch of 2, 12 features in 3 heads, seed 32", case(32, 2, 3, 6, 12, 3)?),
            Case::new("self-attention, a batch of 3, 4 tokens, 6 features in 6 heads of one, seed 33", case(33, 3, 4, 4, 6, 6)?),
        ])
    }

    fn reference((mha, q, k, v): &Self::Input) -> Result<Tensor> {
        Ok(mha.forward(q, k, v, None)?.output)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The heads were split by a reshape to (N, heads, L, d_k) alone: that mixes tokens into heads. View as (N, L, heads, d_k), then permute(0, 2, 1, 3).",
                answer: |c| mha_with(c, split_reshaped, merge_permuted, (c.0.d_k as f64).sqrt()),
            },
            Mistake {
                sentence: "The heads were merged by a reshape alone: permute(0, 2, 1, 3) back to (N, L, heads, d_k) first, then reshape to (N, L, D).",
                answer: |c| mha_with(c, split_permuted, merge_reshaped, (c.0.d_k as f64).sqrt()),
            },
            Mistake {
                sentence: "The scores are not scaled: the post divides them by sqrt(head_dim), sqrt(d_k), before the softmax.",
                answer: |c| mha_with(c, split_permuted, merge_permuted, 1.0),
            },
            Mistake {
                sentence: "The scores are divided by sqrt(d_model): the scale is each head's width, sqrt(d_k) = sqrt(d_model / heads).",
                answer: |c| mha_with(c, split_permuted, merge_permuted, (c.0.d_model as f64).sqrt()),
            },
            Mistake {
                sentence: "The output projection is missing: after merging the heads to (N, Lq, D), apply `mha.output`.",
                answer: |(mha, query, key, value)| {
                    let (q, k, v) = (mha.query.forward(query)?, mha.key.forward(key)?, mha.value.forward(value)?);
                    let split = |t: &Tensor| split_permuted(t, mha.n_heads, mha.d_k);
                    let weights = softmax(&(split(&q)?.matmul(&split(&k)?.t()?)? / (mha.d_k as f64).sqrt())?)?;
                    merge_permuted(&weights.matmul(&split(&v)?)?)
                },
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(mha, query (N, Lq, D), key (N, L, D), value (N, L, D)) -> (N, Lq, D)` against
    /// the crate's `VectorisedMultiHeadAttention::forward` (no mask, no dropout).
    pub fn check(&self, f: impl Fn(&VectorisedMultiHeadAttention, &Tensor, &Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(mha, q, k, v)| f(mha, q, k, v))
    }
}
