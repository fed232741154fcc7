//! The GPS exercise's figures: trajectories on longitude/latitude axes, real against predicted,
//! and a bar chart of validation losses.

use crate::data::Trajectories;
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::notebook::figures::figure::{Figure, anchored_text, figure, plot_err};
use crate::notebook::page::palette::{PRED_COLOR, SOURCE_COLOR, TARGET_COLOR};
use candle_core::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

const START_COLOR: RGBColor = RGBColor(44, 160, 44);
const END_COLOR: RGBColor = RGBColor(255, 127, 14);
/// The frame of the legend, which sits right of the plot, outside the data.
const LEGEND_FRAME: RGBColor = RGBColor(200, 200, 200);
/// The plot's width, and the strip right of it that holds the legend.
const PLOT_W: u32 = 640;
const LEGEND_W: u32 = 160;

/// What a legend entry shows beside its text.
#[derive(Clone, Copy)]
enum Glyph {
    /// A line: solid if the dash is 0, else dashes of that length with gaps of `gap`.
    Line(RGBColor, i32, i32),
    Square(RGBColor),
    Diamond(RGBColor),
}

/// The legend in the strip `side` right of the plot, its frame's top at `top`: a sample and a
/// text per entry.
fn draw_legend_beside(side: &DrawingArea<SVGBackend, Shift>, top: i32, entries: &[(&str, Glyph)]) -> Result<()> {
    let (x, row) = (10, 22);
    let corners = [(x, top), (LEGEND_W as i32 - 8, top + row * entries.len() as i32 + 8)];
    side.draw(&Rectangle::new(corners, WHITE.filled())).map_err(plot_err)?;
    side.draw(&Rectangle::new(corners, LEGEND_FRAME.stroke_width(1))).map_err(plot_err)?;
    for (k, (label, glyph)) in entries.iter().enumerate() {
        let (gx, y) = (x + 8, top + 15 + row * k as i32);
        let drawn = match *glyph {
            Glyph::Line(color, 0, _) => side.draw(&PathElement::new(vec![(gx, y), (gx + 22, y)], color.stroke_width(2))),
            Glyph::Line(color, dash, gap) => (0..22)
                .step_by((dash + gap) as usize)
                .try_for_each(|d| side.draw(&PathElement::new(vec![(gx + d, y), (gx + (d + dash).min(22), y)], color.stroke_width(2)))),
            Glyph::Square(color) => side.draw(&Rectangle::new([(gx + 6, y - 5), (gx + 16, y + 5)], color.filled())),
            Glyph::Diamond(color) => {
                side.draw(&Polygon::new(vec![(gx + 11, y - 7), (gx + 17, y), (gx + 11, y + 7), (gx + 5, y)], color.filled()))
            }
        };
        drawn.map_err(plot_err)?;
        side.draw(&anchored_text(*label, (gx + 30, y), 12, &BLACK, HPos::Left, VPos::Center)).map_err(plot_err)?;
    }
    Ok(())
}

/// The bounding box of these points with a margin, as `(lon range, lat range)`.
fn bounds<'a>(points: impl Iterator<Item = &'a [f64; 3]>) -> Option<((f64, f64), (f64, f64))> {
    let (mut lon, mut lat) = ((f64::INFINITY, f64::NEG_INFINITY), (f64::INFINITY, f64::NEG_INFINITY));
    for p in points.filter(|p| p[0].is_finite() && p[1].is_finite()) {
        (lat.0, lat.1) = (lat.0.min(p[0]), lat.1.max(p[0]));
        (lon.0, lon.1) = (lon.0.min(p[1]), lon.1.max(p[1]));
    }
    let pad = |(lo, hi): (f64, f64)| {
        let m = ((hi - lo) * 0.08).max(1e-4);
        (lo - m, hi + m)
    };
    lon.0.is_finite().then(|| (pad(lon), pad(lat)))
}

