//! Figures as SVG (plotters, no system fonts): shown inline in a notebook, savable to a file.
//!
//! Every function returns a [`Figure`]; the last expression of a cell displays it.

use crate::data::CORNERS;
use candle_core::{Result, Tensor, bail};
use plotters::coord::Shift;
use plotters::prelude::*;

/// An SVG picture.
#[derive(Clone)]
pub struct Figure {
    pub title: String,
    pub svg: String,
}

impl std::fmt::Debug for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<Figure: {} ({} bytes of SVG)>", self.title, self.svg.len())
    }
}

impl Figure {
    /// Writes the SVG to `path`.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, &self.svg).map_err(|e| candle_core::Error::Msg(format!("Figure::save: {}: {e}", path.display())))
    }

    /// What evcxr calls to show the figure: the SVG, with a text fallback.
    pub fn evcxr_display(&self) {
        crate::display::emit(&[("text/plain", &format!("<Figure: {}>", self.title)), ("image/svg+xml", &self.svg)]);
    }
}

pub(crate) fn plot_err<E: std::fmt::Debug>(e: E) -> candle_core::Error {
    candle_core::Error::Msg(format!("plots: drawing failed: {e:?}"))
}

/// Draws into a fresh SVG of `size` pixels and wraps it as a figure.
pub fn figure(title: &str, size: (u32, u32), draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>) -> Result<Figure> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Figure { title: title.to_string(), svg })
}

pub const SOURCE_COLOR: RGBColor = RGBColor(31, 119, 180);
pub const TARGET_COLOR: RGBColor = RGBColor(214, 39, 40);
pub const PRED_COLOR: RGBColor = RGBColor(44, 160, 44);
const CORNER_COLORS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40)];

/// The title the lecture gives a direction: 1 is clockwise.
pub fn direction_title(direction: i64) -> &'static str {
    if direction == 1 { "Clockwise" } else { "Counter-Clockwise" }
}

/// One square panel: the walk as a line with arrows, its corners numbered in order.
struct Walk<'a> {
    points: &'a [[f64; 2]],
    color: RGBColor,
    dashed: bool,
    numbered: bool,
}

fn square_panel(area: &DrawingArea<SVGBackend, Shift>, title: &str, walks: &[Walk]) -> Result<()> {
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 14))
        .margin(6)
        .x_label_area_size(18)
        .y_label_area_size(24)
        .build_cartesian_2d(-1.6f64..1.6f64, -1.6f64..1.6f64)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_labels(3)
        .y_labels(3)
        .light_line_style(WHITE)
        .label_style(("sans-serif", 10))
        .draw()
        .map_err(plot_err)?;
    // The square itself, faint.
    let outline: Vec<(f64, f64)> = CORNERS.iter().chain(CORNERS.iter().take(1)).map(|c| (c[0], c[1])).collect();
    chart.draw_series(LineSeries::new(outline, RGBColor(220, 220, 220).stroke_width(1))).map_err(plot_err)?;
    for w in walks {
        let pts: Vec<(f64, f64)> = w.points.iter().map(|p| (p[0], p[1])).collect();
        if w.dashed {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 6, 4, w.color.stroke_width(2))).map_err(plot_err)?;
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), w.color.stroke_width(2))).map_err(plot_err)?;
        }
        // Arrow heads at the middle of each segment show the direction of the walk.
        for seg in pts.windows(2) {
            let (a, b) = (seg[0], seg[1]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            let (ux, uy) = (dx / len * 0.12, dy / len * 0.12);
            let tip = ((a.0 + b.0) / 2.0 + ux / 2.0, (a.1 + b.1) / 2.0 + uy / 2.0);
            let left = (tip.0 - ux - uy * 0.6, tip.1 - uy + ux * 0.6);
            let right = (tip.0 - ux + uy * 0.6, tip.1 - uy - ux * 0.6);
            chart.draw_series(std::iter::once(Polygon::new(vec![tip, left, right], w.color.filled()))).map_err(plot_err)?;
        }
        // Numbered walks colour each corner by its position; others (predictions) keep their
        // colour and leave out the first point, which belongs to the walk they continue.
        let markers: Vec<Circle<(f64, f64), i32>> = if w.numbered {
            pts.iter().enumerate().map(|(i, p)| Circle::new(*p, 4, CORNER_COLORS[i % 4].filled())).collect()
        } else {
            pts.iter().skip(1).map(|p| Circle::new(*p, 4, w.color.filled())).collect()
        };
        chart.draw_series(markers).map_err(plot_err)?;
        if w.numbered {
            chart
                .draw_series(pts.iter().enumerate().map(|(i, p)| {
                    let off = (if p.0 < 0.0 { -0.3 } else { 0.12 }, if p.1 < 0.0 { -0.12 } else { 0.3 });
                    Text::new(format!("{i}"), (p.0 + off.0, p.1 + off.1), ("sans-serif", 13).into_font().color(&w.color))
                }))
                .map_err(plot_err)?;
        }
    }
    Ok(())
}

