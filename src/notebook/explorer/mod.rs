//! An attention explorer to click through: every layer and head of a sentence's attention, as
//! one self-contained HTML output (data, script and style inline; nothing from the network) that
//! works in JupyterLab, in the executed pages and in VS Code.
//!
//! - the **head view**: the query tokens in one column, the key tokens in another, a line per
//!   (query, key, head) as strong as its weight, heads by colour; a layer selector and head
//!   toggles; hovering a token keeps only its lines and prints its weights;
//! - the **model view**: the layers x heads grid of small heatmaps; a click opens one large, with
//!   every token on its axes.
//!
//! Before its script runs (or where scripts are off), the output shows a static heatmap: the last
//! layer's weights averaged over the heads. The weights travel as the three decimals the explorer
//! prints (see `encode`).

mod encode;
mod neurons;
mod static_view;
#[cfg(test)]
mod tests;

pub use neurons::Neurons;

use crate::attention::Attention;
use crate::models::{AttentionMaps, SentenceAttention, SentenceTerms, TermMaps};
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid, shape_error};
use crate::notebook::page::output::emit;
use candle_core::{Result, Tensor};

/// The script that draws an explorer, included in every output: classic scripts (ES2017, no
/// modules) that each parse alone, joined in this order (tools/explorer_sample.py reads the order
/// here); each defines its part of `window.zooExplorer2` once, and the last `zooExplorerMount`.
const SCRIPT: &str = concat!(
    include_str!("js/decode.js"),
    include_str!("js/core.js"),
    include_str!("js/head_view.js"),
    include_str!("js/model_view.js"),
    include_str!("js/neuron_view.js"),
    include_str!("js/export.js"),
    include_str!("js/mount.js"),
);

/// The explorer's style, inlined once per output.
const CSS: &str = include_str!("explorer.css");

/// One kind of attention (encoder self-attention, decoder self-attention, cross-attention, or a
/// lecture model's alphas): its weights for every layer and head.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionKind {
    /// What it is, as the explorer's buttons name it.
    pub name: String,
    /// The query tokens, one per row.
    pub rows: Vec<String>,
    /// The key tokens, one per column.
    pub cols: Vec<String>,
    /// How many layers and heads.
    pub layers: usize,
    pub heads: usize,
    /// `[layer][head][row][col]`, flattened in that order.
    pub weights: Vec<f32>,
    /// The terms of its scores, for the neuron view (`None`: the explorer shows the weights only).
    pub neurons: Option<Neurons>,
}

/// An attention explorer: what [`explore`] and its siblings give, shown as a cell's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Explorer {
    /// The heading above it.
    pub title: String,
    /// The kinds it switches between, in order.
    pub kinds: Vec<AttentionKind>,
}

/// The name the explorer's errors carry.
const EXPLORE: &str = "explore";

/// One layer's weights of sequence `batch`: `(N, heads, Lq, Lk)`, or `(Lq, Lk)` and `(N, Lq, Lk)`
/// for one head, as `[head][row][col]` flattened, with the head count.
fn layer_weights(module: &str, t: &Tensor, batch: usize, rows: usize, cols: usize) -> Result<(usize, Vec<f32>)> {
    let one = match *t.dims() {
        [n, h, q, k] if batch < n && (q, k) == (rows, cols) => (h, t.get(batch)?),
        [n, q, k] if batch < n && (q, k) == (rows, cols) => (1, t.get(batch)?),
        [q, k] if batch == 0 && (q, k) == (rows, cols) => (1, t.clone()),
        ref d => {
            return Err(shape_error(
                module,
                format!(
                    "attention weights (N, heads, {rows}, {cols}), (N, {rows}, {cols}) or ({rows}, {cols}) holding sequence {batch}, for {rows} query and {cols} key tokens"
                ),
                d,
            ));
        }
    };
    let values = one.1.to_dtype(candle_core::DType::F32)?.flatten_all()?.to_vec1::<f32>()?;
    check_range(module, &values)?;
    Ok((one.0, values))
}

