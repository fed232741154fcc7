//! Tensors as HTML tables: `show(&t)` displays a tensor (`show_alphas`, which shades attention
//! weights, lives in [`crate::notebook::display::alphas`]).

use crate::notebook::display::print::{THRESHOLD, ValueFormat, is_float, kept, shown_values, tensor_to_text_as, value_writer};
use crate::notebook::display::read::read_values;
use crate::notebook::page::html::{CELL_CSS, HEAD_CSS, TABLE_CSS, caption as caption_html, escape};
use crate::notebook::page::output::emit;
use candle_core::{Result, Tensor};
use std::fmt::Write as _;

/// A 2-D block of a tensor as an HTML table with row and column indices.
fn html_matrix(rows: &[Option<usize>], cols: &[Option<usize>], cell: &dyn Fn(usize, usize) -> String, caption: Option<&str>) -> String {
    let mut s = format!("<table style=\"{TABLE_CSS}\">");
    if let Some(c) = caption {
        s.push_str(&caption_html(c));
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
/// Dtypes candle cannot convert (float and integer dtypes are read; others are refused) are an error.
pub fn tensor_to_html(t: &Tensor) -> Result<String> {
    tensor_to_html_as(t, ValueFormat::Auto)
}

/// [`tensor_to_html`] with the numbers written in `format` (`True`/`False` for a mask).
pub fn tensor_to_html_as(t: &Tensor, format: ValueFormat) -> Result<String> {
    let (dims, flat) = read_values("tensor_to_html", t)?;
    let float = is_float(t);
    let summarise = flat.len() > THRESHOLD;
    let (write, _) = value_writer("tensor_to_html", &shown_values(&dims, &flat, summarise), float, format)?;
    let fmt = |v: f64| escape(&write(v));
    let dtype = if format == ValueFormat::Bool { "Bool".to_string() } else { format!("{:?}", t.dtype()) };
    let mut s =
        format!("<div style=\"font-family:monospace;font-size:12px;color:#555;margin-bottom:2px\">Tensor shape {:?} · {dtype}</div>", dims);
    match dims.len() {
        0 => {
            let _ = write!(
                s,
                "<table style=\"{TABLE_CSS}\"><tr><td style=\"{CELL_CSS}\">{}</td></tr></table>",
                fmt(flat.first().copied().unwrap_or(f64::NAN))
            );
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
    /// The tensor shown.
    pub tensor: Tensor,
    /// A title shown above it.
    pub title: Option<String>,
    /// How its numbers are written.
    pub format: ValueFormat,
}

/// Wraps a tensor for display as a table (HTML) and as PyTorch-style text.
pub fn show(t: &Tensor) -> ShowTensor {
    ShowTensor { tensor: t.clone(), title: None, format: ValueFormat::Auto }
}

impl ShowTensor {
    /// Adds a title above the table.
    pub fn titled(mut self, title: &str) -> Self {
        self.title = Some(title.to_string());
        self
    }

    /// Shows a mask of 0s and 1s as `True`/`False`, as PyTorch prints a boolean tensor.
    pub fn bools(mut self) -> Self {
        self.format = ValueFormat::Bool;
        self
    }

    /// Writes the numbers in fixed point with `n` decimals, never in scientific notation, as
    /// PyTorch does after `torch.set_printoptions(precision=n, sci_mode=False)`.
    pub fn decimals(mut self, n: usize) -> Self {
        self.format = ValueFormat::Decimals(n);
        self
    }

    /// The tensor as PyTorch prints it (under its title), or a line saying why it could not be read.
    pub fn text(&self) -> String {
        let body = tensor_to_text_as(&self.tensor, self.format).unwrap_or_else(|e| format!("<tensor could not be read: {e}>"));
        match &self.title {
            Some(t) => format!("{t}\n{body}"),
            None => body,
        }
    }

    /// The tensor as HTML tables (under its title), or a line saying why it could not be read.
    pub fn html(&self) -> String {
        let body = tensor_to_html_as(&self.tensor, self.format)
            .unwrap_or_else(|e| format!("<pre>tensor could not be read: {}</pre>", escape(&e.to_string())));
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
