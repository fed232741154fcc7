//! The GPS exercise's figures: trajectories on longitude/latitude axes, real against predicted,
//! and a bar chart of validation losses.

use crate::data::Trajectories;
use crate::nn::shape::error;
use crate::notebook::figure::{Figure, draw_legend, figure, plot_err};
use crate::notebook::palette::{PRED_COLOR, SOURCE_COLOR, TARGET_COLOR};
use candle_core::Result;
use plotters::prelude::*;

const START_COLOR: RGBColor = RGBColor(44, 160, 44);
const END_COLOR: RGBColor = RGBColor(255, 127, 14);

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
/// predictions too (green dotted). Longitude along x, latitude along y.
pub fn plot_trajectories(trajectories: &Trajectories, predicted: Option<&[[f64; 3]]>, count: usize, title: &str) -> Result<Figure> {
    let module = "plot_trajectories";
    // fields edited after generating (public for the notebook) are checked before any slicing
    trajectories.check().map_err(|e| error(module, e))?;
    let n = count.min(trajectories.len());
    let (s, p) = (trajectories.seq_len, trajectories.pred_len);
    if n == 0 {
        return Err(error(module, format!("nothing to draw: {} trajectories, count {count}", trajectories.len())));
    }
    if let Some(pred) = predicted
        && pred.len() < n * p
    {
        return Err(error(module, format!("expected at least {} predicted points ({n} trajectories of {p}), got {}", n * p, pred.len())));
    }
    let observed = |i: usize| &trajectories.sources[i * s..(i + 1) * s];
    let future = |i: usize| &trajectories.targets[i * p..(i + 1) * p];
    let guess = |i: usize| predicted.map(|pr| &pr[i * p..(i + 1) * p]);
    let all = (0..n).flat_map(|i| observed(i).iter().chain(future(i)).chain(guess(i).unwrap_or(&[])));
    let Some(((x0, x1), (y0, y1))) = bounds(all) else {
        return Err(error(module, "no finite point to draw"));
    };
    figure(module, (640, 600), |root| {
        let mut chart = ChartBuilder::on(root)
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
            let first = i == 0;
            let obs: Vec<(f64, f64)> = observed(i).iter().map(xy).collect();
            let last_obs = *obs.last().unwrap_or(&(0.0, 0.0));
            let fut: Vec<(f64, f64)> = std::iter::once(last_obs).chain(future(i).iter().map(xy)).collect();
            let s1 = chart.draw_series(LineSeries::new(obs.clone(), SOURCE_COLOR.stroke_width(2))).map_err(plot_err)?;
            if first {
                s1.label("observed").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], SOURCE_COLOR.stroke_width(2)));
            }
            chart.draw_series(obs.iter().map(|q| Circle::new(*q, 3, SOURCE_COLOR.filled()))).map_err(plot_err)?;
            let s2 = chart.draw_series(DashedLineSeries::new(fut.clone(), 5, 4, TARGET_COLOR.stroke_width(2))).map_err(plot_err)?;
            if first {
                s2.label("future").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], TARGET_COLOR.stroke_width(2)));
            }
            chart.draw_series(fut.iter().skip(1).map(|q| Cross::new(*q, 4, TARGET_COLOR.stroke_width(2)))).map_err(plot_err)?;
            if let Some(g) = guess(i) {
                let pts: Vec<(f64, f64)> = std::iter::once(last_obs).chain(g.iter().map(xy)).collect();
                let s3 = chart.draw_series(DashedLineSeries::new(pts.clone(), 2, 3, PRED_COLOR.stroke_width(2))).map_err(plot_err)?;
                if first {
                    s3.label("predicted").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], PRED_COLOR.stroke_width(2)));
                }
                chart.draw_series(pts.iter().skip(1).map(|q| TriangleMarker::new(*q, 4, PRED_COLOR.filled()))).map_err(plot_err)?;
            }
            let start = chart
                .draw_series(std::iter::once(EmptyElement::at(obs[0]) + Rectangle::new([(-5, -5), (5, 5)], START_COLOR.filled())))
                .map_err(plot_err)?;
            if first {
                start.label("start").legend(|(x, y)| Rectangle::new([(x + 5, y - 5), (x + 15, y + 5)], START_COLOR.filled()));
            }
            let end = *fut.last().unwrap_or(&last_obs);
            let diamond = chart
                .draw_series(std::iter::once(
                    EmptyElement::at(end) + Polygon::new(vec![(0, -7), (6, 0), (0, 7), (-6, 0)], END_COLOR.filled()),
                ))
                .map_err(plot_err)?;
            if first {
                diamond
                    .label("last future point")
                    .legend(|(x, y)| Polygon::new(vec![(x + 10, y - 6), (x + 15, y), (x + 10, y + 6), (x + 5, y)], END_COLOR.filled()));
            }
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 12)?;
        Ok(())
    })
}

/// One bar per `(label, value)`, value printed above each bar (e.g. validation losses).
pub fn plot_bars(bars: &[(&str, f64)], title: &str, y_desc: &str) -> Result<Figure> {
    let module = "plot_bars";
    if bars.is_empty() || bars.iter().any(|(_, v)| !v.is_finite() || *v < 0.0) {
        return Err(error(module, format!("expected at least one bar, each finite and non-negative, got {bars:?}")));
    }
    let top = bars.iter().map(|(_, v)| *v).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.2;
    let n = bars.len();
    figure(module, (120 * n as u32 + 160, 380), |root| {
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