/// The corners of the square walked from corner `start`, clockwise (direction 1) or not.
pub fn walk(start: usize, direction: i64) -> Vec<[f64; 2]> {
    let mut w: Vec<[f64; 2]> = (0..4).map(|k| CORNERS[(start + k) % 4]).collect();
    if direction == 0 {
        w.reverse();
    }
    w
}

/// Two squares: the same corners walked counter-clockwise and clockwise (`counter_vs_clock`).
pub fn counter_vs_clock() -> Result<Figure> {
    figure("counter_vs_clock", (640, 330), |root| {
        let panels = root.split_evenly((1, 2));
        // Both walks start at the bottom left corner.
        for (area, d) in panels.iter().zip([0i64, 1]) {
            let start = if d == 1 { 0 } else { 1 };
            let pts = walk(start, d);
            square_panel(area, direction_title(d), &[Walk { points: &pts, color: SOURCE_COLOR, dashed: false, numbered: true }])?;
        }
        Ok(())
    })
}

/// The eight possible sequences (4 starting corners, 2 directions): the first corners are the
/// source (blue), the last `target_len` the target (red) (`plot_sequences`).
pub fn plot_sequences(target_len: usize) -> Result<Figure> {
    if target_len == 0 || target_len >= 4 {
        bail!("plot_sequences: target_len must be 1, 2 or 3, got {target_len}")
    }
    figure("plot_sequences", (1000, 520), |root| {
        let panels = root.split_evenly((2, 4));
        for (k, area) in panels.iter().enumerate() {
            let (d, start) = ((1 - k / 4) as i64, k % 4);
            let pts = walk(start, d);
            let split = 4 - target_len;
            let source = &pts[..split];
            let target = &pts[split - 1..];
            square_panel(
                area,
                direction_title(d),
                &[
                    Walk { points: source, color: SOURCE_COLOR, dashed: false, numbered: true },
                    Walk { points: target, color: TARGET_COLOR, dashed: false, numbered: false },
                ],
            )?;
        }
        Ok(())
    })
}

fn rows_of(t: &Tensor) -> Result<Vec<Vec<[f64; 2]>>> {
    let v = t.to_dtype(candle_core::DType::F64)?.to_vec3::<f64>()?;
    Ok(v.into_iter().map(|s| s.into_iter().map(|p| [p[0], p[1]]).collect()).collect())
}

/// The first `5 * n_rows` sequences of a data set, titled by direction (`plot_data`).
pub fn plot_data(points: &[Vec<[f64; 2]>], directions: &[i64], n_rows: usize) -> Result<Figure> {
    let n = (5 * n_rows).min(points.len()).min(directions.len());
    if n == 0 {
        bail!("plot_data: nothing to draw ({} sequences, n_rows = {n_rows})", points.len())
    }
    figure("plot_data", (1000, 210 * n_rows as u32), |root| {
        let panels = root.split_evenly((n_rows, 5));
        for (i, area) in panels.iter().enumerate().take(n) {
            square_panel(area, direction_title(directions[i]), &[Walk { points: &points[i], color: SOURCE_COLOR, dashed: false, numbered: true }])?;
        }
        Ok(())
    })
}

