//! Attention maps of many heads and layers (d2l's `show_heatmaps`): a grid of heatmaps, layers
//! by heads, with token labels on both axes, a title per panel and one colour bar whose range
//! all the panels share; and its three uses in a Transformer (encoder self-attention, decoder
//! self-attention, cross-attention).

use crate::nn::shape::{error, shape_error};
use crate::notebook::display::read::read_values;
use crate::notebook::figures::figure::{Figure, anchored_text, figure, plot_err};
use crate::notebook::figures::grid_layout::{COLORBAR_STEPS, COLORBAR_TICKS, FONT, Layout, LayoutSpec, layout};
use crate::notebook::figures::heatmap_grid::{
    GridDims, HeatmapGrid, MAX_GRID_PANELS, MAX_LABEL_CHARS, MAX_TITLE_CHARS, check_grid, first_non_finite, fit_label, shade, tick_label,
    ticks, value_range,
};
use crate::notebook::page::palette::heat_color;
use candle_core::{Result, Tensor};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The colour of each panel's frame: one frame per panel.
pub const PANEL_FRAME: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// The colour of the colour bar's frame: one per figure.
pub const COLORBAR_FRAME: RGBColor = RGBColor(0x22, 0x22, 0x22);

/// A grid of heatmaps (d2l's `show_heatmaps`): `matrices` is `(rows, cols, Lq, Lk)`, e.g. the
/// attention weights of one sentence stacked as `(layers, heads, Lq, Lk)`; `grid` gives the
/// labels (keys along x, queries along y), the titles and the colour range
/// ([`HeatmapGrid::new`] for the defaults). All panels share one colour scale, shown by one
/// colour bar. At most 64 panels of at most 100 x 100 cells, 32 768 cells in all; labels and
/// titles, where given, must match the sizes, and every value must be finite.
pub fn show_heatmaps(matrices: &Tensor, grid: &HeatmapGrid) -> Result<Figure> {
    draw_grid("show_heatmaps", matrices, grid)
}

/// The attention weights of sequence `batch` in every layer, stacked as
/// `(layers, heads, Lq, Lk)` for [`show_heatmaps`]. Each layer's weights are
/// `(N, heads, Lq, Lk)`, or `(heads, Lq, Lk)` for one sequence (then `batch` must be 0); all
/// layers of one shape.
pub fn stack_layers(layers: &[Tensor], batch: usize) -> Result<Tensor> {
    layer_grid("stack_layers", layers, batch)
}

/// Encoder self-attention, layers by heads, for sequence `batch`: `layers` holds each layer's
/// weights `(N, heads, L, L)` (or `(heads, L, L)`), `tokens` the source tokens (both axes; none
/// for index labels).
pub fn show_encoder_attention<S: AsRef<str>>(layers: &[Tensor], batch: usize, tokens: &[S]) -> Result<Figure> {
    const M: &str = "show_encoder_attention";
    let grid = HeatmapGrid::encoder_self_attention(tokens.iter().map(|t| t.as_ref()));
    draw_grid(M, &layer_grid(M, layers, batch)?, &sequence_title(grid, layers, batch))
}

/// Decoder (masked) self-attention, layers by heads, for sequence `batch`: `layers` holds each
/// layer's weights `(N, heads, Lt, Lt)` (or `(heads, Lt, Lt)`), `tokens` the target tokens.
pub fn show_decoder_attention<S: AsRef<str>>(layers: &[Tensor], batch: usize, tokens: &[S]) -> Result<Figure> {
    const M: &str = "show_decoder_attention";
    let grid = HeatmapGrid::decoder_self_attention(tokens.iter().map(|t| t.as_ref()));
    draw_grid(M, &layer_grid(M, layers, batch)?, &sequence_title(grid, layers, batch))
}