/// Every weight is finite and in `[0, 1]` (with a float32 rounding's leeway).
fn check_range(module: &str, values: &[f32]) -> Result<()> {
    match values.iter().find(|v| !v.is_finite() || **v < -1e-6 || **v > 1.0 + 1e-6) {
        Some(bad) => Err(error(module, format!("attention weights lie in [0, 1], got {bad}"))),
        None => Ok(()),
    }
}

/// Checks per-layer weights of sequence `batch` for `rows` query and `cols` key tokens (see
/// [`explore`] for the shapes), every layer with the same number of heads; returns the heads and
/// the weights, `[layer][head][row][col]` flattened.
fn check_layers(name: &str, layers: &[Tensor], batch: usize, rows: usize, cols: usize) -> Result<(usize, Vec<f32>)> {
    if layers.is_empty() {
        return Err(invalid(format!("{name}: no layers of weights")));
    }
    let mut heads = 0;
    let mut weights = Vec::new();
    for (i, t) in layers.iter().enumerate() {
        let (h, w) = layer_weights(EXPLORE, t, batch, rows, cols).map_err(|e| invalid(format!("{name}, layer {i}: {e}")))?;
        if i > 0 && h != heads {
            return Err(invalid(format!("{name}: layer {i} has {h} heads, layer 0 has {heads}")));
        }
        heads = h;
        weights.extend(w);
    }
    Ok((heads, weights))
}

impl AttentionKind {
    /// A kind from per-layer weights of sequence `batch` (see [`explore`] for the shapes).
    #[errors_as("explore")]
    pub fn from_layers<R: AsRef<str>, C: AsRef<str>>(name: &str, layers: &[Tensor], batch: usize, rows: &[R], cols: &[C]) -> Result<Self> {
        let (heads, weights) = check_layers(name, layers, batch, rows.len(), cols.len())?;
        Ok(AttentionKind::read(name, rows, cols, layers.len(), heads, weights))
    }

    /// A kind of checked weights, without a neuron view.
    fn read<R: AsRef<str>, C: AsRef<str>>(name: &str, rows: &[R], cols: &[C], layers: usize, heads: usize, weights: Vec<f32>) -> Self {
        let rows = rows.iter().map(|s| s.as_ref().to_string()).collect();
        let cols = cols.iter().map(|s| s.as_ref().to_string()).collect();
        AttentionKind { name: name.to_string(), rows, cols, layers, heads, weights, neurons: None }
    }

    /// A kind built by hand (its fields are public) holds what its sizes say: at least one layer
    /// and head, `layers * heads * rows * cols` weights, each in `[0, 1]`.
    fn check(&self) -> Result<()> {
        let (l, h, r, c) = (self.layers, self.heads, self.rows.len(), self.cols.len());
        let want = [h, r, c].iter().try_fold(l, |n, &k| n.checked_mul(k));
        if l == 0 || h == 0 || want != Some(self.weights.len()) {
            return Err(error(
                EXPLORE,
                format!(
                    "{}: expected at least one layer and head and {l} x {h} x {r} x {c} weights, got {} layers, {} heads and {} weights",
                    self.name,
                    l,
                    h,
                    self.weights.len()
                ),
            ));
        }
        check_range(EXPLORE, &self.weights).map_err(|e| error(EXPLORE, format!("{}: {e}", self.name)))?;
        match &self.neurons {
            Some(n) => self.check_neurons(n),
            None => Ok(()),
        }
    }

