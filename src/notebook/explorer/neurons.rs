//! The neuron view's data: every layer's and head's score terms of one kind of attention, for one
//! sequence, flattened as the script reads them (see [`Neurons`]).

use super::{AttentionKind, EXPLORE, check_layers};
use crate::attention::{Attention, ScoreTerms};
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid, shape_error};
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

/// Checks that `t` is `(N, heads, dims...)` with the dims after the head axis `tail` (where
/// `Some`) and holds sequence `batch`.
fn check_sequence(what: &str, t: &Tensor, batch: usize, heads: usize, tail: &[Option<usize>]) -> Result<()> {
    let d = t.dims();
    let fits =
        d.len() == 2 + tail.len() && batch < d[0] && d[1] == heads && tail.iter().zip(&d[2..]).all(|(w, &g)| w.is_none_or(|w| w == g));
    if !fits {
        let dims: Vec<String> = tail.iter().map(|w| w.map_or("_".to_string(), |w| w.to_string())).collect();
        let want = format!("{what} (N, {heads}, {}) holding sequence {batch}", dims.join(", "));
        return Err(shape_error(EXPLORE, want, d));
    }
    Ok(())
}

/// Sequence `batch` of a checked tensor `(N, heads, dims...)`, as f32 values.
fn sequence(t: &Tensor, batch: usize) -> Result<Vec<f32>> {
    t.get(batch)?.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
}

/// What the first layer's terms say of them all: `(heads, dim, left_per_query, right_per_query)`.
fn layout(first: &ScoreTerms, rows: usize) -> (usize, usize, bool, bool) {
    let heads = first.dots.dims().get(1).copied().unwrap_or(0);
    let dim = first.left.dims().last().copied().unwrap_or(0);
    (heads, dim, first.left.dims().get(2) != Some(&1) || rows == 1, first.right.rank() == 5)
}

/// The tails of each term's dims after the head axis, in the order they are read.
fn tails(layout: (usize, usize, bool, bool), rows: usize, cols: usize) -> [(&'static str, Vec<Option<usize>>); 5] {
    let (_, dim, left_per_query, right_per_query) = layout;
    let left_rows = if left_per_query { rows } else { 1 };
    let right = if right_per_query { vec![Some(rows), Some(cols), Some(dim)] } else { vec![Some(cols), Some(dim)] };
    let square = vec![Some(rows), Some(cols)];
    [
        ("left", vec![Some(left_rows), Some(dim)]),
        ("right", right),
        ("dots", square.clone()),
        ("scores", square.clone()),
        ("weights", square),
    ]
}

/// Every layer's attention weights.
fn weights_of(terms: &[ScoreTerms]) -> Vec<Tensor> {
    terms.iter().map(|t| t.weights.clone()).collect()
}

/// The five terms of one layer, in the order of [`tails`].
fn terms_of(t: &ScoreTerms) -> [&Tensor; 5] {
    [&t.left, &t.right, &t.dots, &t.scores, &t.weights]
}

/// Checks every layer's terms of sequence `batch`, for `rows` queries and `cols` keys: at least
/// one layer, all of one score function, each term of the first layer's sizes; returns the first.
fn check_terms(terms: &[ScoreTerms], batch: usize, rows: usize, cols: usize) -> Result<&ScoreTerms> {
    let first = terms.first().ok_or_else(|| invalid("no layers of score terms"))?;
    let layout = layout(first, rows);
    for (i, t) in terms.iter().enumerate() {
        let at = |e: candle_core::Error| invalid(format!("score terms of layer {i}: {e}"));
        if (t.score, t.labels, &t.scaling) != (first.score, first.labels, &first.scaling) {
            return Err(at(error(EXPLORE, "every layer's terms must be of the same score function")));
        }
        for ((what, tail), term) in tails(layout, rows, cols).iter().zip(terms_of(t)) {
            check_sequence(what, term, batch, layout.0, tail).map_err(at)?;
        }
    }
    Ok(first)
}

impl Neurons {
    /// Every layer's terms of sequence `batch`, for `rows` queries and `cols` keys.
    #[errors_as("explore")]
    pub fn from_terms(terms: &[ScoreTerms], batch: usize, rows: usize, cols: usize) -> Result<Self> {
        let first = check_terms(terms, batch, rows, cols)?;
        let (_, dim, left_per_query, right_per_query) = layout(first, rows);
        let mut out = Neurons {
            score: first.score.to_string(),
            labels: (first.labels.0.to_string(), first.labels.1.to_string()),
            dim,
            left: vec![],
            left_per_query,
            right: vec![],
            right_per_query,
            dots: vec![],
            scaling: first.scaling.clone(),
            scores: vec![],
            weights: vec![],
        };
        for t in terms {
            let read = [&mut out.left, &mut out.right, &mut out.dots, &mut out.scores, &mut out.weights];
            for (v, term) in read.into_iter().zip(terms_of(t)) {
                v.extend(sequence(term, batch)?);
            }
        }
        Ok(out)
    }
}

impl AttentionKind {
    /// A kind from every layer's score terms of sequence `batch` (the weights are the terms'),
    /// with its neuron view.
    #[errors_as("explore")]
    pub fn from_terms<R: AsRef<str>, C: AsRef<str>>(
        name: &str,
        terms: &[ScoreTerms],
        batch: usize,
        rows: &[R],
        cols: &[C],
    ) -> Result<Self> {
        let (heads, values) = check_layers(name, &weights_of(terms), batch, rows.len(), cols.len())?;
        check_terms(terms, batch, rows.len(), cols.len()).map_err(|e| invalid(format!("{name}: {}", error(EXPLORE, e))))?;
        let neurons = Neurons::from_terms(terms, batch, rows.len(), cols.len())?;
        Ok(AttentionKind { neurons: Some(neurons), ..AttentionKind::read(name, rows, cols, terms.len(), heads, values) })
    }

    /// The lecture's `Attention` after a forward pass: its alphas of sequence 0 and the terms of
    /// its scores ([`Attention::score_terms`]).
    pub fn from_attention<Q: AsRef<str>, K: AsRef<str>>(name: &str, attention: &Attention, queries: &[Q], keys: &[K]) -> Result<Self> {
        AttentionKind::from_terms(name, &[attention.score_terms()?], 0, queries, keys)
    }
}