/// The first `count` trajectories: observed points (blue line), future points (red dashed, from
/// the last observed one), each start (green square) and each last future point (orange
/// diamond); with `predicted` (`N * pred_len` points, e.g. a model's inverse-scaled output), the
/// predictions too (green dotted). Longitude along x, latitude along y; the legend right of the
/// plot, where it hides no point.
#[errors_as]
pub fn plot_trajectories(trajectories: &Trajectories, predicted: Option<&[[f64; 3]]>, count: usize, title: &str) -> Result<Figure> {
    let (n, ((x0, x1), (y0, y1))) = check_trajectories(trajectories, predicted, count)?;
    let (s, p) = (trajectories.seq_len, trajectories.pred_len);
    let observed = |i: usize| &trajectories.sources[i * s..(i + 1) * s];
    let future = |i: usize| &trajectories.targets[i * p..(i + 1) * p];
    let guess = |i: usize| predicted.map(|pr| &pr[i * p..(i + 1) * p]);
    figure("plot_trajectories", (PLOT_W + LEGEND_W, 600), |root| {
        let (plot, side) = root.split_horizontally(PLOT_W);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("Longitude")
            .y_desc("Latitude")
            .label_style(("sans-serif", 11))
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| format!("{v:.3}"))
            .y_label_formatter(&|v| format!("{v:.3}"))
            .draw()
            .map_err(plot_err)?;
        let xy = |q: &[f64; 3]| (q[1], q[0]);
        for i in 0..n {
            let obs: Vec<(f64, f64)> = observed(i).iter().map(xy).collect();
            let last_obs = *obs.last().unwrap_or(&(0.0, 0.0));
            let fut: Vec<(f64, f64)> = std::iter::once(last_obs).chain(future(i).iter().map(xy)).collect();
            chart.draw_series(LineSeries::new(obs.clone(), SOURCE_COLOR.stroke_width(2))).map_err(plot_err)?;
            chart.draw_series(obs.iter().map(|q| Circle::new(*q, 3, SOURCE_COLOR.filled()))).map_err(plot_err)?;
            chart.draw_series(DashedLineSeries::new(fut.clone(), 5, 4, TARGET_COLOR.stroke_width(2))).map_err(plot_err)?;
            chart.draw_series(fut.iter().skip(1).map(|q| Cross::new(*q, 4, TARGET_COLOR.stroke_width(2)))).map_err(plot_err)?;
            if let Some(g) = guess(i) {
                let pts: Vec<(f64, f64)> = std::iter::once(last_obs).chain(g.iter().map(xy)).collect();
                chart.draw_series(DashedLineSeries::new(pts.clone(), 2, 3, PRED_COLOR.stroke_width(2))).map_err(plot_err)?;
                chart.draw_series(pts.iter().skip(1).map(|q| TriangleMarker::new(*q, 4, PRED_COLOR.filled()))).map_err(plot_err)?;
            }
            chart
                .draw_series(std::iter::once(EmptyElement::at(obs[0]) + Rectangle::new([(-5, -5), (5, 5)], START_COLOR.filled())))
                .map_err(plot_err)?;
            let end = *fut.last().unwrap_or(&last_obs);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at(end) + Polygon::new(vec![(0, -7), (6, 0), (0, 7), (-6, 0)], END_COLOR.filled()),
                ))
                .map_err(plot_err)?;
        }
        let mut entries = vec![("observed", Glyph::Line(SOURCE_COLOR, 0, 0)), ("future", Glyph::Line(TARGET_COLOR, 5, 4))];
        if predicted.is_some() {
            entries.push(("predicted", Glyph::Line(PRED_COLOR, 2, 3)));
        }
        entries.extend([("start", Glyph::Square(START_COLOR)), ("last future point", Glyph::Diamond(END_COLOR))]);
        draw_legend_beside(&side, chart.plotting_area().get_pixel_range().1.start, &entries)
    })
}

/// Checks what `plot_trajectories` draws: the trajectories' fields (edited after generating,
/// public for the notebook) before any slicing, at least one trajectory, enough predicted
/// points, and a finite point; returns how many trajectories are drawn and their bounds.
#[allow(clippy::type_complexity)]
fn check_trajectories(
    trajectories: &Trajectories,
    predicted: Option<&[[f64; 3]]>,
    count: usize,
) -> Result<(usize, ((f64, f64), (f64, f64)))> {
    trajectories.check().map_err(invalid)?;
    let n = count.min(trajectories.len());
    let (s, p) = (trajectories.seq_len, trajectories.pred_len);
    if n == 0 {
        return Err(invalid(format!("nothing to draw: {} trajectories, count {count}", trajectories.len())));
    }
    if let Some(pred) = predicted
        && pred.len() < n * p
    {
        return Err(invalid(format!("expected at least {} predicted points ({n} trajectories of {p}), got {}", n * p, pred.len())));
    }
    let observed = |i: usize| &trajectories.sources[i * s..(i + 1) * s];
    let future = |i: usize| &trajectories.targets[i * p..(i + 1) * p];
    let guess = |i: usize| predicted.map(|pr| &pr[i * p..(i + 1) * p]);
    let all = (0..n).flat_map(|i| observed(i).iter().chain(future(i)).chain(guess(i).unwrap_or(&[])));
    let Some(bounds) = bounds(all) else {
        return Err(invalid("no finite point to draw"));
    };
    Ok((n, bounds))
}