    /// Neurons built by hand hold what the kind's sizes say.
    fn check_neurons(&self, n: &Neurons) -> Result<()> {
        let (lh, r, c, d) = (self.layers * self.heads, self.rows.len(), self.cols.len(), n.dim);
        let left = lh * if n.left_per_query { r } else { 1 } * d;
        let right = lh * if n.right_per_query { r } else { 1 } * c * d;
        let sizes = [("left", n.left.len(), left), ("right", n.right.len(), right), ("dots", n.dots.len(), lh * r * c)];
        let more = [("scores", n.scores.len(), lh * r * c), ("weights", n.weights.len(), lh * r * c)];
        match sizes.iter().chain(&more).find(|(_, got, want)| got != want) {
            Some((what, got, want)) => {
                Err(error("explore", format!("{}: the neuron view's {what} holds {got} values, not {want}", self.name)))
            }
            None => Ok(()),
        }
    }

    /// The weight of one cell (of a checked kind).
    pub(crate) fn weight(&self, layer: usize, head: usize, row: usize, col: usize) -> f32 {
        self.weights[((layer * self.heads + head) * self.rows.len() + row) * self.cols.len() + col]
    }
}

/// The three kinds of a Transformer's pass over sequence `batch`: encoder self-attention
/// (`source` on both axes), decoder self-attention (`target` on both) and cross-attention
/// (`target` queries, `source` keys), every layer and head.
///
/// # Shapes
/// - `maps`: per layer `(N, heads, S, S)`, `(N, heads, T, T)` and `(N, heads, T, S)`
/// - `source`: `S` tokens; `target`: `T` tokens
pub fn explore<S: AsRef<str>, T: AsRef<str>>(maps: &AttentionMaps, batch: usize, source: &[S], target: &[T]) -> Result<Explorer> {
    Ok(Explorer {
        title: "attention, every layer and head".into(),
        kinds: vec![
            AttentionKind::from_layers("encoder self-attention", &maps.encoder_self, batch, source, source)?,
            AttentionKind::from_layers("decoder self-attention", &maps.decoder_self, batch, target, target)?,
            AttentionKind::from_layers("cross-attention", &maps.cross, batch, target, source)?,
        ],
    })
}

/// A translator's attention over one sentence, as [`crate::train::Translator::sentence_attention`]
/// gives it: the Transformer's three kinds, or a recurrent decoder's one map over the source
/// (one layer, one head).
///
/// # Shapes
/// - `Source(alphas)`: `(N, T, S)`; `Maps(maps)`: as [`explore`]
pub fn explore_sentence<S: AsRef<str>, T: AsRef<str>>(attention: &SentenceAttention, source: &[S], target: &[T]) -> Result<Explorer> {
    match attention {
        SentenceAttention::Maps(maps) => explore(maps, 0, source, target),
        SentenceAttention::Source(alphas) => Ok(Explorer {
            title: "cross-attention of the decoder's steps".into(),
            kinds: vec![AttentionKind::from_layers("cross-attention", std::slice::from_ref(alphas), 0, target, source)?],
        }),
    }
}

/// [`explore`] with the neuron view: the Transformer's three kinds from the terms of their
/// scores ([`crate::models::Transformer::score_terms`]), every layer and head.
///
/// # Shapes
/// - `terms`: per layer the terms of `(N, heads, S, S)`, `(N, heads, T, T)` and `(N, heads, T, S)` scores
/// - `source`: `S` tokens; `target`: `T` tokens
pub fn explore_terms<S: AsRef<str>, T: AsRef<str>>(terms: &TermMaps, batch: usize, source: &[S], target: &[T]) -> Result<Explorer> {
    Ok(Explorer {
        title: "attention, every layer and head".into(),
        kinds: vec![
            AttentionKind::from_terms("encoder self-attention", &terms.encoder_self, batch, source, source)?,
            AttentionKind::from_terms("decoder self-attention", &terms.decoder_self, batch, target, target)?,
            AttentionKind::from_terms("cross-attention", &terms.cross, batch, target, source)?,
        ],
    })
}