/// Actual sequences (solid) and predicted targets (dashed) for the first 10 test sequences
/// (`sequence_pred`). `full` is `(N, L, 2)`, `predicted` is `(N, target_len, 2)`.
pub fn sequence_pred(full: &Tensor, predicted: &Tensor, directions: &[i64]) -> Result<Figure> {
    let (n, l, _) = full.dims3()?;
    let (pn, tl, _) = predicted.dims3()?;
    if pn != n || tl >= l || directions.len() < n {
        bail!(
            "sequence_pred: expected full (N, L, 2), predicted (N, T, 2) with T < L and N directions, got {:?}, {:?} and {} directions",
            full.dims(),
            predicted.dims(),
            directions.len()
        )
    }
    let full = rows_of(full)?;
    let pred = rows_of(predicted)?;
    let shown = n.min(10);
    let rows = shown.div_ceil(5);
    figure("sequence_pred", (1000, 210 * rows as u32), |root| {
        let panels = root.split_evenly((rows, 5));
        for (i, area) in panels.iter().enumerate().take(shown) {
            let mut p = vec![full[i][l - tl - 1]];
            p.extend(pred[i].iter().copied());
            square_panel(
                area,
                direction_title(directions[i]),
                &[
                    Walk { points: &full[i], color: SOURCE_COLOR, dashed: false, numbered: true },
                    Walk { points: &p, color: TARGET_COLOR, dashed: true, numbered: false },
                ],
            )?;
        }
        Ok(())
    })
}

/// Training and validation losses per epoch on a log scale (`plot_losses`).
pub fn plot_losses(losses: &[f64], val_losses: &[f64]) -> Result<Figure> {
    let all: Vec<f64> = losses.iter().chain(val_losses).copied().filter(|v| v.is_finite() && *v > 0.0).collect();
    if all.is_empty() {
        bail!("plot_losses: no losses to plot yet; train first")
    }
    let lo = all.iter().cloned().fold(f64::MAX, f64::min) * 0.8;
    let hi = all.iter().cloned().fold(f64::MIN, f64::max) * 1.25;
    let n = losses.len().max(val_losses.len()).max(2);
    figure("losses", (700, 400), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Losses", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(1f64..n as f64, (lo..hi).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("Epochs")
            .y_desc("Loss")
            .label_style(("sans-serif", 11))
            .light_line_style(TRANSPARENT)
            .x_labels(10)
            .y_labels(12)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.3}"))
            .draw()
            .map_err(plot_err)?;
        let series = [(losses, "Training Loss", SOURCE_COLOR), (val_losses, "Validation Loss", TARGET_COLOR)];
        for (values, label, color) in series {
            if values.is_empty() {
                continue;
            }
            let pts: Vec<(f64, f64)> = values.iter().enumerate().map(|(i, v)| ((i + 1) as f64, *v)).collect();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(plot_err)?;
        Ok(())
    })
}

/// An RGB triple (for HTML as well as SVG).
pub struct HeatColor(pub u8, pub u8, pub u8);

/// A colour from white (0) to dark blue (1), for attention weights.
pub fn heat_rgb(v: f64) -> HeatColor {
    let t = if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    HeatColor(lerp(247.0, 8.0), lerp(251.0, 48.0), lerp(255.0, 107.0))
}

fn heat_color(v: f64) -> RGBColor {
    let HeatColor(r, g, b) = heat_rgb(v);
    RGBColor(r, g, b)
}

