//! Heatmap panels: a matrix as shaded cells with its values printed and labelled axes.

use super::figure::{anchored_text, plot_err};
use super::palette::heat_color;
use candle_core::{Result, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// One heatmap: `rows x cols` cells with their values printed, column labels on top, row labels
/// on the left.
pub fn heatmap_panel(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    matrix: &[Vec<f64>],
    row_labels: &[String],
    col_labels: &[String],
) -> Result<()> {
    heatmap_panel_with(area, title, matrix, None, row_labels, col_labels)
}

/// A heatmap whose cells are shaded by `shade` (0 to 1) and labelled with `values` (or the
/// shades themselves).
pub fn heatmap_panel_with(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    shade: &[Vec<f64>],
    values: Option<&[Vec<f64>]>,
    row_labels: &[String],
    col_labels: &[String],
) -> Result<()> {
    let matrix = shade;
    let rows = matrix.len();
    let cols = matrix.first().map_or(0, |r| r.len());
    if rows == 0 || cols == 0 {
        bail!("heatmap: nothing to draw")
    }
    let area = area.titled(title, ("sans-serif", 13)).map_err(plot_err)?;
    let (w, h) = area.dim_in_pixel();
    let (left, top) = (90i32, 26i32);
    let cell_w = ((w as i32 - left - 6) / cols as i32).max(10);
    let cell_h = ((h as i32 - top - 6) / rows as i32).max(10);
    for (j, label) in col_labels.iter().enumerate().take(cols) {
        let x = left + j as i32 * cell_w + cell_w / 2;
        area.draw(&anchored_text(label.clone(), (x, top - 16), 12, &BLACK, HPos::Center, VPos::Top)).map_err(plot_err)?;
    }
    for (i, row) in matrix.iter().enumerate() {
        let y = top + i as i32 * cell_h;
        if let Some(label) = row_labels.get(i) {
            area.draw(&anchored_text(label.clone(), (left - 6, y + cell_h / 2), 12, &BLACK, HPos::Right, VPos::Center))
                .map_err(plot_err)?;
        }
        for (j, v) in row.iter().enumerate() {
            let x = left + j as i32 * cell_w;
            area.draw(&Rectangle::new([(x, y), (x + cell_w, y + cell_h)], heat_color(*v).filled())).map_err(plot_err)?;
            area.draw(&Rectangle::new([(x, y), (x + cell_w, y + cell_h)], RGBColor(200, 200, 200).stroke_width(1))).map_err(plot_err)?;
            let ink = if *v > 0.5 { WHITE } else { BLACK };
            let shown = values.and_then(|m| m.get(i).and_then(|r| r.get(j))).copied().unwrap_or(*v);
            area.draw(&anchored_text(format!("{shown:.2}"), (x + cell_w / 2, y + cell_h / 2), 12, &ink, HPos::Center, VPos::Center))
                .map_err(plot_err)?;
        }
    }
    Ok(())
}