/// [`explore_sentence`] with the neuron view, from [`crate::train::Translator::sentence_terms`].
///
/// # Shapes
/// - `Source(terms)`: terms of `(N, 1, T, S)` scores; `Maps(terms)`: as [`explore_terms`]
pub fn explore_sentence_terms<S: AsRef<str>, T: AsRef<str>>(terms: &SentenceTerms, source: &[S], target: &[T]) -> Result<Explorer> {
    match terms {
        SentenceTerms::Maps(maps) => explore_terms(maps, 0, source, target),
        SentenceTerms::Source(t) => Ok(Explorer {
            title: "cross-attention of the decoder's steps".into(),
            kinds: vec![AttentionKind::from_terms("cross-attention", std::slice::from_ref(t), 0, target, source)?],
        }),
    }
}

/// The lecture's `Attention` after a forward pass, with the neuron view: its alphas of sequence
/// 0 and the terms of its scores.
///
/// # Shapes
/// - the last forward's query `(N, Lq, input_dim)`: `queries` has `Lq` labels, `keys` one per key
pub fn explore_attention<Q: AsRef<str>, K: AsRef<str>>(attention: &Attention, queries: &[Q], keys: &[K]) -> Result<Explorer> {
    Ok(Explorer { title: "alphas".into(), kinds: vec![AttentionKind::from_attention("alphas", attention, queries, keys)?] })
}

/// A lecture model's alphas (one layer, one head): each query row's weights over the keys, of
/// sequence 0.
///
/// # Shapes
/// - `alphas`: `(N, Lq, L)` or `(Lq, L)`; `queries`: `Lq` labels; `keys`: `L` labels
pub fn explore_alphas<Q: AsRef<str>, K: AsRef<str>>(alphas: &Tensor, queries: &[Q], keys: &[K]) -> Result<Explorer> {
    Ok(Explorer {
        title: "alphas".into(),
        kinds: vec![AttentionKind::from_layers("alphas", std::slice::from_ref(alphas), 0, queries, keys)?],
    })
}

impl Explorer {
    /// The same explorer under another heading.
    pub fn titled(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// The first paint: the first kind's last layer, averaged over its heads, as a heatmap.
    fn static_svg(&self) -> Result<String> {
        let kind = &self.kinds[0];
        let (r, c) = (kind.rows.len(), kind.cols.len());
        let mut mean = vec![0f32; r * c];
        for h in 0..kind.heads {
            for (i, m) in mean.iter_mut().enumerate() {
                *m += kind.weight(kind.layers - 1, h, i / c, i % c) / kind.heads as f32;
            }
        }
        let title = format!("{}: {}, last layer, mean of the heads", self.title, kind.name);
        Ok(static_view::heatmap_svg(&title, &kind.rows, &kind.cols, &mean))
    }

    /// The output: the static heatmap, the data and the script that replaces the heatmap with
    /// the explorer.
    pub fn html(&self) -> Result<String> {
        if self.kinds.is_empty() {
            return Err(error("explore", "nothing to explore: no kinds of attention"));
        }
        for kind in &self.kinds {
            kind.check()?;
        }
        let id = format!("zoo-explorer-{}", encode::unique_id());
        Ok(format!(
            "<div class=\"zoo-explorer\" id=\"{id}\"><style>{CSS}</style><div class=\"zoo-explorer-static\">{}\
             <p class=\"zoo-explorer-note\">{note}</p></div>\
             <script type=\"application/json\" class=\"zoo-explorer-data\">{}</script>\
             <script>{SCRIPT}\nzooExplorerMount(\"{id}\");</script></div>",
            self.static_svg()?,
            encode::data_json(self)?,
            note = static_view::NOTE
        ))
    }

    /// What evcxr calls: the explorer, with a line of text for a plain view.
    pub fn evcxr_display(&self) {
        let text = format!(
            "<Explorer: {}: {}>",
            self.title,
            self.kinds.iter().map(|k| format!("{} ({} layers x {} heads)", k.name, k.layers, k.heads)).collect::<Vec<_>>().join(", ")
        );
        match self.html() {
            Ok(html) => emit(&[("text/plain", &text), ("text/html", &html)]),
            Err(e) => emit(&[("text/plain", &format!("{text}\n<explorer could not be drawn: {e}>"))]),
        }
    }
}
