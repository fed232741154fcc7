//! Several titled tensors in one cell's output (`show_all`), and small tables of text
//! (`Table`): shapes of a model's intermediate results, parameter counts.

use crate::notebook::display::table::{ShowTensor, show};
use crate::notebook::page::html::escape;
use crate::notebook::page::output::emit;
use candle_core::Tensor;

/// Several tensors shown one under the other, each under its title: evcxr shows one rich output
/// per cell, so a cell that prints attention weights and an output together returns this.
#[derive(Clone, Debug)]
pub struct ShowTensors {
    /// The tensors, each with its title.
    pub items: Vec<ShowTensor>,
}

/// Wraps `(title, tensor)` pairs for display, in order.
pub fn show_all(items: &[(&str, &Tensor)]) -> ShowTensors {
    ShowTensors { items: items.iter().map(|(title, t)| show(t).titled(title)).collect() }
}

impl ShowTensors {
    /// Every tensor as PyTorch prints it, under its title, a blank line between them.
    pub fn text(&self) -> String {
        self.items.iter().map(ShowTensor::text).collect::<Vec<_>>().join("\n\n")
    }

    /// Every tensor as HTML tables under its title.
    pub fn html(&self) -> String {
        self.items.iter().map(|t| format!("<div style=\"margin-bottom:8px\">{}</div>", t.html())).collect()
    }

    /// What evcxr calls to show the value.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.text()), ("text/html", &self.html())]);
    }
}

impl std::fmt::Display for ShowTensors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// A small table of text: a header row and rows of cells, shown as aligned text and as HTML.
///
/// ```
/// use attention_zoo::notebook::Table;
/// let t = Table::new(&["layer", "parameters"]).row(&["linear", "12"]).row(&["attention", "84"]);
/// assert!(t.text().contains("attention"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// A title above the table, if any.
    pub title: Option<String>,
    /// The column names.
    pub headers: Vec<String>,
    /// The rows; a row shorter than the header is padded with empty cells when shown.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names and no rows yet.
    pub fn new(headers: &[&str]) -> Self {
        Table { title: None, headers: headers.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    /// Adds a title above the table.
    pub fn titled(mut self, title: &str) -> Self {
        self.title = Some(title.to_string());
        self
    }

    /// Adds a row of cells (anything that prints).
    pub fn row<S: ToString>(mut self, cells: &[S]) -> Self {
        self.rows.push(cells.iter().map(|c| c.to_string()).collect());
        self
    }

    /// Adds a row in place (for building a table in a loop).
    pub fn push<S: ToString>(&mut self, cells: &[S]) {
        self.rows.push(cells.iter().map(|c| c.to_string()).collect());
    }

    fn columns(&self) -> usize {
        self.rows.iter().map(Vec::len).chain([self.headers.len()]).max().unwrap_or(0)
    }

    /// The table as aligned text columns.
    pub fn text(&self) -> String {
        let n = self.columns();
        let cell = |row: &[String], j: usize| row.get(j).cloned().unwrap_or_default();
        let widths: Vec<usize> = (0..n)
            .map(|j| std::iter::once(&self.headers).chain(&self.rows).map(|r| cell(r, j).chars().count()).max().unwrap_or(0))
            .collect();
        let line = |row: &[String]| -> String {
            let cells: Vec<String> = (0..n).map(|j| format!("{:<w$}", cell(row, j), w = widths[j])).collect();
            cells.join("  ").trim_end().to_string()
        };
        let mut out: Vec<String> = self.title.iter().cloned().collect();
        out.push(line(&self.headers));
        out.push(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
        out.extend(self.rows.iter().map(|r| line(r)));
        out.join("\n")
    }

    /// The table as HTML.
    pub fn html(&self) -> String {
        let n = self.columns();
        let cells = |row: &[String], tag: &str| -> String {
            (0..n)
                .map(|j| format!("<{tag} style=\"padding:2px 8px;text-align:left\">{}</{tag}>", escape(row.get(j).map_or("", |s| s))))
                .collect()
        };
        let mut s = String::new();
        if let Some(t) = &self.title {
            s.push_str(&format!("<div style=\"font-weight:bold;font-family:sans-serif;font-size:13px\">{}</div>", escape(t)));
        }
        s.push_str("<table style=\"border-collapse:collapse;font-family:monospace;font-size:12px\">");
        s.push_str(&format!("<tr style=\"border-bottom:1px solid #888\">{}</tr>", cells(&self.headers, "th")));
        for r in &self.rows {
            s.push_str(&format!("<tr>{}</tr>", cells(r, "td")));
        }
        s.push_str("</table>");
        s
    }

    /// What evcxr calls to show the value.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.text()), ("text/html", &self.html())]);
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}
