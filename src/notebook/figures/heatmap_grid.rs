//! What a grid of heatmaps shows ([`HeatmapGrid`], the settings of `show_heatmaps`), the checks
//! of its input against them, and the shared colour scale as small pure functions.

use crate::nn::shape::{error, shape_error};
use candle_core::Result;

/// The most panels one grid draws (rows times columns: 8 layers by 8 heads).
pub const MAX_GRID_PANELS: usize = 64;

/// The most queries (rows) or keys (columns) one panel draws.
pub const MAX_GRID_TOKENS: usize = 100;

/// The most cells all the panels of one grid draw together (one SVG rectangle each).
pub const MAX_GRID_CELLS: usize = 32_768;

/// The most characters of a token label drawn; longer labels end in `…`.
pub const MAX_LABEL_CHARS: usize = 16;

/// The most characters of a title drawn; longer titles end in `…`.
pub const MAX_TITLE_CHARS: usize = 40;

/// The settings of a grid of heatmaps: the labels of the axes, the titles, and the colour
/// scale. Every field has a default; the setters build one up:
/// `HeatmapGrid::new().tokens(["ich", "bin"]).names("layer", "head")`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatmapGrid {
    /// One label per column of each matrix (the keys, source tokens); empty: `0, 1, ...`.
    pub x_labels: Vec<String>,
    /// One label per row of each matrix (the queries, target tokens); empty: `0, 1, ...`.
    pub y_labels: Vec<String>,
    /// What the columns are, written under the grid (default `keys`; empty: nothing).
    pub x_axis: String,
    /// What the rows are, written left of the grid (default `queries`; empty: nothing).
    pub y_axis: String,
    /// One title per panel, row by row; empty: `"{row_name} {r}, {col_name} {c}"` from 1.
    pub titles: Vec<String>,
    /// One title per row of panels, written left of the row; empty: none.
    pub row_titles: Vec<String>,
    /// One title per column of panels, written above the column; empty: none.
    pub col_titles: Vec<String>,
    /// What a row of panels is, for the default titles (default `row`).
    pub row_name: String,
    /// What a column of panels is, for the default titles (default `column`).
    pub col_name: String,
    /// The figure's title, above the grid (default none).
    pub title: String,
    /// The values at the two ends of the colour bar; `None`: the smallest and largest value of
    /// all panels. Values outside a given range take the colour of its nearer end.
    pub range: Option<(f64, f64)>,
    /// Whether each cell prints its value (default no; cells grow to fit the numbers).
    pub values: bool,
}

impl Default for HeatmapGrid {
    fn default() -> Self {
        HeatmapGrid {
            x_labels: vec![],
            y_labels: vec![],
            x_axis: "keys".into(),
            y_axis: "queries".into(),
            titles: vec![],
            row_titles: vec![],
            col_titles: vec![],
            row_name: "row".into(),
            col_name: "column".into(),
            title: String::new(),
            range: None,
            values: false,
        }
    }
}

