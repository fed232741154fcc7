//! Lines on log-log axes: how a quantity grows with another across orders of magnitude (tokens
//! per second against parameters, say, as `make bench-scale` draws for docs/performance.md).

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::notebook::figures::figure::{Figure, draw_legend, figure, plot_err};
use crate::notebook::page::palette::{SOURCE_COLOR, TARGET_COLOR};
use candle_core::Result;
use plotters::prelude::*;

/// One line of [`plot_loglog`]: its legend label and its `(x, y)` points, both positive.
#[derive(Clone, Debug)]
pub struct LogLogSeries {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// The log axis over `values` (all positive): from the decade at or below the smallest to the
/// decade at or above the largest.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil());
    (lo, if hi > lo { hi } else { lo * 10.0 })
}

/// A number for an axis label: 1k, 20k, 3M, 0.5.
fn short(v: f64) -> String {
    let (scaled, unit) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if scaled.fract().abs() < 1e-9 { 0 } else { 1 };
    format!("{scaled:.digits$}{unit}")
}

/// Lines through each series' points on log-log axes, each point marked, with a legend; the
/// series are drawn in the palette's colours in turn. Every value must be positive and finite:
/// a log axis has no place for the others.
///
/// # Shapes
/// - `series`: one or more lines, each of one or more `(x, y)` points (sorted by `x` or not: the
///   line joins them in the order given)
#[errors_as]
pub fn plot_loglog(title: &str, x_desc: &str, y_desc: &str, series: &[LogLogSeries]) -> Result<Figure> {
    if series.is_empty() || series.iter().any(|s| s.points.is_empty()) {
        return Err(invalid("expected at least one series, each with at least one point"));
    }
    if let Some((s, (x, y))) = series.iter().flat_map(|s| s.points.iter().map(move |p| (s, p))).find(|(_, (x, y))| {
        let bad = |v: &f64| !(v.is_finite() && *v > 0.0);
        bad(x) || bad(y)
    }) {
        return Err(invalid(format!("series `{}`: the point ({x}, {y}) is not positive and finite (log axes)", s.label)));
    }
    let (x_lo, x_hi) = decades(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let (y_lo, y_hi) = decades(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let colors = [SOURCE_COLOR, TARGET_COLOR, RGBColor(90, 160, 60), RGBColor(150, 90, 180)];
    figure(title, (700, 420), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(60)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .draw()
            .map_err(plot_err)?;
        for (k, s) in series.iter().enumerate() {
            let color = colors[k % colors.len()];
            chart.draw_series(s.points.iter().map(|p| Circle::new(*p, 3, color.filled()))).map_err(plot_err)?;
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
                .map_err(plot_err)?
                .label(s.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 12)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::{LogLogSeries, decades, plot_loglog, short};

    #[test]
    fn axes_span_whole_decades_and_labels_are_short() {
        assert_eq!(decades([330_000.0, 45_000_000.0].into_iter()), (100_000.0, 100_000_000.0));
        assert_eq!(decades([100.0].into_iter()), (100.0, 1000.0));
        assert_eq!((short(300_000.0), short(1.5e6), short(20.0), short(0.5)), ("300k".into(), "1.5M".into(), "20".into(), "0.5".into()));
    }

    #[test]
    fn draws_every_series_and_refuses_what_a_log_axis_cannot_show() {
        let line = |label: &str, points: Vec<(f64, f64)>| LogLogSeries { label: label.into(), points };
        let fig = plot_loglog("t", "x", "y", &[line("ours", vec![(3e5, 5e4), (4.5e7, 400.0)]), line("theirs", vec![(3e5, 2e4)])]).unwrap();
        assert!(fig.svg.contains("ours") && fig.svg.contains("theirs") && fig.svg.matches("<circle").count() >= 3);
        for bad in [vec![(0.0, 1.0)], vec![(1.0, -2.0)], vec![(f64::NAN, 1.0)], vec![]] {
            let e = plot_loglog("t", "x", "y", &[line("s", bad)]).unwrap_err().to_string();
            assert!(e.contains("plot_loglog"), "{e}");
        }
        assert!(plot_loglog("t", "x", "y", &[]).is_err());
    }
}
