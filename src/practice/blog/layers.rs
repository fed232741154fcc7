//! Part 5's layers: the plain QKV layer, one LSTM cell step, the vectorised multi-head
//! attention and a bidirectional LSTM's outputs.

use crate::attention::{AttentionLayer, VectorisedMultiHeadAttention};
use crate::nn::{Lstm, LstmCell, reverse_time, sigmoid, softmax};
use crate::practice::answer::Tolerance;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::run::{Mistake, Outcome, check};
use crate::practice::{Info, exercise, solution};
use candle_core::{D, Result, Tensor};

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

impl Q1 {
    /// Checks `f(layer, query (N, Lq, in), key (N, L, in), value (N, L, in)) -> (N, Lq, out)`
    /// against the crate's `AttentionLayer::forward`.
    pub fn check(&self, f: impl Fn(&AttentionLayer, &Tensor, &Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        let cases = || -> Result<Vec<Case<QkvCase<AttentionLayer>>>> {
            Ok(vec![
                Case::new("self-attention, a batch of 3, 5 tokens, 4 features to 6, seed 11", layer_case(11, 3, 5, 5, 4, 6)?),
                Case::new("one query over 7 keys, a batch of one, 3 features to 2, seed 12", layer_case(12, 1, 1, 7, 3, 2)?),
                Case::new("2 queries over 6 keys, a batch of 2, 5 features to 5, seed 13", layer_case(13, 2, 2, 6, 5, 5)?),
            ])
        };
        let reference = |(layer, q, k, v): &QkvCase<AttentionLayer>| layer.clone().forward(q, k, v);
        let mistakes: &[Mistake<QkvCase<AttentionLayer>, Tensor>] = &[
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
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(layer, q, k, v)| f(layer, q, k, v))
    }
}

/// A cell under one seed, an input step, and the hidden and cell states.
type CellCase = (LstmCell, Tensor, Tensor, Tensor);

/// The gates of a step in PyTorch's stacked order `i, f, g, o`, as four `(N, H)` tensors.
fn gates((cell, x, h, _): &CellCase) -> Result<Vec<Tensor>> {
    let w = &cell.weights;
    let gx = x.matmul(&w.weight_ih.tensor().t()?)?.broadcast_add(&w.bias_ih.tensor())?;
    let gh = h.matmul(&w.weight_hh.tensor().t()?)?.broadcast_add(&w.bias_hh.tensor())?;
    (gx + gh)?.chunk(4, 1)
}

exercise! {
    /// One step of an LSTM cell, by hand, in PyTorch's gate order.
    q2: Q2 = Info {
        id: "05.q2",
        title: "one LSTM cell step by hand",
        lecture: "004#11",
        hints: &[
            "All four gates come from one product: `x W_ih^T + b_ih + h W_hh^T + b_hh`, (N, 4H); `chunk(4, 1)` cuts it into four (N, H) blocks.",
            "PyTorch stacks the blocks as input, forget, cell candidate, output (i, f, g, o): sigmoid for i, f and o, tanh for g.",
            "`c' = f * c + i * g` and `h' = o * tanh(c')`; return `(h', c')`.",
        ],
        solution: solution!(blog::lstm_cell_step),
    }
}

impl Q2 {
    /// Checks `f(x (N, F), h (N, H), c (N, H), weight_ih (4H, F), weight_hh (4H, H), bias_ih (4H),
    /// bias_hh (4H)) -> (h', c')` against the crate's `LstmCell`.
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Tensor, &Tensor, &Tensor, &Tensor, &Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        let case = |seed, n: usize, features: usize, hidden: usize| -> Result<CellCase> {
            let cell = seeded(seed, || LstmCell::new(features, hidden))?;
            Ok((cell, randn(seed + 1, &[n, features])?, randn(seed + 2, &[n, hidden])?, randn(seed + 3, &[n, hidden])?))
        };
        let cases = || -> Result<Vec<Case<CellCase>>> {
            Ok(vec![
                Case::new("a batch of 2, 3 features, 4 hidden units, seed 21", case(21, 2, 3, 4)?),
                Case::new("a batch of one, 5 features, 8 hidden units, seed 22", case(22, 1, 5, 8)?),
                Case::new("a batch of 3, 2 features, 3 hidden units, seed 23", case(23, 3, 2, 3)?),
            ])
        };
        let reference = |(cell, x, h, c): &CellCase| cell.forward(x, Some((h, c)));
        let mistakes: &[Mistake<CellCase, (Tensor, Tensor)>] = &[
            Mistake {
                sentence: "The gates are read in the order i, f, o, g: PyTorch stacks them as i, f, g, o (the cell candidate third, the output gate last).",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, o, cand) = (sigmoid(&g[0])?, sigmoid(&g[1])?, sigmoid(&g[2])?, g[3].tanh()?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "The gates are read in the order i, g, f, o (TensorFlow's): PyTorch stacks them as i, f, g, o, the forget gate second and the candidate third.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, cand, f, o) = (sigmoid(&g[0])?, g[1].tanh()?, sigmoid(&g[2])?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "Only one bias is added: the gates are x W_ih^T + b_ih + h W_hh^T + b_hh, with both biases.",
                answer: |case| {
                    let w = &case.0.weights;
                    let g = (case.1.matmul(&w.weight_ih.tensor().t()?)?.broadcast_add(&w.bias_ih.tensor())?
                        + case.2.matmul(&w.weight_hh.tensor().t()?)?)?
                    .chunk(4, 1)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, g[2].tanh()?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
            Mistake {
                sentence: "The two states are returned as (c', h'): the step returns the hidden state first, (h', c').",
                answer: |(cell, x, h, c)| {
                    let (h, c) = cell.forward(x, Some((h, c)))?;
                    Ok((c, h))
                },
            },
            Mistake {
                sentence: "The new hidden state is the output gate times tanh of the new cell state, `o * tanh(c')`: the tanh is missing.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, g[2].tanh()?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * &c)?, c))
                },
            },
            Mistake {
                sentence: "The cell candidate g goes through tanh, not sigmoid: it proposes values in (-1, 1); only i, f and o are sigmoid gates.",
                answer: |case| {
                    let g = gates(case)?;
                    let (i, f, cand, o) = (sigmoid(&g[0])?, sigmoid(&g[1])?, sigmoid(&g[2])?, sigmoid(&g[3])?);
                    let c = ((f * &case.3)? + (i * cand)?)?;
                    Ok(((o * c.tanh()?)?, c))
                },
            },
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(cell, x, h, c)| {
            let w = &cell.weights;
            f(x, h, c, &w.weight_ih.tensor(), &w.weight_hh.tensor(), &w.bias_ih.tensor(), &w.bias_hh.tensor())
        })
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

impl Q3 {
    /// Checks `f(mha, query (N, Lq, D), key (N, L, D), value (N, L, D)) -> (N, Lq, D)` against
    /// the crate's `VectorisedMultiHeadAttention::forward` (no mask, no dropout).
    pub fn check(&self, f: impl Fn(&VectorisedMultiHeadAttention, &Tensor, &Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        let case = |seed, n: usize, lq: usize, l: usize, d: usize, heads: usize| -> Result<QkvCase<VectorisedMultiHeadAttention>> {
            let mha = seeded(seed, || VectorisedMultiHeadAttention::new(d, heads, 0.0))?;
            let query = randn(seed + 1, &[n, lq, d])?;
            let key = if lq == l { query.clone() } else { randn(seed + 2, &[n, l, d])? };
            Ok((mha, query, key.clone(), key))
        };
        let cases = || -> Result<Vec<Case<QkvCase<VectorisedMultiHeadAttention>>>> {
            Ok(vec![
                Case::new("self-attention, a batch of one, 5 tokens, 8 features in 2 heads, seed 31", case(31, 1, 5, 5, 8, 2)?),
                Case::new("3 queries over 6 keys, a batch of 2, 12 features in 3 heads, seed 32", case(32, 2, 3, 6, 12, 3)?),
                Case::new("self-attention, a batch of 3, 4 tokens, 6 features in 6 heads of one, seed 33", case(33, 3, 4, 4, 6, 6)?),
            ])
        };
        let reference = |(mha, q, k, v): &QkvCase<VectorisedMultiHeadAttention>| Ok(mha.forward(q, k, v, None)?.output);
        let mistakes: &[Mistake<QkvCase<VectorisedMultiHeadAttention>, Tensor>] = &[
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
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(mha, q, k, v)| f(mha, q, k, v))
    }
}

/// A bidirectional LSTM under one seed, its two directions as LSTMs of their own, and a batch.
type BiCase = (Lstm, Lstm, Lstm, Tensor);

exercise! {
    /// A bidirectional LSTM's outputs from two one-way LSTMs.
    q4: Q4 = Info {
        id: "05.q4",
        title: "a bidirectional LSTM's outputs",
        lecture: "004#19",
        hints: &[
            "The forward direction reads the batch as it is; the backward one reads it back to front: `reverse_time(x)?` flips the steps (dimension 1).",
            "The backward LSTM's outputs come out in reversed order: flip them back so that step t of both directions lines up.",
            "`Tensor::cat(&[forward_out, backward_out], 2)`: the two directions side by side on the features, (N, L, 2H), forward first.",
        ],
        solution: solution!(blog::bidirectional_outputs),
    }
}

impl Q4 {
    /// Checks `f(forward_lstm, backward_lstm, x (N, L, F)) -> (N, L, 2H)` against the crate's
    /// bidirectional `Lstm` whose two directions have the same weights.
    pub fn check(&self, f: impl Fn(&Lstm, &Lstm, &Tensor) -> Result<Tensor>) -> Outcome {
        let case = |seed, n: usize, l: usize, features: usize, hidden: usize| -> Result<BiCase> {
            let (bi, fwd, bwd) = seeded(seed, || {
                let bi = Lstm::with_layers(features, hidden, 1, true)?;
                let (mut fwd, mut bwd) = (Lstm::new(features, hidden)?, Lstm::new(features, hidden)?);
                fwd.weights = vec![bi.weights[0].clone()];
                bwd.weights = vec![bi.weights[1].clone()];
                Ok((bi, fwd, bwd))
            })?;
            Ok((bi, fwd, bwd, randn(seed + 1, &[n, l, features])?))
        };
        let cases = || -> Result<Vec<Case<BiCase>>> {
            Ok(vec![
                Case::new("a batch of 2, 4 steps, 3 features, 5 units a direction, seed 41", case(41, 2, 4, 3, 5)?),
                Case::new("one step, a batch of one, 2 features, 3 units, seed 42", case(42, 1, 1, 2, 3)?),
                Case::new("a batch of 3, 7 steps, 4 features, 6 units, seed 43", case(43, 3, 7, 4, 6)?),
            ])
        };
        let reference = |(bi, _, _, x): &BiCase| Ok(bi.forward(x, None)?.0);
        let mistakes: &[Mistake<BiCase, Tensor>] = &[
            Mistake {
                sentence: "The backward outputs are still back to front: flip them again with reverse_time, so that position t of both directions describes the same token.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, bwd.forward(&reverse_time(x)?, None)?.0], 2),
            },
            Mistake {
                sentence: "The backward LSTM read the sequence front to back: give it `reverse_time(x)`, then flip its outputs back.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, bwd.forward(x, None)?.0], 2),
            },
            Mistake {
                sentence: "The backward LSTM's outputs were flipped but not its input: it must read the sequence back to front, `reverse_time(x)`, before its outputs are flipped back.",
                answer: |(_, fwd, bwd, x)| Tensor::cat(&[fwd.forward(x, None)?.0, reverse_time(&bwd.forward(x, None)?.0)?], 2),
            },
            Mistake {
                sentence: "The directions are joined on the steps (dimension 1): they go side by side on the features, the last dimension, (N, L, 2H).",
                answer: |(_, fwd, bwd, x)| {
                    Tensor::cat(&[fwd.forward(x, None)?.0, reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?], 1)
                },
            },
            Mistake {
                sentence: "The directions are in the wrong order: PyTorch puts the forward direction's H features first, then the backward's.",
                answer: |(_, fwd, bwd, x)| {
                    Tensor::cat(&[reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?, fwd.forward(x, None)?.0], D::Minus1)
                },
            },
        ];
        check(&Self::INFO, cases(), reference, mistakes, Tolerance::F32, |(_, fwd, bwd, x)| f(fwd, bwd, x))
    }
}