fn strings(items: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

impl HeatmapGrid {
    /// The defaults: index labels, axes `keys` and `queries`, titles `row 1, column 1`, ...
    pub fn new() -> Self {
        Self::default()
    }

    /// Attention of a sequence to itself: `tokens` on both axes, one panel per layer (rows) and
    /// head (columns).
    fn self_attention(tokens: Vec<String>, title: &str) -> Self {
        HeatmapGrid { x_labels: tokens.clone(), y_labels: tokens, ..Self::default() }.names("layer", "head").title(title)
    }

    /// Encoder self-attention: source `tokens` on both axes, layers by heads.
    pub fn encoder_self_attention(tokens: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self::self_attention(strings(tokens), "Encoder self-attention").axes("keys (source)", "queries (source)")
    }

    /// Decoder (masked) self-attention: target `tokens` on both axes, layers by heads.
    pub fn decoder_self_attention(tokens: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self::self_attention(strings(tokens), "Decoder self-attention").axes("keys (target)", "queries (target)")
    }

    /// Cross-attention: each target token (rows, queries) over the source tokens (columns,
    /// keys), layers by heads.
    pub fn cross_attention(
        source: impl IntoIterator<Item = impl Into<String>>,
        target: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        HeatmapGrid::new()
            .x_labels(source)
            .y_labels(target)
            .axes("keys (source)", "queries (target)")
            .names("layer", "head")
            .title("Cross-attention")
    }

    /// The column labels (keys).
    pub fn x_labels(mut self, labels: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.x_labels = strings(labels);
        self
    }

    /// The row labels (queries).
    pub fn y_labels(mut self, labels: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.y_labels = strings(labels);
        self
    }

    /// The same labels on both axes (self-attention).
    pub fn tokens(self, labels: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let labels = strings(labels);
        self.x_labels(labels.clone()).y_labels(labels)
    }

    /// What the columns and the rows are (`"keys"`, `"queries"`).
    pub fn axes(mut self, x_axis: impl Into<String>, y_axis: impl Into<String>) -> Self {
        self.x_axis = x_axis.into();
        self.y_axis = y_axis.into();
        self
    }

    /// One title per panel, row by row.
    pub fn titles(mut self, titles: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.titles = strings(titles);
        self
    }

    /// One title per row of panels.
    pub fn row_titles(mut self, titles: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.row_titles = strings(titles);
        self
    }

    /// One title per column of panels.
    pub fn col_titles(mut self, titles: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.col_titles = strings(titles);
        self
    }

    /// What rows and columns of panels are, for the default titles (`"layer"`, `"head"`).
    pub fn names(mut self, row_name: impl Into<String>, col_name: impl Into<String>) -> Self {
        self.row_name = row_name.into();
        self.col_name = col_name.into();
        self
    }

    /// The figure's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Fixes the colour bar to run from `lo` to `hi` (`0.0, 1.0` for attention weights).
    pub fn range(mut self, lo: f64, hi: f64) -> Self {
        self.range = Some((lo, hi));
        self
    }

    /// Whether each cell prints its value.
    pub fn values(mut self, values: bool) -> Self {
        self.values = values;
        self
    }

    /// The title of panel `(r, c)`: the given one, or `"{row_name} {r + 1}, {col_name} {c + 1}"`.
    pub fn panel_title(&self, r: usize, c: usize, cols: usize) -> String {
        let given = r.checked_mul(cols).and_then(|i| i.checked_add(c)).and_then(|i| self.titles.get(i));
        given.cloned().unwrap_or_else(|| format!("{} {}, {} {}", self.row_name, r + 1, self.col_name, c + 1))
    }
}

/// The sizes of a grid: `rows x cols` panels of `lq x lk` cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridDims {
    /// Rows of panels (layers).
    pub rows: usize,
    /// Columns of panels (heads).
    pub cols: usize,
    /// Rows of each matrix (queries).
    pub lq: usize,
    /// Columns of each matrix (keys).
    pub lk: usize,
}

/// Checks the dims of the matrices `(rows, cols, Lq, Lk)` and the settings against each other
/// and against the limits; an error naming `module`, what it expected and what it got.
pub fn check_grid(module: &str, dims: &[usize], grid: &HeatmapGrid) -> Result<GridDims> {
    let &[rows, cols, lq, lk] = dims else {
        return Err(shape_error(module, "matrices of shape (rows, cols, Lq, Lk), rank 4", dims));
    };
    if dims.contains(&0) {
        return Err(shape_error(module, "matrices (rows, cols, Lq, Lk) with every size at least 1", dims));
    }
    let panels = rows.saturating_mul(cols);
    if panels > MAX_GRID_PANELS {
        return Err(error(
            module,
            format!(
                "expected at most {MAX_GRID_PANELS} panels, got {rows} x {cols} = {panels} for matrices {dims:?}; draw a slice (narrow)"
            ),
        ));
    }
    if lq > MAX_GRID_TOKENS || lk > MAX_GRID_TOKENS {
        return Err(error(module, format!("expected at most {MAX_GRID_TOKENS} queries and keys per panel, got {lq} x {lk} ({dims:?})")));
    }
    let cells = panels * lq * lk;
    if cells > MAX_GRID_CELLS {
        return Err(error(
            module,
            format!("expected at most {MAX_GRID_CELLS} cells in all, got {cells} for matrices {dims:?}; draw a slice"),
        ));
    }
    let counts = [
        (&grid.x_labels, lk, "x labels (keys, Lk)"),
        (&grid.y_labels, lq, "y labels (queries, Lq)"),
        (&grid.titles, panels, "titles (one per panel)"),
        (&grid.row_titles, rows, "row titles"),
        (&grid.col_titles, cols, "column titles"),
    ];
    for (given, expected, what) in counts {
        if !given.is_empty() && given.len() != expected {
            return Err(error(module, format!("expected {expected} {what} (or none) for matrices {dims:?}, got {}", given.len())));
        }
    }
    if let Some((lo, hi)) = grid.range
        && !(lo.is_finite() && hi.is_finite() && lo < hi)
    {
        return Err(error(module, format!("expected a colour range lo < hi, both finite, got ({lo}, {hi})")));
    }
    Ok(GridDims { rows, cols, lq, lk })
}

