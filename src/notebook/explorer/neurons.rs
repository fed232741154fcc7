//! The neuron view's data: every layer's and head's score terms of one kind of attention, for one
//! sequence, flattened as the script reads them (see [`Neurons`]).

use super::AttentionKind;
use crate::attention::{Attention, ScoreTerms};
use crate::nn::shape::{error, shape_error};
use candle_core::{DType, Result, Tensor};

/// One kind's score terms, sequence by sequence flattened `[layer][head]...` (see
/// [`ScoreTerms`] for what each is). Score `(i, j)` of a head is the sum over `dim` of
/// `left[i] * right[j]` (`left[0]` where one vector is shared, `right[i][j]` where each pair has
/// its own), the `dots`; `scaling` turns them into the `scores`, whose softmax is the `weights`.
#[derive(Clone, Debug, PartialEq)]
pub struct Neurons {
    /// The score function: "scaled dot", "dot", "general", "additive" or "cosine".
    pub score: String,
    /// The two vectors' names, as [`ScoreTerms::labels`].
    pub labels: (String, String),
    /// The vectors' length.
    pub dim: usize,
    /// `[layer][head][row][dim]`, or `[layer][head][1][dim]` for one vector every query shares.
    pub left: Vec<f32>,
    pub left_per_query: bool,
    /// `[layer][head][col][dim]`, or `[layer][head][row][col][dim]` for a vector per pair.
    pub right: Vec<f32>,
    pub right_per_query: bool,
    /// `[layer][head][row][col]` each.
    pub dots: Vec<f32>,
    pub scaling: String,
    /// `-inf` where a mask hid the key.
    pub scores: Vec<f32>,
    pub weights: Vec<f32>,
}

/// Sequence `batch` of a tensor `(N, heads, dims...)` whose dims after the head axis are `tail`
/// (where `Some`), as f32 values.
fn sequence(what: &str, t: &Tensor, batch: usize, heads: usize, tail: &[Option<usize>]) -> Result<Vec<f32>> {
    let d = t.dims();
    let fits =
        d.len() == 2 + tail.len() && batch < d[0] && d[1] == heads && tail.iter().zip(&d[2..]).all(|(w, &g)| w.is_none_or(|w| w == g));
    if !fits {
        let dims: Vec<String> = tail.iter().map(|w| w.map_or("_".to_string(), |w| w.to_string())).collect();
        let want = format!("{what} (N, {heads}, {}) holding sequence {batch}", dims.join(", "));
        return Err(shape_error("explore", want, d));
    }
    t.get(batch)?.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
}

impl Neurons {
    /// Every layer's terms of sequence `batch`, for `rows` queries and `cols` keys.
    pub fn from_terms(terms: &[ScoreTerms], batch: usize, rows: usize, cols: usize) -> Result<Self> {
        let first = terms.first().ok_or_else(|| error("explore", "no layers of score terms"))?;
        let (heads, dim) = (first.dots.dims().get(1).copied().unwrap_or(0), first.left.dims().last().copied().unwrap_or(0));
        let mut out = Neurons {
            score: first.score.to_string(),
            labels: (first.labels.0.to_string(), first.labels.1.to_string()),
            dim,
            left: vec![],
            left_per_query: first.left.dims().get(2) != Some(&1) || rows == 1,
            right: vec![],
            right_per_query: first.right.rank() == 5,
            dots: vec![],
            scaling: first.scaling.clone(),
            scores: vec![],
            weights: vec![],
        };
        for (i, t) in terms.iter().enumerate() {
            let at = |e: candle_core::Error| error("explore", format!("score terms of layer {i}: {e}"));
            if (t.score, t.labels, &t.scaling) != (first.score, first.labels, &first.scaling) {
                return Err(at(error("explore", "every layer's terms must be of the same score function")));
            }
            let left_rows = if out.left_per_query { rows } else { 1 };
            out.left.extend(sequence("left", &t.left, batch, heads, &[Some(left_rows), Some(dim)]).map_err(at)?);
            let right_tail: &[Option<usize>] =
                if out.right_per_query { &[Some(rows), Some(cols), Some(dim)] } else { &[Some(cols), Some(dim)] };
            out.right.extend(sequence("right", &t.right, batch, heads, right_tail).map_err(at)?);
            for (name, t, v) in
                [("dots", &t.dots, &mut out.dots), ("scores", &t.scores, &mut out.scores), ("weights", &t.weights, &mut out.weights)]
            {
                v.extend(sequence(name, t, batch, heads, &[Some(rows), Some(cols)]).map_err(at)?);
            }
        }
        Ok(out)
    }
}

impl AttentionKind {
    /// A kind from every layer's score terms of sequence `batch` (the weights are the terms'),
    /// with its neuron view.
    pub fn from_terms<R: AsRef<str>, C: AsRef<str>>(
        name: &str,
        terms: &[ScoreTerms],
        batch: usize,
        rows: &[R],
        cols: &[C],
    ) -> Result<Self> {
        let weights: Vec<Tensor> = terms.iter().map(|t| t.weights.clone()).collect();
        let mut kind = AttentionKind::from_layers(name, &weights, batch, rows, cols)?;
        let neurons = Neurons::from_terms(terms, batch, rows.len(), cols.len()).map_err(|e| error("explore", format!("{name}: {e}")))?;
        kind.neurons = Some(neurons);
        Ok(kind)
    }

    /// The lecture's `Attention` after a forward pass: its alphas of sequence 0 and the terms of
    /// its scores ([`Attention::score_terms`]).
    pub fn from_attention<Q: AsRef<str>, K: AsRef<str>>(name: &str, attention: &Attention, queries: &[Q], keys: &[K]) -> Result<Self> {
        AttentionKind::from_terms(name, &[attention.score_terms()?], 0, queries, keys)
    }
}