/// One bar per `(label, value)`, value printed above each bar (e.g. validation losses).
#[errors_as]
pub fn plot_bars(bars: &[(&str, f64)], title: &str, y_desc: &str) -> Result<Figure> {
    if bars.is_empty() || bars.iter().any(|(_, v)| !v.is_finite() || *v < 0.0) {
        return Err(invalid(format!("expected at least one bar, each finite and non-negative, got {bars:?}")));
    }
    let top = bars.iter().map(|(_, v)| *v).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.2;
    let n = bars.len();
    figure("plot_bars", (120 * n as u32 + 160, 380), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..n as f64, 0f64..top)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(y_desc)
            .label_style(("sans-serif", 11))
            .y_label_formatter(&|v| format!("{v:.1e}"))
            .draw()
            .map_err(plot_err)?;
        for (k, (label, v)) in bars.iter().enumerate() {
            let x = k as f64;
            let color = if k == 0 { RGBColor(150, 150, 150) } else { SOURCE_COLOR };
            chart.draw_series(std::iter::once(Rectangle::new([(x + 0.15, 0.0), (x + 0.85, *v)], color.filled()))).map_err(plot_err)?;
            chart
                .draw_series(std::iter::once(Text::new(format!("{v:.2e}"), (x + 0.2, v + top * 0.03), ("sans-serif", 11))))
                .map_err(plot_err)?;
            chart
                .draw_series(std::iter::once(Text::new(label.to_string(), (x + 0.15, v + top * 0.09), ("sans-serif", 12))))
                .map_err(plot_err)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of an attribute of every element of `kind` whose attributes contain `marks`.
    fn attrs(svg: &str, kind: &str, marks: &str, names: &[&str]) -> Vec<Vec<f64>> {
        let num = |el: &str, name: &str| {
            let el = format!(" {el}");
            let at = el.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("{name} in {el}")) + name.len() + 3;
            el[at..].split('"').next().unwrap().parse::<f64>().unwrap()
        };
        svg.split(&format!("<{kind} "))
            .skip(1)
            .map(|el| el.split('>').next().unwrap())
            .filter(|el| el.contains(marks))
            .map(|el| names.iter().map(|n| num(el, n)).collect())
            .collect()
    }

    #[test]
    fn the_legend_sits_right_of_the_plot_and_hides_no_marker() {
        // two trajectories whose starts lie at the top right, where the legend used to be
        let sources = vec![[1.0, 1.0, 0.0], [0.5, 0.5, 0.0], [0.98, 0.97, 0.0], [0.4, 0.6, 0.0]];
        let targets = vec![[0.0, 0.0, 0.0], [0.1, 0.2, 0.0]];
        let t = Trajectories::new(sources, targets, 2, 1).unwrap();
        let predicted = [[0.2, 0.1, 0.0], [0.3, 0.2, 0.0]];
        let svg = plot_trajectories(&t, Some(&predicted), 2, "t").unwrap().svg;
        let frame = attrs(&svg, "rect", "stroke=\"#C8C8C8\"", &["x", "y", "width", "height"]);
        assert_eq!(frame.len(), 1, "one legend frame: {svg}");
        let (lx, ly, lw, lh) = (frame[0][0], frame[0][1], frame[0][2], frame[0][3]);
        assert!(lx >= PLOT_W as f64 && lx + lw <= (PLOT_W + LEGEND_W) as f64 && ly > 0.0 && lh >= 5.0 * 22.0, "{frame:?}");
        let outside = |x: f64, y: f64| x < lx || x > lx + lw || y < ly || y > ly + lh;
        // the observed points, the start squares and the future crosses all lie left of the legend
        let points = attrs(&svg, "circle", "fill=\"#1F77B4\"", &["cx", "cy"]);
        assert_eq!(points.len(), 4, "{svg}");
        let starts: Vec<Vec<f64>> =
            attrs(&svg, "rect", "fill=\"#2CA02C\"", &["x", "y"]).into_iter().filter(|r| outside(r[0], r[1])).collect();
        assert_eq!(starts.len(), 2, "two start squares outside the legend (and its sample inside): {svg}");
        for p in points.iter().chain(&starts) {
            assert!(p[0] + 10.0 < lx, "a marker at {p:?} reaches the legend at x = {lx}");
        }
    }
}
