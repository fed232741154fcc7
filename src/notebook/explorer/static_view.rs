//! The explorer's first paint, shown until its script runs (and where scripts are off): one
//! heatmap, white to dark blue, with every token on its axes, drawn compactly (one path per shade
//! of 32) so that a 40 x 40 map costs tens of kB, not hundreds.

use crate::notebook::page::html::escape;
use crate::notebook::page::palette::heat_rgb;

const SHADES: usize = 32;

/// The line under the first paint (HTML), which the script hides once the explorer is mounted.
pub const NOTE: &str = "A static picture: the explorer's script has not run here. For the interactive explorer, \
     run the cell in JupyterLab (a notebook opened untrusted shows its saved outputs without their scripts: \
     run the cell again, or choose Trust Notebook in the command palette, Ctrl+Shift+C); \
     on a viewer that runs no scripts, such as GitHub's, open the executed HTML pages of the notebooks \
     (make notebooks writes them to target/notebooks/).";

/// A generous width of `text` in pixels, in a sans-serif font of `size` pixels (bold), so that
/// the title is never cut.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| {
            if c.is_ascii_uppercase() || "mwMW@%".contains(c) {
                0.85
            } else if " .,:;'!|ilI()[]".contains(c) {
                0.35
            } else {
                0.62
            }
        })
        .sum::<f64>()
        * size
}

/// `weights` is `rows x cols`, row-major, in `[0, 1]`.
pub fn heatmap_svg(title: &str, rows: &[String], cols: &[String], weights: &[f32]) -> String {
    let cell = if rows.len().max(cols.len()) > 24 { 12.0 } else { 18.0 };
    let longest = |v: &[String]| v.iter().map(|s| s.chars().count()).max().unwrap_or(0) as f64;
    let (left, top) = (12.0 + 6.5 * longest(rows), 34.0 + 6.5 * longest(cols));
    let (w, h) = (left + cell * cols.len() as f64 + 10.0, top + cell * rows.len() as f64 + 10.0);
    let w = w.max(4.0 + text_width(title, 12.0) + 8.0);
    let mut paths = vec![String::new(); SHADES];
    for (i, &v) in weights.iter().enumerate() {
        let level = ((v.clamp(0.0, 1.0) * (SHADES - 1) as f32).round() as usize).min(SHADES - 1);
        let (x, y) = (left + cell * (i % cols.len()) as f64, top + cell * (i / cols.len()) as f64);
        paths[level].push_str(&format!("M{x:.0} {y:.0}h{cell}v{cell}h-{cell}z"));
    }
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"sans-serif\" font-size=\"10\">\
         <text x=\"4\" y=\"14\" font-size=\"12\" font-weight=\"bold\">{}</text>",
        escape(title)
    );
    for (level, d) in paths.iter().enumerate().filter(|(_, d)| !d.is_empty()) {
        let c = heat_rgb(level as f64 / (SHADES - 1) as f64);
        svg.push_str(&format!("<path fill=\"rgb({},{},{})\" d=\"{d}\"/>", c.0, c.1, c.2));
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + cell * (i as f64 + 0.5) + 3.5;
        svg.push_str(&format!("<text x=\"{:.0}\" y=\"{y:.1}\" text-anchor=\"end\">{}</text>", left - 4.0, escape(r)));
    }
    for (j, c) in cols.iter().enumerate() {
        let x = left + cell * (j as f64 + 0.5) + 3.5;
        svg.push_str(&format!("<text transform=\"translate({x:.1},{:.0}) rotate(-90)\">{}</text>", top - 4.0, escape(c)));
    }
    svg.push_str("</svg>");
    svg
}