/// Cross-attention, layers by heads, for sequence `batch`: `layers` holds each decoder layer's
/// weights over the encoder output `(N, heads, Lt, Ls)` (or `(heads, Lt, Ls)`); `source` labels
/// the keys (x), `target` the queries (y).
pub fn show_cross_attention<S: AsRef<str>, T: AsRef<str>>(layers: &[Tensor], batch: usize, source: &[S], target: &[T]) -> Result<Figure> {
    const M: &str = "show_cross_attention";
    let grid = HeatmapGrid::cross_attention(source.iter().map(|t| t.as_ref()), target.iter().map(|t| t.as_ref()));
    draw_grid(M, &layer_grid(M, layers, batch)?, &sequence_title(grid, layers, batch))
}

/// Names the sequence in the title when the weights hold a batch.
fn sequence_title(grid: HeatmapGrid, layers: &[Tensor], batch: usize) -> HeatmapGrid {
    let title = format!("{} (sequence {batch})", grid.title);
    if layers.first().is_some_and(|t| t.rank() == 4) { grid.title(title) } else { grid }
}

fn layer_grid(module: &str, layers: &[Tensor], batch: usize) -> Result<Tensor> {
    if layers.is_empty() || layers.len() > MAX_GRID_PANELS {
        return Err(error(module, format!("expected 1 to {MAX_GRID_PANELS} layers of attention weights, got {}", layers.len())));
    }
    let mut picked = Vec::with_capacity(layers.len());
    for (i, t) in layers.iter().enumerate() {
        let one = match *t.dims() {
            [n, _, _, _] if batch < n => t.get(batch).map_err(|e| error(module, e))?,
            [n, _, _, _] => {
                return Err(error(
                    module,
                    format!("layer {i}: expected a batch index below N = {n} for weights {:?}, got {batch}", t.dims()),
                ));
            }
            [_, _, _] if batch == 0 => t.clone(),
            [_, _, _] => {
                return Err(error(
                    module,
                    format!("layer {i}: weights {:?} (heads, Lq, Lk) hold one sequence, got batch index {batch}", t.dims()),
                ));
            }
            ref d => return Err(shape_error(module, format!("layer {i}: attention weights (N, heads, Lq, Lk) or (heads, Lq, Lk)"), d)),
        };
        if let Some(first) = picked.first().map(Tensor::dims)
            && first != one.dims()
        {
            return Err(error(
                module,
                format!("expected every layer's weights of one shape, got layer 0 {:?} and layer {i} {:?}", layers[0].dims(), t.dims()),
            ));
        }
        picked.push(one);
    }
    Tensor::stack(&picked, 0).map_err(|e| error(module, format!("could not stack the layers' weights: {e}")))
}

/// The labels of an axis of `n`: the given ones cut to fit, or the indices.
fn axis_labels(given: &[String], n: usize) -> Vec<String> {
    if given.is_empty() { (0..n).map(|i| i.to_string()).collect() } else { given.iter().map(|l| fit_label(l, MAX_LABEL_CHARS)).collect() }
}

fn longest(texts: &[String]) -> usize {
    texts.iter().map(|s| s.chars().count()).max().unwrap_or(0)
}

/// Everything a grid draws, its text cut to fit.
struct Texts {
    x: Vec<String>,
    y: Vec<String>,
    titles: Vec<String>,
    rows: Vec<String>,
    cols: Vec<String>,
    ticks: Vec<(f64, String)>,
}

