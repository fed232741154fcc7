//! Attention weights as shaded HTML tables (`show_alphas`): one table per sequence (and head),
//! big ones elided to what a notebook can show, with a note saying what was left out.

use crate::nn::errors_as;
use crate::nn::shape::invalid_shape;
use crate::notebook::display::elide::{Axis, MAX_PANELS, cells_per_axis, grid, joined_note};
use crate::notebook::display::print::tensor_to_text;
use crate::notebook::display::read::{check_readable, to_f64};
use crate::notebook::page::html::{CELL_CSS, HEAD_CSS, TABLE_CSS, caption, escape, note};
use crate::notebook::page::output::emit;
use crate::notebook::page::palette::{HeatColor, heat_rgb};
use candle_core::{Result, Tensor};
use std::fmt::Write as _;

/// Attention weights to show as shaded tables: one table per sequence (and head), target steps
/// as rows, source steps as columns, each cell shaded by its weight and labelled with it.
#[derive(Clone, Debug)]
pub struct ShowAlphas {
    /// The weights: `(Lt, Ls)`, `(N, Lt, Ls)` or `(heads, N, Lt, Ls)`.
    pub alphas: Tensor,
    /// Names of the source steps (columns); missing ones are numbered.
    pub source_labels: Vec<String>,
    /// Names of the target steps (rows); missing ones are numbered.
    pub target_labels: Vec<String>,
}

/// Wraps attention weights `(Lt, Ls)`, `(N, Lt, Ls)` or `(heads, N, Lt, Ls)` for display.
/// Empty label lists number the steps. Big weights show at most 10 tables (the first sequences
/// and heads) of at most 40 x 40 cells (the first and last steps), and say so.
pub fn show_alphas(alphas: &Tensor, source_labels: &[&str], target_labels: &[&str]) -> ShowAlphas {
    ShowAlphas {
        alphas: alphas.clone(),
        source_labels: source_labels.iter().map(|s| s.to_string()).collect(),
        target_labels: target_labels.iter().map(|s| s.to_string()).collect(),
    }
}

const MODULE: &str = "show_alphas";

/// Checks that `alphas` is readable and of rank 2 to 4; returns its sizes as
/// `(heads, N, Lt, Ls)`.
fn check_alphas(alphas: &Tensor) -> Result<(usize, usize, usize, usize)> {
    check_readable(alphas)?;
    match *alphas.dims() {
        [lt, ls] => Ok((1, 1, lt, ls)),
        [n, lt, ls] => Ok((1, n, lt, ls)),
        [h, n, lt, ls] => Ok((h, n, lt, ls)),
        ref dims => Err(invalid_shape("alphas (Lt, Ls), (N, Lt, Ls) or (heads, N, Lt, Ls)", dims)),
    }
}

impl ShowAlphas {
    /// The tables as HTML: an error naming `show_alphas` for a rank other than 2 to 4 or a dtype
    /// candle cannot convert.
    #[errors_as("show_alphas")]
    pub fn html(&self) -> Result<String> {
        let (heads, n, lt, ls) = check_alphas(&self.alphas)?;
        let dims = self.alphas.dims().to_vec();
        let mut s = String::from("<div style=\"display:flex;flex-wrap:wrap;align-items:flex-start\">");
        if heads == 0 || n == 0 || lt == 0 || ls == 0 {
            s.push_str(&note(&format!("no attention weights to show: alphas of shape {dims:?}")));
            s.push_str("</div>");
            return Ok(s);
        }
        let seqs = Axis::first(n, MAX_PANELS);
        let hs = Axis::first(heads, MAX_PANELS / seqs.len().max(1));
        let cap = cells_per_axis(hs.len() * seqs.len());
        let (rows, cols) = (Axis::edges(lt, cap), Axis::edges(ls, cap));
        let mut shown = self.alphas.reshape((heads, n, lt, ls))?;
        for (dim, axis) in [&hs, &seqs, &rows, &cols].into_iter().enumerate() {
            shown = axis.select(MODULE, &shown, dim)?;
        }
        let flat = to_f64(MODULE, &shown)?.flatten_all()?.to_vec1::<f64>()?;
        let notes = [
            if dims.len() == 4 { hs.note("heads") } else { None },
            seqs.note("sequences"),
            rows.note("target steps (rows)"),
            cols.note("source steps (columns)"),
        ];
        if let Some(text) = joined_note(&notes) {
            s.push_str(&note(&text));
        }
        let label = |labels: &[String], i: usize| labels.get(i).cloned().unwrap_or_else(|| i.to_string());
        let (rk, ck) = (rows.len(), cols.len());
        let col_labels = cols.labels(|j| label(&self.source_labels, j));
        let row_labels = rows.labels(|i| label(&self.target_labels, i));
        for (hp, h) in hs.indices().into_iter().enumerate() {
            for (sp, i) in seqs.indices().into_iter().enumerate() {
                let title = match dims.len() {
                    3 => format!("sequence {i}"),
                    4 => format!("head {h}, sequence {i}"),
                    _ => String::new(),
                };
                let base = (hp * seqs.len() + sp) * rk * ck;
                let cells = grid(&rows, &cols, |r, c| flat.get(base + r * ck + c).copied().unwrap_or(f64::NAN));
                let _ = write!(s, "<table style=\"{TABLE_CSS}\">{}<tr><th style=\"{HEAD_CSS}\"></th>", caption(&title));
                for l in &col_labels {
                    let _ = write!(s, "<th style=\"{HEAD_CSS}\">{}</th>", escape(l));
                }
                s.push_str("</tr>");
                for (row, l) in cells.iter().zip(&row_labels) {
                    let _ = write!(s, "<tr><th style=\"{HEAD_CSS}\">{}</th>", escape(l));
                    for v in row {
                        match v {
                            Some(v) => {
                                let HeatColor(r, g, b) = heat_rgb(*v);
                                let ink = if *v > 0.5 { "#fff" } else { "#000" };
                                let _ = write!(s, "<td style=\"{CELL_CSS};background:rgb({r},{g},{b});color:{ink}\">{v:.4}</td>");
                            }
                            None => {
                                let _ = write!(s, "<td style=\"{CELL_CSS}\">…</td>");
                            }
                        }
                    }
                    s.push_str("</tr>");
                }
                s.push_str("</table>");
            }
        }
        s.push_str("</div>");
        Ok(s)
    }

    /// What evcxr calls to show the weights: PyTorch-style text and the shaded tables, or a line
    /// saying why they could not be read.
    pub fn evcxr_display(&self) {
        let text = tensor_to_text(&self.alphas).unwrap_or_else(|e| format!("<alphas could not be read: {e}>"));
        let html = self.html().unwrap_or_else(|e| format!("<pre>alphas could not be read: {}</pre>", escape(&e.to_string())));
        emit(&[("text/plain", &text), ("text/html", &html)]);
    }
}