/// The first value that is not finite, as `(panel row, panel column, query, key)` and the value.
pub fn first_non_finite(values: &[f64], d: GridDims) -> Option<((usize, usize, usize, usize), f64)> {
    let i = values.iter().position(|v| !v.is_finite())?;
    let (k, rest) = (i % d.lk, i / d.lk);
    let (q, rest) = (rest % d.lq, rest / d.lq);
    Some(((rest / d.cols, rest % d.cols, q, k), values[i]))
}

/// The shared colour range of all the panels: `given`, or the smallest and largest finite
/// value. Equal values widen to include 0 (`[0, v]` or `[v, 0]`), or `[0, 1]` when all are 0.
pub fn value_range(values: &[f64], given: Option<(f64, f64)>) -> (f64, f64) {
    if let Some(range) = given {
        return range;
    }
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if lo < hi {
        return (lo, hi);
    }
    match lo {
        v if v > 0.0 => (0.0, v),
        v if v < 0.0 => (v, 0.0),
        _ => (0.0, 1.0),
    }
}

/// Where `v` falls in `range`, from 0 (`lo`) to 1 (`hi`), clamped; halves keep the span finite
/// for any finite range.
pub fn shade(v: f64, (lo, hi): (f64, f64)) -> f64 {
    let span = hi / 2.0 - lo / 2.0;
    let usable = span > 0.0 && span.is_finite() && v.is_finite();
    if !usable {
        return 0.0;
    }
    ((v / 2.0 - lo / 2.0) / span).clamp(0.0, 1.0)
}

/// `n` evenly spaced values from `lo` to `hi` (both included; `n` at least 2), for the ticks of
/// the colour bar.
pub fn ticks((lo, hi): (f64, f64), n: usize) -> Vec<f64> {
    let n = n.max(2);
    let step = (hi / 2.0 - lo / 2.0) / (n - 1) as f64;
    (0..n).map(|i| if i == n - 1 { hi } else { (lo / 2.0 + step * i as f64) * 2.0 }).collect()
}

/// A tick's text on a colour bar of `range` with `n` ticks: at least two decimals, enough to
/// tell neighbouring ticks apart, or scientific notation for values too big or too fine.
pub fn tick_label(v: f64, (lo, hi): (f64, f64), n: usize) -> String {
    let step = (hi / 2.0 - lo / 2.0) * 2.0 / n.max(2).saturating_sub(1) as f64;
    let decimals = if step > 0.0 { (-step.log10()).ceil() + 1.0 } else { 2.0 }.max(2.0);
    if lo.abs().max(hi.abs()) >= 1e5 || decimals > 6.0 || !decimals.is_finite() {
        format!("{v:.2e}")
    } else {
        format!("{v:.*}", decimals as usize)
    }
}

/// `label` cut to `max` characters (at least 1), the cut marked by `…`.
pub fn fit_label(label: &str, max: usize) -> String {
    if label.chars().count() <= max.max(1) {
        return label.to_string();
    }
    let mut cut: String = label.chars().take(max.max(1) - 1).collect();
    cut.push('…');
    cut
}
