//! The pieces of the notebook's HTML output: escaping and the tables' styles.

/// `s` with `&`, `<` and `>` escaped, to stand as an element's text in HTML or SVG: the crate's
/// one escape (tables, diagrams, the explorer's first paint, highlighted code).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The style of every table.
pub const TABLE_CSS: &str = "border-collapse:collapse;font-family:monospace;font-size:12px;margin:2px 8px 2px 0";

/// The style of a value cell.
pub const CELL_CSS: &str = "border:1px solid #ccc;padding:2px 6px;text-align:right";

/// The style of a header cell (indices and labels).
pub const HEAD_CSS: &str = "border:1px solid #ccc;padding:2px 6px;background:#f3f3f3;color:#666;text-align:right";

/// A table's caption element, escaped.
pub fn caption(text: &str) -> String {
    format!("<caption style=\"font-family:monospace;font-size:12px;color:#444\">{}</caption>", escape(text))
}

/// A line saying what a big display leaves out, escaped.
pub fn note(text: &str) -> String {
    format!("<div style=\"font-family:monospace;font-size:12px;color:#666;margin-bottom:2px;width:100%\">{}</div>", escape(text))
}