/// One heatmap: `rows x cols` cells with their values printed, column labels on top, row labels
/// on the left.
fn heatmap_panel(
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
fn heatmap_panel_with(
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
    let font = ("sans-serif", 12).into_font();
    for (j, label) in col_labels.iter().enumerate().take(cols) {
        let x = left + j as i32 * cell_w + cell_w / 2;
        area.draw(&Text::new(label.clone(), (x, top - 16), font.clone().color(&BLACK).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ))))
        .map_err(plot_err)?;
    }
    for (i, row) in matrix.iter().enumerate() {
        let y = top + i as i32 * cell_h;
        if let Some(label) = row_labels.get(i) {
            area.draw(&Text::new(label.clone(), (left - 6, y + cell_h / 2), font.clone().color(&BLACK).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Right,
                plotters::style::text_anchor::VPos::Center,
            ))))
            .map_err(plot_err)?;
        }
        for (j, v) in row.iter().enumerate() {
            let x = left + j as i32 * cell_w;
            area.draw(&Rectangle::new([(x, y), (x + cell_w, y + cell_h)], heat_color(*v).filled())).map_err(plot_err)?;
            area.draw(&Rectangle::new([(x, y), (x + cell_w, y + cell_h)], RGBColor(200, 200, 200).stroke_width(1))).map_err(plot_err)?;
            let ink = if *v > 0.5 { WHITE } else { BLACK };
            let shown = values.and_then(|m| m.get(i).and_then(|r| r.get(j))).copied().unwrap_or(*v);
            area.draw(&Text::new(format!("{shown:.2}"), (x + cell_w / 2, y + cell_h / 2), ("sans-serif", 12).into_font().color(&ink).pos(
                plotters::style::text_anchor::Pos::new(plotters::style::text_anchor::HPos::Center, plotters::style::text_anchor::VPos::Center),
            )))
            .map_err(plot_err)?;
        }
    }
    Ok(())
}

/// The lecture's made-up attention of a translation (`figure9`): which English word each French
/// word looks at.
pub fn figure9() -> Result<Figure> {
    let english: Vec<String> = ["the", "European", "economic", "zone"].iter().map(|s| s.to_string()).collect();
    let french: Vec<String> = ["la", "zone", "économique", "européenne"].iter().map(|s| s.to_string()).collect();
    let alphas = vec![vec![0.8, 0.0, 0.0, 0.2], vec![0.0, 0.0, 0.0, 1.0], vec![0.0, 0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0, 0.0]];
    figure("figure9", (420, 330), |root| heatmap_panel(root, "Attention (made-up numbers)", &alphas, &french, &english))
}

/// Heatmaps of attention weights: `alphas` is `(N, L_target, L_source)` (one panel per
/// sequence) or `(heads, N, L_target, L_source)` (one row of panels per head). `titles` names
/// the sequences (`point_labels` in the lecture).
pub fn plot_attention(alphas: &Tensor, titles: &[String], source_labels: &[String], target_labels: &[String]) -> Result<Figure> {
    let a = alphas.to_dtype(candle_core::DType::F64)?;
    let (heads, a) = match a.rank() {
        3 => (1, a.unsqueeze(0)?),
        4 => (a.dim(0)?, a),
        _ => bail!("plot_attention: expected alphas (N, Lt, Ls) or (heads, N, Lt, Ls), got {:?}", alphas.dims()),
    };
    let (_, n, lt, ls) = a.dims4()?;
    if source_labels.len() != ls || target_labels.len() != lt {
        bail!(
            "plot_attention: {} source and {} target labels for alphas {:?} (expected {ls} and {lt})",
            source_labels.len(),
            target_labels.len(),
            alphas.dims()
        )
    }
    let cols = n.min(5);
    let rows_per_head = n.div_ceil(cols);
    let panel_w = (90 + 62 * ls as u32).max(200);
    let panel_h = 60 + 34 * lt as u32;
    figure("plot_attention", (panel_w * cols as u32, panel_h * (rows_per_head * heads) as u32), |root| {
        let panels = root.split_evenly((rows_per_head * heads, cols));
        for h in 0..heads {
            for i in 0..n {
                let m = a.get(h)?.get(i)?.to_vec2::<f64>()?;
                let base = titles.get(i).cloned().unwrap_or_else(|| format!("sequence {i}"));
                let title = if heads > 1 { format!("{base} (head {h})") } else { base };
                let k = h * rows_per_head * cols + i;
                heatmap_panel(&panels[k], &title, &m, target_labels, source_labels)?;
            }
        }
        Ok(())
    })
}

