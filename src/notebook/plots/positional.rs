//! Lecture part 3: positional encoding as dials, curves and distance meshes.

use crate::attention::positional_encoding_table;
use crate::notebook::figure::{Figure, anchored_text, figure, plot_err};
use crate::notebook::heatmap::heatmap_panel_with;
use crate::notebook::palette::TARGET_COLOR;
use candle_core::{DType, Result, Tensor, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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
    let m = matrix
        .to_dtype(DType::F64)?
        .to_vec2::<f64>()
        .map_err(|_| candle_core::Error::Msg(format!("plot_mesh: expected a 2-D matrix, got {:?}", matrix.dims())))?;
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
    let table = positional_encoding_table(max_len, d_model)?.to_dtype(DType::F64)?.to_vec2::<f64>()?;
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
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .label_font(("sans-serif", 10))
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(plot_err)?;
        let shade: Vec<Vec<f64>> = table.iter().map(|r| r.iter().map(|v| (v + 1.0) / 2.0).collect()).collect();
        let rows: Vec<String> = (0..max_len).map(|p| format!("pos {p}")).collect();
        let cols: Vec<String> = (0..d_model).map(|d| d.to_string()).collect();
        heatmap_panel_with(&right, "Encoding table", &shade, Some(&table), &rows, &cols)
    })
}

/// Euclidean distances between the first `n` rows of an encoding table: `(n, n)`.
pub fn encoding_distances(table: &Tensor, n: usize) -> Result<Tensor> {
    let rows = table.narrow(0, 0, n)?.to_dtype(DType::F32)?;
    let a = rows.unsqueeze(1)?;
    let b = rows.unsqueeze(0)?;
    a.broadcast_sub(&b)?.sqr()?.sum(2)?.sqrt()
}
