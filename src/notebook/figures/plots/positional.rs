//! Lecture part 3: positional encoding as dials, curves and distance meshes.

use crate::attention::positional_encoding_table;
use crate::nn::errors_as;
use crate::nn::shape::{check_size, invalid, invalid_shape};
use crate::notebook::display::elide::{Axis, MAX_CELLS, grid, joined_note};
use crate::notebook::display::read::{check_readable, read_matrix, to_f64};
use crate::notebook::figures::figure::{Figure, NOTE_HEIGHT, anchored_text, draw_legend, figure, figure_size, plot_err, with_note};
use crate::notebook::figures::heatmap::heatmap_cells;
use crate::notebook::page::palette::TARGET_COLOR;
use candle_core::{DType, Result, Tensor};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// The most dials per row and per column of `encoding_degrees` and `exponential_dials`.
pub const MAX_DIALS: usize = 32;

/// The most positions `encoding_curves` draws.
pub const MAX_CURVE_POSITIONS: usize = 1000;

/// The most dimensions (curves) `encoding_curves` draws.
pub const MAX_CURVES: usize = 32;

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
    let label = anchored_text(label, (cx as i32, (cy + r) as i32 + 3), 10, &BLACK, HPos::Center, VPos::Top);
    area.draw(&label).map_err(plot_err)?;
    Ok(())
}

