//! Lecture part 1: the squares, the sequences and the predictions.

use crate::data::{CORNERS, walk};
use crate::nn::errors_as;
use crate::nn::shape::{error, invalid, invalid_shape, shape_error};
use crate::notebook::display::read::read_values;
use crate::notebook::figures::figure::{Figure, NOTE_HEIGHT, figure, figure_size, plot_err, with_note};
use crate::notebook::page::palette::{CORNER_COLORS, SOURCE_COLOR, TARGET_COLOR};
use candle_core::{Result, Tensor};
use plotters::coord::Shift;
use plotters::prelude::*;

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
    chart.configure_mesh().x_labels(3).y_labels(3).light_line_style(WHITE).label_style(("sans-serif", 10)).draw().map_err(plot_err)?;
    // The square itself, faint.
    let outline: Vec<(f64, f64)> = CORNERS.iter().chain(CORNERS.iter().take(1)).map(|c| (c[0], c[1])).collect();
    chart.draw_series(LineSeries::new(outline, RGBColor(220, 220, 220).stroke_width(1))).map_err(plot_err)?;
    for w in walks {
        // Points far off the square (or not finite) cannot be drawn: plotters' pixel arithmetic
        // overflows on them. The panel shows [-1.6, 1.6]; anything past 1e3 is left out.
        let drawable = |v: f64| v.is_finite() && v.abs() <= 1e3;
        let pts: Vec<(f64, f64)> = w.points.iter().filter(|p| drawable(p[0]) && drawable(p[1])).map(|p| (p[0], p[1])).collect();
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
        return Err(error("plot_sequences", format!("expected target_len 1, 2 or 3, got {target_len}")));
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

/// The first `shown` sequences of a `(N, L, 2)` tensor as points, read by `module`.
fn rows_of(module: &str, t: &Tensor, shown: usize) -> Result<Vec<Vec<[f64; 2]>>> {
    let (_, l, _) = t.dims3().map_err(|_| shape_error(module, "(N, L, 2)", t.dims()))?;
    let first = t.narrow(0, 0, shown).map_err(|e| error(module, e))?;
    let (_, flat) = read_values(module, &first)?;
    let per = 2 * l;
    Ok((0..shown).map(|i| flat.get(i * per..(i + 1) * per).unwrap_or(&[]).chunks_exact(2).map(|p| [p[0], p[1]]).collect()).collect())
}

/// The most rows of panels `plot_data` draws (5 sequences each).
pub const MAX_DATA_ROWS: usize = 20;

/// The first `5 * n_rows` sequences of a data set, titled by direction (`plot_data`): one
/// direction per sequence. At most [`MAX_DATA_ROWS`] rows are drawn, and no more than the data
/// fill; the figure says so when sequences are left out.
#[errors_as]
pub fn plot_data(points: &[Vec<[f64; 2]>], directions: &[i64], n_rows: usize) -> Result<Figure> {
    if points.len() != directions.len() {
        return Err(invalid(format!(
            "expected one direction per sequence, got {} sequences and {} directions",
            points.len(),
            directions.len()
        )));
    }
    if n_rows == 0 || points.is_empty() {
        return Err(invalid(format!(
            "expected at least one row and one sequence to draw, got n_rows = {n_rows} and {} sequences",
            points.len()
        )));
    }
    const M: &str = "plot_data";
    let rows = n_rows.min(points.len().div_ceil(5)).min(MAX_DATA_ROWS);
    let n = (5 * rows).min(points.len());
    let asked = n_rows.saturating_mul(5).min(points.len());
    let note = (n < asked).then(|| format!("showing the first {n} of {asked} sequences asked for (at most {MAX_DATA_ROWS} rows)"));
    let extra = if note.is_some() { NOTE_HEIGHT } else { 0 };
    let size = figure_size(M, (1000, 0, 0), (extra, 210, rows))?;
    figure(M, size, |root| {
        let area = with_note(root, note.as_deref())?;
        let panels = area.split_evenly((rows, 5));
        for (i, area) in panels.iter().enumerate().take(n) {
            square_panel(
                area,
                direction_title(directions[i]),
                &[Walk { points: &points[i], color: SOURCE_COLOR, dashed: false, numbered: true }],
            )?;
        }
        Ok(())
    })
}

/// Actual sequences (solid) and predicted targets (dashed) for the first 10 test sequences
/// (`sequence_pred`). `full` is `(N, L, 2)`, `predicted` is `(N, target_len, 2)` with
/// `target_len < L`, and `directions` holds one direction per sequence.
#[errors_as]
pub fn sequence_pred(full: &Tensor, predicted: &Tensor, directions: &[i64]) -> Result<Figure> {
    let (n, l, tl) = check_pred(full, predicted, directions)?;
    const M: &str = "sequence_pred";
    let shown = n.min(10);
    let full = rows_of(M, full, shown)?;
    let pred = rows_of(M, predicted, shown)?;
    let rows = shown.div_ceil(5);
    let size = figure_size(M, (1000, 0, 0), (0, 210, rows))?;
    figure(M, size, |root| {
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

/// Checks `sequence_pred`'s input: `full` `(N, L, 2)` with `N >= 1`, `predicted` `(N, T, 2)`
/// with `T < L`, and one direction per sequence; returns `(N, L, T)`.
fn check_pred(full: &Tensor, predicted: &Tensor, directions: &[i64]) -> Result<(usize, usize, usize)> {
    let dims = |t: &Tensor| match *t.dims() {
        [n, l, 2] => Some((n, l)),
        _ => None,
    };
    let (Some((n, l)), Some((pn, tl))) = (dims(full), dims(predicted)) else {
        return Err(invalid(format!("expected full (N, L, 2) and predicted (N, T, 2), got {:?} and {:?}", full.dims(), predicted.dims())));
    };
    if pn != n || tl >= l {
        return Err(invalid(format!(
            "expected full (N, L, 2) and predicted (N, T, 2) with T < L, got {:?} and {:?}",
            full.dims(),
            predicted.dims()
        )));
    }
    if directions.len() != n {
        return Err(invalid(format!("expected one direction per sequence ({n}), got {} directions", directions.len())));
    }
    if n == 0 {
        return Err(invalid_shape("at least one sequence to draw in full (N, L, 2)", full.dims()));
    }
    Ok((n, l, tl))
}
