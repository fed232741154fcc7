//! Tensors as HTML tables: `show(&t)` displays a tensor, `show_alphas` shades attention weights.

use super::output::emit;
use super::palette::{HeatColor, heat_rgb};
use super::print::{THRESHOLD, format_number, is_float, kept, number_style, shown_values, tensor_to_text, values};
use candle_core::{Result, Tensor};
use std::fmt::Write as _;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

const TABLE_CSS: &str = "border-collapse:collapse;font-family:monospace;font-size:12px;margin:2px 8px 2px 0";

const CELL_CSS: &str = "border:1px solid #ccc;padding:2px 6px;text-align:right";

const HEAD_CSS: &str = "border:1px solid #ccc;padding:2px 6px;background:#f3f3f3;color:#666;text-align:right";

/// A 2-D block of a tensor as an HTML table with row and column indices.
fn html_matrix(rows: &[Option<usize>], cols: &[Option<usize>], cell: &dyn Fn(usize, usize) -> String, caption: Option<&str>) -> String {
    let mut s = format!("<table style=\"{TABLE_CSS}\">");
    if let Some(c) = caption {
        let _ = write!(s, "<caption style=\"font-family:monospace;font-size:12px;color:#444\">{}</caption>", escape(c));
    }
    s.push_str("<tr><th style=\"");
    s.push_str(HEAD_CSS);
    s.push_str("\"></th>");
    for c in cols {
        let label = c.map_or("…".to_string(), |c| c.to_string());
        let _ = write!(s, "<th style=\"{HEAD_CSS}\">{label}</th>");
    }
    s.push_str("</tr>");
    for r in rows {
        let label = r.map_or("…".to_string(), |r| r.to_string());
        let _ = write!(s, "<tr><th style=\"{HEAD_CSS}\">{label}</th>");
        for c in cols {
            let v = match (r, c) {
                (Some(r), Some(c)) => cell(*r, *c),
                _ => "…".into(),
            };
            let _ = write!(s, "<td style=\"{CELL_CSS}\">{v}</td>");
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    s
}

/// A tensor as HTML: a header with shape and dtype, then tables (one per leading index for 3-D
/// and higher, laid out in a row; 4-D as one row per first index).
pub fn tensor_to_html(t: &Tensor) -> Result<String> {
    let (dims, flat) = values(t)?;
    let float = is_float(t);
    let summarise = flat.len() > THRESHOLD;
    let style = number_style(&shown_values(&dims, &flat, summarise), float);
    let fmt = |v: f64| escape(&format_number(v, style, float));
    let mut s = format!(
        "<div style=\"font-family:monospace;font-size:12px;color:#555;margin-bottom:2px\">Tensor shape {:?} · {:?}</div>",
        dims,
        t.dtype()
    );
    match dims.len() {
        0 => {
            let _ = write!(s, "<table style=\"{TABLE_CSS}\"><tr><td style=\"{CELL_CSS}\">{}</td></tr></table>", fmt(flat[0]));
        }
        1 => {
            let cols = kept(dims[0], summarise);
            s.push_str(&html_matrix(&[Some(0)], &cols, &|_, c| fmt(flat[c]), None));
        }
        _ => {
            let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
            let lead = &dims[..dims.len() - 2];
            let rows = kept(r, summarise);
            let cols = kept(c, summarise);
            // Enumerate the leading indices (kept ones), grouping by the first when rank >= 4.
            let mut leads: Vec<Option<Vec<usize>>> = vec![Some(vec![])];
            for &n in lead {
                let mut next = vec![];
                for l in &leads {
                    match l {
                        None => next.push(None),
                        Some(prefix) => {
                            for k in kept(n, summarise) {
                                next.push(k.map(|k| {
                                    let mut p = prefix.clone();
                                    p.push(k);
                                    p
                                }));
                            }
                        }
                    }
                }
                leads = next;
            }
            let mut current_first: Option<Option<usize>> = None;
            let group = lead.len() >= 2;
            s.push_str("<div style=\"display:flex;flex-direction:column\">");
            let mut open = false;
            for l in leads {
                let first = l.as_ref().and_then(|p| p.first().copied());
                if !open || (group && current_first != Some(first)) {
                    if open {
                        s.push_str("</div>");
                    }
                    s.push_str("<div style=\"display:flex;flex-direction:row;flex-wrap:wrap;align-items:flex-start\">");
                    open = true;
                    current_first = Some(first);
                }
                match l {
                    None => s.push_str("<div style=\"font-family:monospace;align-self:center;padding:0 8px\">…</div>"),
                    Some(prefix) => {
                        let base: usize = prefix.iter().enumerate().map(|(d, i)| i * dims[d + 1..].iter().product::<usize>()).sum();
                        let caption = if prefix.is_empty() {
                            None
                        } else {
                            Some(format!("[{}]", prefix.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")))
                        };
                        s.push_str(&html_matrix(&rows, &cols, &|i, j| fmt(flat[base + i * c + j]), caption.as_deref()));
                    }
                }
            }
            if open {
                s.push_str("</div>");
            }
            s.push_str("</div>");
        }
    }
    Ok(s)
}

/// A tensor to show in a notebook: `show(&t)` as a cell's last expression.
#[derive(Clone, Debug)]
pub struct ShowTensor {
    pub tensor: Tensor,
    pub title: Option<String>,
}

/// Wraps a tensor for display as a table (HTML) and as PyTorch-style text.
pub fn show(t: &Tensor) -> ShowTensor {
    ShowTensor { tensor: t.clone(), title: None }
}

impl ShowTensor {
    /// Adds a title above the table.
    pub fn titled(mut self, title: &str) -> Self {
        self.title = Some(title.to_string());
        self
    }

    pub fn text(&self) -> String {
        let body = tensor_to_text(&self.tensor).unwrap_or_else(|e| format!("<tensor could not be read: {e}>"));
        match &self.title {
            Some(t) => format!("{t}\n{body}"),
            None => body,
        }
    }

    pub fn html(&self) -> String {
        let body =
            tensor_to_html(&self.tensor).unwrap_or_else(|e| format!("<pre>tensor could not be read: {}</pre>", escape(&e.to_string())));
        match &self.title {
            Some(t) => format!("<div style=\"font-weight:bold;font-family:sans-serif;font-size:13px\">{}</div>{body}", escape(t)),
            None => body,
        }
    }

    /// What evcxr calls to show the value: text and HTML in one output.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.text()), ("text/html", &self.html())]);
    }
}

impl std::fmt::Display for ShowTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// Attention weights to show as shaded tables: one table per sequence (and head), target steps
/// as rows, source steps as columns, each cell shaded by its weight and labelled with it.
#[derive(Clone, Debug)]
pub struct ShowAlphas {
    pub alphas: Tensor,
    pub source_labels: Vec<String>,
    pub target_labels: Vec<String>,
}

/// Wraps attention weights `(Lt, Ls)`, `(N, Lt, Ls)` or `(heads, N, Lt, Ls)` for display.
/// Empty label lists number the steps.
pub fn show_alphas(alphas: &Tensor, source_labels: &[&str], target_labels: &[&str]) -> ShowAlphas {
    ShowAlphas {
        alphas: alphas.clone(),
        source_labels: source_labels.iter().map(|s| s.to_string()).collect(),
        target_labels: target_labels.iter().map(|s| s.to_string()).collect(),
    }
}

impl ShowAlphas {
    pub fn html(&self) -> Result<String> {
        let (dims, flat) = values(&self.alphas)?;
        if dims.len() < 2 || dims.len() > 4 {
            candle_core::bail!("show_alphas: expected alphas (Lt, Ls), (N, Lt, Ls) or (heads, N, Lt, Ls), got {dims:?}")
        }
        let (lt, ls) = (dims[dims.len() - 2], dims[dims.len() - 1]);
        let label = |labels: &[String], i: usize| labels.get(i).cloned().unwrap_or_else(|| i.to_string());
        let blocks = flat.len() / (lt * ls).max(1);
        let mut s = String::from("<div style=\"display:flex;flex-wrap:wrap;align-items:flex-start\">");
        for b in 0..blocks {
            let caption = match dims.len() {
                3 => format!("sequence {b}"),
                4 => format!("head {}, sequence {}", b / dims[1], b % dims[1]),
                _ => String::new(),
            };
            let _ = write!(
                s,
                "<table style=\"{TABLE_CSS}\"><caption style=\"font-family:monospace;font-size:12px;color:#444\">{}</caption><tr><th style=\"{HEAD_CSS}\"></th>",
                escape(&caption)
            );
            for j in 0..ls {
                let _ = write!(s, "<th style=\"{HEAD_CSS}\">{}</th>", escape(&label(&self.source_labels, j)));
            }
            s.push_str("</tr>");
            for i in 0..lt {
                let _ = write!(s, "<tr><th style=\"{HEAD_CSS}\">{}</th>", escape(&label(&self.target_labels, i)));
                for j in 0..ls {
                    let v = flat[b * lt * ls + i * ls + j];
                    let HeatColor(r, g, bl) = heat_rgb(v);
                    let ink = if v > 0.5 { "#fff" } else { "#000" };
                    let _ = write!(s, "<td style=\"{CELL_CSS};background:rgb({r},{g},{bl});color:{ink}\">{v:.4}</td>");
                }
                s.push_str("</tr>");
            }
            s.push_str("</table>");
        }
        s.push_str("</div>");
        Ok(s)
    }

    pub fn evcxr_display(&self) {
        let text = tensor_to_text(&self.alphas).unwrap_or_else(|e| format!("<alphas could not be read: {e}>"));
        let html = self.html().unwrap_or_else(|e| format!("<pre>{}</pre>", escape(&e.to_string())));
        emit(&[("text/plain", &text), ("text/html", &html)]);
    }
}
