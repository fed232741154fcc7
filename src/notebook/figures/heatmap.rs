//! Heatmap panels: a matrix as shaded cells with its values printed and labelled axes. Cells
//! left out of an elided matrix (`None`) are drawn as `…`.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::notebook::figures::figure::{anchored_text, plot_err};
use crate::notebook::page::palette::heat_color;
use candle_core::Result;
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
    let some = |m: &[Vec<f64>]| -> Vec<Vec<Option<f64>>> { m.iter().map(|r| r.iter().copied().map(Some).collect()).collect() };
    let values = values.map(some);
    heatmap_cells(area, title, &some(shade), values.as_deref(), row_labels, col_labels)
}

/// A heatmap of possibly elided cells: `shade` (0 to 1) and the printed `values` (or the shades
/// themselves) row by row, `None` for the cells of a gap, drawn as `…`.
#[errors_as("heatmap")]
pub fn heatmap_cells(
    area: &DrawingArea<SVGBackend, Shift>,
    title: &str,
    shade: &[Vec<Option<f64>>],
    values: Option<&[Vec<Option<f64>>]>,
    row_labels: &[String],
    col_labels: &[String],
) -> Result<()> {
    let (rows, cols) = check_cells(shade)?;
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let area = area.titled(title, ("sans-serif", 13)).map_err(plot_err)?;
    let (w, h) = area.dim_in_pixel();
    let (left, top) = (90i32, 26i32);
    let cell_w = (count(w as usize).saturating_sub(left + 6) / count(cols)).max(10);
    let cell_h = (count(h as usize).saturating_sub(top + 6) / count(rows)).max(10);
    let at = |i: usize, size: i32| count(i).saturating_mul(size);
    for (j, label) in col_labels.iter().enumerate().take(cols) {
        let x = left.saturating_add(at(j, cell_w)).saturating_add(cell_w / 2);
        area.draw(&anchored_text(label.clone(), (x, top - 16), 12, &BLACK, HPos::Center, VPos::Top)).map_err(plot_err)?;
    }
    for (i, row) in shade.iter().enumerate() {
        let y = top.saturating_add(at(i, cell_h));
        if let Some(label) = row_labels.get(i) {
            area.draw(&anchored_text(label.clone(), (left - 6, y + cell_h / 2), 12, &BLACK, HPos::Right, VPos::Center))
                .map_err(plot_err)?;
        }
        for (j, v) in row.iter().enumerate() {
            let x = left.saturating_add(at(j, cell_w));
            let corners = [(x, y), (x.saturating_add(cell_w), y.saturating_add(cell_h))];
            let center = (x.saturating_add(cell_w / 2), y.saturating_add(cell_h / 2));
            let Some(v) = *v else {
                area.draw(&Rectangle::new(corners, RGBColor(238, 238, 238).filled())).map_err(plot_err)?;
                area.draw(&anchored_text("…", center, 12, &BLACK, HPos::Center, VPos::Center)).map_err(plot_err)?;
                continue;
            };
            area.draw(&Rectangle::new(corners, heat_color(v).filled())).map_err(plot_err)?;
            area.draw(&Rectangle::new(corners, RGBColor(200, 200, 200).stroke_width(1))).map_err(plot_err)?;
            let ink = if v > 0.5 { WHITE } else { BLACK };
            let shown = values.and_then(|m| m.get(i).and_then(|r| r.get(j))).copied().flatten().unwrap_or(v);
            area.draw(&anchored_text(format!("{shown:.2}"), center, 12, &ink, HPos::Center, VPos::Center)).map_err(plot_err)?;
        }
    }
    Ok(())
}

/// Checks that a heatmap has at least one row and one column; returns `(rows, cols)`, the
/// longest row's length.
fn check_cells(shade: &[Vec<Option<f64>>]) -> Result<(usize, usize)> {
    let rows = shade.len();
    let cols = shade.iter().map(Vec::len).max().unwrap_or(0);
    if rows == 0 || cols == 0 {
        return Err(invalid(format!("expected a matrix with at least one row and one column, got {rows} x {cols}")));
    }
    Ok((rows, cols))
}