fn labelled_rows<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    row_labels: &[String],
    cols: usize,
) -> Result<Vec<Vec<DrawingArea<SVGBackend<'a>, Shift>>>> {
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
#[errors_as]
pub fn encoding_degrees(seqs: &[usize], tot: usize) -> Result<Figure> {
    if seqs.is_empty() || tot == 0 || seqs.contains(&0) {
        return Err(invalid(format!("expected positive bases and tot, got bases {seqs:?} and tot {tot}")));
    }
    if seqs.len() > MAX_DIALS || tot > MAX_DIALS {
        return Err(invalid(format!(
            "expected at most {MAX_DIALS} bases and positions (one dial each), got {} bases and tot {tot}",
            seqs.len()
        )));
    }
    const M: &str = "encoding_degrees";
    let labels: Vec<String> = seqs.iter().map(|b| format!("base {b}")).collect();
    let size = figure_size(M, (90, 80, tot), (30, 85, seqs.len()))?;
    figure(M, size, |root| {
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
#[errors_as]
pub fn exponential_dials(d_model: usize, max_len: usize) -> Result<Figure> {
    if d_model < 2 || max_len == 0 {
        return Err(invalid(format!("expected d_model >= 2 and max_len > 0, got {d_model} and {max_len}")));
    }
    if d_model / 2 > MAX_DIALS || max_len > MAX_DIALS {
        return Err(invalid(format!(
            "expected at most {MAX_DIALS} dimension pairs and positions (one dial each), got d_model {d_model} and max_len {max_len}"
        )));
    }
    const M: &str = "exponential_dials";
    let pairs = d_model / 2;
    let speeds: Vec<f64> = (0..pairs).map(|i| (-(2.0 * i as f64) * (10000f64).ln() / d_model as f64).exp()).collect();
    let labels: Vec<String> = speeds.iter().enumerate().map(|(i, w)| format!("dims {},{}: w={w:.3}", 2 * i, 2 * i + 1)).collect();
    let size = figure_size(M, (130, 75, max_len), (30, 85, pairs))?;
    figure(M, size, |root| {
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
/// (`plot_mesh`). Rows and columns are labelled with their indices. A matrix of more than 40
/// rows or columns shows its first and last 20, and a note above says so.
#[errors_as]
pub fn plot_mesh(matrix: &Tensor, title: &str, axis_label: &str) -> Result<Figure> {
    let (r, c) = check_matrix(matrix)?;
    const M: &str = "plot_mesh";
    let (rows, cols) = (Axis::edges(r, MAX_CELLS), Axis::edges(c, MAX_CELLS));
    let shown = cols.select(M, &rows.select(M, matrix, 0)?, 1)?;
    let m = read_matrix(M, &shown, "a matrix")?;
    let finite = m.iter().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    // Halves keep `hi - lo` finite for any finite pair (and positive unless it is subnormal).
    let span = if hi / 2.0 > lo / 2.0 { hi / 2.0 - lo / 2.0 } else { 1.0 };
    let lo = if lo.is_finite() { lo } else { 0.0 };
    let value = |i: usize, j: usize| m.get(i).and_then(|row| row.get(j)).copied().unwrap_or(f64::NAN);
    let values = grid(&rows, &cols, value);
    let shaded = grid(&rows, &cols, |i, j| (value(i, j) / 2.0 - lo / 2.0) / span);
    let row_labels = rows.labels(|i| format!("{axis_label} {i}"));
    let col_labels = cols.labels(|j| j.to_string());
    let note = joined_note(&[rows.note("rows"), cols.note("columns")]);
    let extra = if note.is_some() { NOTE_HEIGHT } else { 0 };
    let size = figure_size(M, (110, 62, cols.kept.len()), (60 + extra, 40, rows.kept.len()))?;
    figure(M, size, |root| {
        let area = with_note(root, note.as_deref())?;
        heatmap_cells(&area, title, &shaded, Some(&values), &row_labels, &col_labels)
    })
}

/// Checks that `matrix` is readable and 2-D with at least one row and one column; returns its
/// sizes.
fn check_matrix(matrix: &Tensor) -> Result<(usize, usize)> {
    check_readable(matrix)?;
    match *matrix.dims() {
        [r, c] if r > 0 && c > 0 => Ok((r, c)),
        ref d => Err(invalid_shape("a 2-D matrix with at least one row and one column", d)),
    }
}

/// The sinusoidal encoding of `max_len` positions in `d_model` dimensions: one curve per
/// dimension over the positions (sines solid, cosines dashed) and the table as a heatmap.
#[errors_as]
pub fn encoding_curves(max_len: usize, d_model: usize) -> Result<Figure> {
    if max_len == 0 || d_model == 0 || max_len > MAX_CURVE_POSITIONS || d_model > MAX_CURVES {
        return Err(invalid(format!(
            "expected 1 to {MAX_CURVE_POSITIONS} positions and 1 to {MAX_CURVES} dimensions (one curve each), got {max_len} and {d_model}"
        )));
    }
    const M: &str = "encoding_curves";
    let table = read_matrix(M, &positional_encoding_table(max_len, d_model)?, "an encoding table")?;
    // The table panel is 380 pixels tall: at most 20 positions fit.
    let (rows, cols) = (Axis::edges(max_len, MAX_CELLS / 2), Axis::edges(d_model, MAX_CELLS));
    let note = joined_note(&[rows.note("table rows (positions)")]);
    let size = (1000, 380 + if note.is_some() { NOTE_HEIGHT } else { 0 });
    figure(M, size, |root| {
        let area = with_note(root, note.as_deref())?;
        let (left, right) = area.split_horizontally(560);
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
            let pts: Vec<(f64, f64)> = table.iter().enumerate().map(|(p, row)| (p as f64, row[d])).collect();
            let label = format!("dim {d} ({})", if d % 2 == 0 { "sin" } else { "cos" });
            if d % 2 == 0 {
                chart.draw_series(LineSeries::new(pts, color.stroke_width(2))).map_err(plot_err)?
            } else {
                chart.draw_series(DashedLineSeries::new(pts, 5, 3, color.stroke_width(2))).map_err(plot_err)?
            }
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 10)?;
        let value = |p: usize, d: usize| table.get(rows.indices()[p]).and_then(|r| r.get(cols.indices()[d])).copied().unwrap_or(f64::NAN);
        let shade = grid(&rows, &cols, |p, d| (value(p, d) + 1.0) / 2.0);
        let values = grid(&rows, &cols, value);
        let row_labels = rows.labels(|p| format!("pos {p}"));
        let col_labels = cols.labels(|d| d.to_string());
        heatmap_cells(&right, "Encoding table", &shade, Some(&values), &row_labels, &col_labels)
    })
}

/// Euclidean distances between the first `n` rows of an encoding table `(max_len, d_model)`:
/// `(n, n)`, with `n <= max_len`.
#[errors_as]
pub fn encoding_distances(table: &Tensor, n: usize) -> Result<Tensor> {
    check_table(table, n)?;
    let rows = to_f64("encoding_distances", &table.narrow(0, 0, n)?)?.to_dtype(DType::F32)?;
    rows.unsqueeze(1)?.broadcast_sub(&rows.unsqueeze(0)?)?.sqr()?.sum(2)?.sqrt()
}

/// Checks that `table` is a readable `(max_len, d_model)` table with at least `n` rows, and that
/// `(n, n, d_model)` can be made.
fn check_table(table: &Tensor, n: usize) -> Result<()> {
    check_readable(table)?;
    let (len, d) = match *table.dims() {
        [len, d] => (len, d),
        ref dims => return Err(invalid_shape("an encoding table (max_len, d_model)", dims)),
    };
    if n > len {
        return Err(invalid(format!("expected n <= max_len = {len} rows of the table {:?}, got n = {n}", table.dims())));
    }
    check_size(&[n, n, d])?;
    Ok(())
}