fn draw_grid(module: &str, matrices: &Tensor, grid: &HeatmapGrid) -> Result<Figure> {
    let d = check_grid(module, matrices.dims(), grid)?;
    let (_, values) = read_values(module, matrices)?;
    if let Some(((r, c, q, k), v)) = first_non_finite(&values, d) {
        return Err(error(
            module,
            format!(
                "expected finite values, got {v} in panel (row {r}, column {c}) at query {q}, key {k} of matrices {:?}",
                matrices.dims()
            ),
        ));
    }
    let range = value_range(&values, grid.range);
    let cut = |v: &[String]| v.iter().map(|t| fit_label(t, MAX_TITLE_CHARS)).collect::<Vec<_>>();
    let texts = Texts {
        x: axis_labels(&grid.x_labels, d.lk),
        y: axis_labels(&grid.y_labels, d.lq),
        titles: (0..d.rows * d.cols).map(|i| fit_label(&grid.panel_title(i / d.cols, i % d.cols, d.cols), MAX_TITLE_CHARS)).collect(),
        rows: cut(&grid.row_titles),
        cols: cut(&grid.col_titles),
        ticks: ticks(range, COLORBAR_TICKS).into_iter().map(|t| (t, tick_label(t, range, COLORBAR_TICKS))).collect(),
    };
    let tick_texts: Vec<String> = texts.ticks.iter().map(|(_, s)| s.clone()).collect();
    let spec = LayoutSpec {
        dims: d,
        x_label_chars: longest(&texts.x),
        y_label_chars: longest(&texts.y),
        panel_title_chars: longest(&texts.titles),
        row_title_chars: longest(&texts.rows),
        tick_chars: longest(&tick_texts),
        col_titles: !texts.cols.is_empty(),
        title: !grid.title.is_empty(),
        x_axis: !grid.x_axis.is_empty(),
        y_axis: !grid.y_axis.is_empty(),
        values: grid.values,
    };
    let lay = layout(module, &spec)?;
    figure(module, lay.size, |root| {
        for r in 0..d.rows {
            for c in 0..d.cols {
                let at = r * d.cols + c;
                let cells = &values[at * d.lq * d.lk..(at + 1) * d.lq * d.lk];
                draw_panel(root, &lay, d, (r, c), cells, range, grid.values, &texts)?;
            }
        }
        draw_frame_text(root, &lay, d, grid)?;
        draw_colorbar(root, &lay, range, &texts.ticks)
    })
}

fn text(s: &str, at: (i32, i32), size: u32, h: HPos, v: VPos) -> Text<'static, (i32, i32), String> {
    anchored_text(s, at, size, &BLACK, h, v)
}

/// Text of `size` pixels reading upwards (for the column labels and the rows' axis).
fn upward_text(s: &str, at: (i32, i32), size: u32, h: HPos) -> Text<'static, (i32, i32), String> {
    let style = ("sans-serif", size).into_font().transform(FontTransform::Rotate270).color(&BLACK).pos(Pos::new(h, VPos::Center));
    Text::new(s.to_string(), at, style)
}

