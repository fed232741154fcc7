//! What big displays keep, as `show` summarises big tensors: at most [`MAX_CELLS`] rows and
//! columns per table or heatmap (the first and last halves, with a gap between), at most
//! [`MAX_PANELS`] tables or panels per display, and a note saying what was left out.

use crate::nn::shape::error;
use candle_core::{Result, Tensor};

/// The most rows (and columns) one table or heatmap shows; a longer axis keeps its first and
/// last halves.
pub const MAX_CELLS: usize = 40;

/// The most tables or heatmap panels one display shows (sequences times heads): the lecture's
/// ten sequences fit.
pub const MAX_PANELS: usize = 10;

/// The cells all the panels of one display share: one or two panels keep up to 40 x 40 cells
/// each, ten panels up to 17 x 17.
pub const MAX_TOTAL_CELLS: usize = 2 * MAX_CELLS * MAX_CELLS;

/// How many rows (and columns) each of `panels` panels may show within [`MAX_TOTAL_CELLS`].
pub fn cells_per_axis(panels: usize) -> usize {
    let per_panel = MAX_TOTAL_CELLS / panels.max(1);
    (per_panel as f64).sqrt().floor().clamp(4.0, MAX_CELLS as f64) as usize
}

/// The indices one display keeps along an axis of `n`: `Some(i)` for each kept index in order,
/// `None` where a run of indices is left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The axis' full length.
    pub n: usize,
    /// The kept indices in order, with `None` for the gap.
    pub kept: Vec<Option<usize>>,
}

impl Axis {
    /// All `n` indices if `n <= cap`, otherwise the first and last `cap / 2` with a gap between
    /// (`cap` is at least 2).
    pub fn edges(n: usize, cap: usize) -> Self {
        let cap = cap.max(2);
        if n <= cap {
            return Axis { n, kept: (0..n).map(Some).collect() };
        }
        let half = cap / 2;
        let mut kept: Vec<Option<usize>> = (0..half).map(Some).collect();
        kept.push(None);
        kept.extend((n - half..n).map(Some));
        Axis { n, kept }
    }

    /// The first `min(n, cap)` indices (`cap` is at least 1).
    pub fn first(n: usize, cap: usize) -> Self {
        Axis { n, kept: (0..n.min(cap.max(1))).map(Some).collect() }
    }

    /// The kept indices, without the gap.
    pub fn indices(&self) -> Vec<usize> {
        self.kept.iter().flatten().copied().collect()
    }

    /// How many indices are kept (the gap not counted).
    pub fn len(&self) -> usize {
        self.kept.iter().flatten().count()
    }

    /// Whether some indices are left out.
    pub fn is_elided(&self) -> bool {
        self.len() < self.n
    }

    /// What is shown, when something is left out: `"rows 0-19 and 980-999 of 1000"`.
    pub fn note(&self, what: &str) -> Option<String> {
        if !self.is_elided() {
            return None;
        }
        let runs: Vec<String> = self
            .kept
            .split(|k| k.is_none())
            .filter(|run| !run.is_empty())
            .map(|run| {
                let (a, b) = (run[0].unwrap_or(0), run[run.len() - 1].unwrap_or(0));
                if a == b { a.to_string() } else { format!("{a}-{b}") }
            })
            .collect();
        Some(format!("{what} {} of {}", runs.join(" and "), self.n))
    }

    /// One label per kept entry: `label(i)` for index `i`, `"…"` for the gap.
    pub fn labels(&self, label: impl Fn(usize) -> String) -> Vec<String> {
        self.kept.iter().map(|k| k.map_or_else(|| "…".to_string(), &label)).collect()
    }

    /// Keeps this axis' indices of dimension `dim` of `t` (the gap left out); `t` itself when
    /// nothing is left out. Its errors name `module`, the public function showing `t`.
    pub(crate) fn select(&self, module: &str, t: &Tensor, dim: usize) -> Result<Tensor> {
        if !self.is_elided() {
            return Ok(t.clone());
        }
        let ids: Vec<u32> = self.indices().iter().map(|&i| u32::try_from(i).unwrap_or(u32::MAX)).collect();
        let ids = Tensor::from_vec(ids, self.len(), t.device())?;
        t.index_select(&ids, dim).map_err(|e| error(module, format!("could not select the shown part of {:?}: {e}", t.dims())))
    }
}

/// The cells of a display: `value(row, col)` at each kept position (positions count the kept
/// indices, gap left out), `None` in the gap row and column.
pub fn grid(rows: &Axis, cols: &Axis, value: impl Fn(usize, usize) -> f64) -> Vec<Vec<Option<f64>>> {
    let positions = |axis: &Axis| -> Vec<Option<usize>> {
        let mut p = 0;
        axis.kept
            .iter()
            .map(|k| {
                k.map(|_| {
                    p += 1;
                    p - 1
                })
            })
            .collect()
    };
    let (rp, cp) = (positions(rows), positions(cols));
    rp.iter().map(|r| cp.iter().map(|c| r.zip(*c).map(|(r, c)| value(r, c))).collect()).collect()
}

/// Joins the notes of the axes that leave something out: `"showing rows 0-19 and 980-999 of
/// 1000; columns 0-19 and 980-999 of 1000"`, or `None` when everything is shown.
pub fn joined_note(notes: &[Option<String>]) -> Option<String> {
    let parts: Vec<&str> = notes.iter().flatten().map(String::as_str).collect();
    if parts.is_empty() { None } else { Some(format!("showing {}", parts.join("; "))) }
}