/// A query, its keys and (optionally) the context vector as arrows from the origin, with the
/// unit circle; the legend gives each key's norm and its cosine with the query
/// (`query_and_keys`). `q` is `(D,)` with `D = 2`, `keys` is `(L, 2)`, `context` is `(2,)`.
pub fn query_and_keys(q: &Tensor, keys: &Tensor, context: Option<&Tensor>) -> Result<Figure> {
    let q = q.flatten_all()?.to_dtype(candle_core::DType::F64)?.to_vec1::<f64>()?;
    let ks = keys.to_dtype(candle_core::DType::F64)?.to_vec2::<f64>().map_err(|_| {
        candle_core::Error::Msg(format!("query_and_keys: expected keys (L, 2), got {:?}", keys.dims()))
    })?;
    if q.len() != 2 || ks.iter().any(|k| k.len() != 2) {
        bail!("query_and_keys: only two dimensions can be drawn, got a query of {} and keys {:?}", q.len(), keys.dims())
    }
    let ctx = match context {
        Some(c) => Some(c.flatten_all()?.to_dtype(candle_core::DType::F64)?.to_vec1::<f64>()?),
        None => None,
    };
    let norm = |v: &[f64]| (v[0] * v[0] + v[1] * v[1]).sqrt();
    let qn = norm(&q);
    figure("query_and_keys", (520, 520), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Query and keys", ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(25)
            .y_label_area_size(30)
            .build_cartesian_2d(-1.5f64..1.5f64, -1.5f64..1.5f64)
            .map_err(plot_err)?;
        chart.configure_mesh().light_line_style(TRANSPARENT).label_style(("sans-serif", 10)).draw().map_err(plot_err)?;
        let circle: Vec<(f64, f64)> = (0..=120).map(|i| {
            let t = i as f64 / 120.0 * std::f64::consts::TAU;
            (t.cos(), t.sin())
        }).collect();
        chart.draw_series(LineSeries::new(circle, RGBColor(190, 190, 190))).map_err(plot_err)?;
        let mut arrows: Vec<(Vec<f64>, String, RGBColor)> = vec![(q.clone(), format!("query ‖q‖={qn:.2}"), BLACK)];
        for (i, k) in ks.iter().enumerate() {
            let cos = (q[0] * k[0] + q[1] * k[1]) / (qn * norm(k)).max(1e-12);
            arrows.push((k.clone(), format!("k{i} ‖k‖={:.2} cos={cos:.2}", norm(k)), CORNER_COLORS[i % 4]));
        }
        if let Some(c) = &ctx {
            arrows.push((c.clone(), format!("context ‖c‖={:.2}", norm(c)), RGBColor(148, 103, 189)));
        }
        for (v, label, color) in arrows {
            let tip = (v[0], v[1]);
            chart
                .draw_series(LineSeries::new(vec![(0.0, 0.0), tip], color.stroke_width(2)))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
            let len = norm(&v).max(1e-9);
            let (ux, uy) = (v[0] / len * 0.09, v[1] / len * 0.09);
            let head = vec![tip, (tip.0 - ux - uy * 0.5, tip.1 - uy + ux * 0.5), (tip.0 - ux + uy * 0.5, tip.1 - uy - ux * 0.5)];
            chart.draw_series(std::iter::once(Polygon::new(head, color.filled()))).map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .label_font(("sans-serif", 11))
            .position(SeriesLabelPosition::LowerLeft)
            .draw()
            .map_err(plot_err)?;
        Ok(())
    })
}