fn i(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The offset of cell `k` of size `cell`, and its centre.
fn cell_at(k: usize, cell: u32) -> (i32, i32) {
    let start = i32::try_from(k).unwrap_or(i32::MAX).saturating_mul(i(cell));
    (start, start.saturating_add(i(cell) / 2))
}

#[allow(clippy::too_many_arguments)]
fn draw_panel(
    root: &DrawingArea<SVGBackend, Shift>,
    lay: &Layout,
    d: GridDims,
    (r, c): (usize, usize),
    cells: &[f64],
    range: (f64, f64),
    print_values: bool,
    texts: &Texts,
) -> Result<()> {
    let (x0, y0) = lay.panel_at(r, c);
    let (pw, ph) = (i(lay.panel.0), i(lay.panel.1));
    let cell = i(lay.cell);
    let title = texts.titles.get(r * d.cols + c).map_or("", String::as_str);
    root.draw(&text(title, (x0 + pw / 2, y0 - 4), FONT + 1, HPos::Center, VPos::Bottom)).map_err(plot_err)?;
    for (q, row) in cells.chunks(d.lk).enumerate() {
        let (y, yc) = cell_at(q, lay.cell);
        for (k, &v) in row.iter().enumerate() {
            let (x, xc) = cell_at(k, lay.cell);
            let t = shade(v, range);
            let corners = [(x0 + x, y0 + y), (x0 + x + cell, y0 + y + cell)];
            root.draw(&Rectangle::new(corners, heat_color(t).filled())).map_err(plot_err)?;
            if print_values {
                let ink = if t > 0.5 { WHITE } else { BLACK };
                root.draw(&anchored_text(format!("{v:.2}"), (x0 + xc, y0 + yc), FONT - 1, &ink, HPos::Center, VPos::Center))
                    .map_err(plot_err)?;
            }
        }
    }
    root.draw(&Rectangle::new([(x0, y0), (x0 + pw, y0 + ph)], PANEL_FRAME.stroke_width(1))).map_err(plot_err)?;
    if c == 0 {
        for (q, label) in texts.y.iter().enumerate().step_by(lay.label_step) {
            let (_, yc) = cell_at(q, lay.cell);
            root.draw(&text(label, (i(lay.y_label_right), y0 + yc), lay.label_font, HPos::Right, VPos::Center)).map_err(plot_err)?;
        }
        if let Some(row_title) = texts.rows.get(r) {
            root.draw(&text(row_title, (i(lay.row_title_right), y0 + ph / 2), FONT + 1, HPos::Right, VPos::Center)).map_err(plot_err)?;
        }
    }
    if r == 0
        && let Some(col_title) = texts.cols.get(c)
    {
        root.draw(&text(col_title, (x0 + pw / 2, i(lay.col_title_bottom)), FONT + 1, HPos::Center, VPos::Bottom)).map_err(plot_err)?;
    }
    if r + 1 == d.rows {
        for (k, label) in texts.x.iter().enumerate().step_by(lay.label_step) {
            let (_, xc) = cell_at(k, lay.cell);
            let at = (x0 + xc, i(lay.x_label_top));
            let label = if lay.x_rotated {
                upward_text(label, at, lay.label_font, HPos::Right)
            } else {
                text(label, at, lay.label_font, HPos::Center, VPos::Top)
            };
            root.draw(&label).map_err(plot_err)?;
        }
    }
    Ok(())
}

/// The figure's title and the names of the axes, centred on the grid.
fn draw_frame_text(root: &DrawingArea<SVGBackend, Shift>, lay: &Layout, d: GridDims, grid: &HeatmapGrid) -> Result<()> {
    let (left, top) = lay.panel_at(0, 0);
    let (right, bottom) = lay.panel_at(d.rows - 1, d.cols - 1);
    let (mid_x, mid_y) = ((left + right + i(lay.panel.0)) / 2, (top + bottom + i(lay.panel.1)) / 2);
    if !grid.title.is_empty() {
        let title = fit_label(&grid.title, 2 * MAX_TITLE_CHARS);
        root.draw(&text(&title, (mid_x, i(lay.title_top)), FONT + 4, HPos::Center, VPos::Top)).map_err(plot_err)?;
    }
    if !grid.x_axis.is_empty() {
        let name = fit_label(&grid.x_axis, MAX_TITLE_CHARS);
        root.draw(&text(&name, (mid_x, i(lay.axis_names.1)), FONT, HPos::Center, VPos::Top)).map_err(plot_err)?;
    }
    if !grid.y_axis.is_empty() {
        let name = fit_label(&grid.y_axis, MAX_TITLE_CHARS);
        root.draw(&upward_text(&name, (i(lay.axis_names.0), mid_y), FONT, HPos::Center)).map_err(plot_err)?;
    }
    Ok(())
}

/// The one colour bar: bands from the low end (bottom) to the high end (top), a frame, and
/// the ticks with their values.
fn draw_colorbar(root: &DrawingArea<SVGBackend, Shift>, lay: &Layout, range: (f64, f64), ticks: &[(f64, String)]) -> Result<()> {
    let (x, y, w, h) = lay.colorbar;
    let (x, y, w, h) = (i(x), i(y), i(w), i(h));
    let steps = i32::try_from(COLORBAR_STEPS).unwrap_or(1);
    let band_top = |b: i32| y + h - h.saturating_mul(b) / steps;
    for b in 0..steps {
        let color = heat_color((f64::from(b) + 0.5) / f64::from(steps));
        root.draw(&Rectangle::new([(x, band_top(b + 1)), (x + w, band_top(b))], color.filled())).map_err(plot_err)?;
    }
    root.draw(&Rectangle::new([(x, y), (x + w, y + h)], COLORBAR_FRAME.stroke_width(1))).map_err(plot_err)?;
    for (v, label) in ticks {
        let ty = y + h - (shade(*v, range) * f64::from(h)).round() as i32;
        root.draw(&PathElement::new(vec![(x + w, ty), (x + w + 4, ty)], COLORBAR_FRAME.stroke_width(1))).map_err(plot_err)?;
        root.draw(&text(label, (x + w + 6, ty), FONT, HPos::Left, VPos::Center)).map_err(plot_err)?;
    }
    Ok(())
}