/// One dial: a circle with a needle at `angle` radians (counter-clockwise from east) and a
/// label under it.
fn dial(area: &DrawingArea<SVGBackend, Shift>, angle: f64, label: &str) -> Result<()> {
    let (w, h) = area.dim_in_pixel();
    let r = ((w.min(h) as f64) * 0.36).max(6.0);
    let (cx, cy) = (w as f64 / 2.0, h as f64 / 2.0 - 6.0);
    let c = (cx as i32, cy as i32);
    area.draw(&Circle::new(c, r as i32, RGBColor(170, 170, 170).stroke_width(1))).map_err(plot_err)?;
    let tip = ((cx + r * angle.cos()) as i32, (cy - r * angle.sin()) as i32);
    area.draw(&PathElement::new(vec![c, tip], TARGET_COLOR.stroke_width(2))).map_err(plot_err)?;
    area.draw(&Circle::new(c, 2, BLACK.filled())).map_err(plot_err)?;
    let style = ("sans-serif", 10).into_font().color(&BLACK).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    area.draw(&Text::new(label.to_string(), (cx as i32, (cy + r) as i32 + 3), style)).map_err(plot_err)?;
    Ok(())
}

fn labelled_rows<'a>(root: &DrawingArea<SVGBackend<'a>, Shift>, row_labels: &[String], cols: usize) -> Result<Vec<Vec<DrawingArea<SVGBackend<'a>, Shift>>>> {
    let (left, right) = root.split_horizontally(90);
    let rows = row_labels.len();
    let label_areas = left.split_evenly((rows, 1));
    for (a, l) in label_areas.iter().zip(row_labels) {
        let (_, h) = a.dim_in_pixel();
        a.draw(&Text::new(l.clone(), (4, h as i32 / 2 - 6), ("sans-serif", 12))).map_err(plot_err)?;
    }
    let cells = right.split_evenly((rows, cols));
    Ok(cells.chunks(cols).map(|c| c.to_vec()).collect())
}

/// Positions as angles: for each base, position `p` turns `p / base` of a full circle
/// (`encoding_degrees`).
pub fn encoding_degrees(seqs: &[usize], tot: usize) -> Result<Figure> {
    if seqs.is_empty() || tot == 0 || seqs.contains(&0) {
        bail!("encoding_degrees: expected positive bases and tot, got {seqs:?} and {tot}")
    }
    let labels: Vec<String> = seqs.iter().map(|b| format!("base {b}")).collect();
    figure("encoding_degrees", (90 + 80 * tot as u32, 30 + 85 * seqs.len() as u32), |root| {
        let (top, body) = root.split_vertically(24);
        let (_, cols_area) = top.split_horizontally(90);
        for (p, a) in cols_area.split_evenly((1, tot)).iter().enumerate() {
            a.draw(&Text::new(format!("position {p}"), (8, 6), ("sans-serif", 11))).map_err(plot_err)?;
        }
        let grid = labelled_rows(&body, &labels, tot)?;
        for (row, &base) in grid.iter().zip(seqs) {
            for (p, cell) in row.iter().enumerate() {
                let degrees = (p % base) as f64 / base as f64 * 360.0;
                dial(cell, degrees.to_radians(), &format!("{degrees:.0}°"))?;
            }
        }
        Ok(())
    })
}

/// The angular speeds of the sinusoidal encoding as dials: dimension pair `i` turns
/// `exp(-2i ln(10000) / d_model)` radians per position (`exponential_dials`).
pub fn exponential_dials(d_model: usize, max_len: usize) -> Result<Figure> {
    if d_model < 2 || max_len == 0 {
        bail!("exponential_dials: expected d_model >= 2 and max_len > 0, got {d_model} and {max_len}")
    }
    let pairs = d_model / 2;
    let speeds: Vec<f64> = (0..pairs).map(|i| (-(2.0 * i as f64) * (10000f64).ln() / d_model as f64).exp()).collect();
    let labels: Vec<String> = speeds.iter().enumerate().map(|(i, w)| format!("dims {},{}: w={w:.3}", 2 * i, 2 * i + 1)).collect();
    figure("exponential_dials", (130 + 75 * max_len as u32, 30 + 85 * pairs as u32), |root| {
        let (top, body) = root.split_vertically(24);
        let (_, cols_area) = top.split_horizontally(90);
        for (p, a) in cols_area.split_evenly((1, max_len)).iter().enumerate() {
            a.draw(&Text::new(format!("pos {p}"), (14, 6), ("sans-serif", 11))).map_err(plot_err)?;
        }
        let grid = labelled_rows(&body, &labels, max_len)?;
        for (row, w) in grid.iter().zip(&speeds) {
            for (p, cell) in row.iter().enumerate() {
                let angle = p as f64 * w;
                dial(cell, angle, &format!("{:.2},{:.2}", angle.sin(), angle.cos()))?;
            }
        }
        Ok(())
    })
}

/// A matrix as a heatmap with its values printed, shaded from its minimum to its maximum
/// (`plot_mesh`). Rows and columns are labelled with their indices.
pub fn plot_mesh(matrix: &Tensor, title: &str, axis_label: &str) -> Result<Figure> {
    let m = matrix.to_dtype(candle_core::DType::F64)?.to_vec2::<f64>().map_err(|_| {
        candle_core::Error::Msg(format!("plot_mesh: expected a 2-D matrix, got {:?}", matrix.dims()))
    })?;
    let (rows, cols) = (m.len(), m.first().map_or(0, |r| r.len()));
    let (lo, hi) = m.iter().flatten().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let shaded: Vec<Vec<f64>> = m.iter().map(|r| r.iter().map(|v| (v - lo) / span).collect()).collect();
    let row_labels: Vec<String> = (0..rows).map(|i| format!("{axis_label} {i}")).collect();
    let col_labels: Vec<String> = (0..cols).map(|j| j.to_string()).collect();
    figure("plot_mesh", (110 + 62 * cols as u32, 60 + 40 * rows as u32), |root| {
        heatmap_panel_with(root, title, &shaded, Some(&m), &row_labels, &col_labels)
    })
}

/// The sinusoidal encoding of `max_len` positions in `d_model` dimensions: one curve per
/// dimension over the positions (sines solid, cosines dashed) and the table as a heatmap.
pub fn encoding_curves(max_len: usize, d_model: usize) -> Result<Figure> {
    let table = crate::selfattn::positional_encoding_table(max_len, d_model)?.to_dtype(candle_core::DType::F64)?.to_vec2::<f64>()?;
    figure("encoding_curves", (1000, 380), |root| {
        let (left, right) = root.split_horizontally(560);
        let mut chart = ChartBuilder::on(&left)
            .caption("Positional encoding by dimension", ("sans-serif", 14))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(35)
            .build_cartesian_2d(0f64..(max_len.saturating_sub(1)).max(1) as f64, -1.1f64..1.1f64)
            .map_err(plot_err)?;
        chart.configure_mesh().light_line_style(TRANSPARENT).x_desc("position").label_style(("sans-serif", 10)).draw().map_err(plot_err)?;
        for d in 0..d_model {
            let color = Palette99::pick(d).to_rgba();
            let pts: Vec<(f64, f64)> = (0..max_len).map(|p| (p as f64, table[p][d])).collect();
            let label = format!("dim {d} ({})", if d % 2 == 0 { "sin" } else { "cos" });
            if d % 2 == 0 {
                chart.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(plot_err)?
            } else {
                chart.draw_series(DashedLineSeries::new(pts, 5, 3, color.stroke_width(2))).map_err(plot_err)?
            }
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.85)).label_font(("sans-serif", 10)).position(SeriesLabelPosition::LowerRight).draw().map_err(plot_err)?;
        let shade: Vec<Vec<f64>> = table.iter().map(|r| r.iter().map(|v| (v + 1.0) / 2.0).collect()).collect();
        let rows: Vec<String> = (0..max_len).map(|p| format!("pos {p}")).collect();
        let cols: Vec<String> = (0..d_model).map(|d| d.to_string()).collect();
        heatmap_panel_with(&right, "Encoding table", &shade, Some(&table), &rows, &cols)
    })
}
