//! Training and validation losses, and `StepByStep::plot_losses`.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::notebook::figures::figure::{Figure, draw_legend, figure, plot_err};
use crate::notebook::page::palette::{SOURCE_COLOR, TARGET_COLOR};
use crate::train::Batches;
use crate::train::{Loss, Optimizer, StepByStep};
use candle_core::Result;
use plotters::prelude::*;

/// The most decades the log axis spans below the largest loss; smaller losses are not shown.
/// plotters' log axis cannot lay out a span whose ratio overflows f64 (it never returns).
pub const MAX_DECADES: i32 = 30;

/// The most points drawn per series; longer series show every k-th epoch (and the last).
pub const MAX_POINTS: usize = 2000;

/// The log axis of a loss plot: the range `lo..hi`, the smallest value drawn (`floor`) and a
/// note when values were left out.
#[derive(Clone, Debug, PartialEq)]
pub struct LogAxis {
    /// The bottom of the axis, a little below the smallest value drawn.
    pub lo: f64,
    /// The top of the axis, a little above the largest value (at most `f64::MAX`).
    pub hi: f64,
    /// Values below this (and NaN, infinite or non-positive ones) are not drawn.
    pub floor: f64,
    /// What was left out, for the caption.
    pub note: Option<String>,
}

/// The log axis for these losses, computed without overflow and spanning at most
/// [`MAX_DECADES`] decades below the largest loss. Subnormal losses cannot be drawn on a log
/// axis: when they are all there is, the axis is the decade above [`f64::MIN_POSITIVE`] and the
/// note says they are not shown. An error if no loss is positive and finite.
#[errors_as("plot_losses")]
pub fn log_axis(values: &[f64]) -> Result<LogAxis> {
    check_drawable(values)?;
    let drawable = |v: &f64| v.is_finite() && *v >= f64::MIN_POSITIVE;
    let max = values.iter().copied().filter(drawable).fold(f64::NAN, f64::max);
    let (lo, hi, floor) = if !max.is_nan() {
        // max * 1e-30 is at least MIN_POSITIVE * 1e-30 > 0 only when max is large enough: clamp.
        let floor = (max / 10f64.powi(MAX_DECADES)).max(f64::MIN_POSITIVE);
        let min = values.iter().copied().filter(|v| drawable(v) && *v >= floor).fold(max, f64::min);
        ((min / 1.25), (max * 1.25).min(f64::MAX), floor)
    } else {
        // Subnormal losses only: an empty axis, the caption saying what was left out.
        (f64::MIN_POSITIVE, f64::MIN_POSITIVE * 10.0, f64::MIN_POSITIVE)
    };
    let cut = values.iter().filter(|v| v.is_finite() && **v > 0.0 && **v < floor).count();
    let bad = values.iter().filter(|v| !v.is_finite() || **v <= 0.0).count();
    let mut notes = vec![];
    if cut > 0 {
        notes.push(format!("values below {floor:.1e} not shown ({cut})"));
    }
    if bad > 0 {
        notes.push(format!("{bad} NaN, infinite or non-positive values not shown"));
    }
    let note = if notes.is_empty() { None } else { Some(notes.join("; ")) };
    Ok(LogAxis { lo, hi, floor, note })
}

/// Checks that at least one loss is positive and finite (if only subnormal ones are, the axis
/// shows none of them).
fn check_drawable(values: &[f64]) -> Result<()> {
    if values.iter().any(|v| v.is_finite() && *v > 0.0) {
        return Ok(());
    }
    Err(invalid(format!("expected at least one finite positive loss, got {} losses and none drawable; train first", values.len())))
}

/// An axis label: plain decimals for ordinary losses, scientific notation otherwise.
fn label(v: f64) -> String {
    if (1e-3..1e5).contains(&v.abs()) { format!("{v:.3}") } else { format!("{v:.1e}") }
}

/// The drawable points of one series: every `step`-th and the last.
fn points(values: &[f64], axis: &LogAxis, step: usize) -> Vec<(f64, f64)> {
    let step = step.max(1);
    let last = values.len().saturating_sub(1);
    values
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || *i == last)
        .filter(|(_, v)| v.is_finite() && **v >= axis.floor)
        .map(|(i, v)| ((i + 1) as f64, *v))
        .collect()
}

/// Training and validation losses per epoch on a log scale (`plot_losses`). NaN, infinite and
/// non-positive losses are skipped, and so are losses more than [`MAX_DECADES`] decades below
/// the largest; the caption says so. The two lists may differ in length (validation may be
/// absent).
pub fn plot_losses(losses: &[f64], val_losses: &[f64]) -> Result<Figure> {
    let all: Vec<f64> = losses.iter().chain(val_losses).copied().collect();
    let axis = log_axis(&all)?;
    let n = losses.len().max(val_losses.len()).max(2);
    let step = n.div_ceil(MAX_POINTS).max(1);
    let mut notes: Vec<String> = axis.note.iter().cloned().collect();
    if step > 1 {
        notes.push(format!("one point per {step} epochs shown"));
    }
    let caption = if notes.is_empty() { "Losses".to_string() } else { format!("Losses ({})", notes.join("; ")) };
    let (lo, hi) = (axis.lo, axis.hi);
    figure("losses", (700, 400), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, ("sans-serif", 16))
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
            .y_label_formatter(&|v| label(*v))
            .draw()
            .map_err(plot_err)?;
        let series = [(losses, "Training Loss", SOURCE_COLOR), (val_losses, "Validation Loss", TARGET_COLOR)];
        for (values, label, color) in series {
            if values.is_empty() {
                continue;
            }
            let pts = points(values, &axis, step);
            if pts.len() == 1 {
                // A line of one point draws nothing: mark it.
                chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled()))).map_err(plot_err)?;
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 12)?;
        Ok(())
    })
}

// No bounds on the trainer's parts: evcxr as published infers `let fig = sbs.plot_losses()?;`
// with a rust-analyzer that cannot see a model's derived `Walk` (it expands no derives; the
// project's kernel does); the plot needs only the losses (the struct's own bounds stay).
impl<M, L: Loss, O: Optimizer, D: Batches> StepByStep<M, L, O, D> {
    /// The training and validation losses, log scale (the book's `plot_losses`).
    pub fn plot_losses(&self) -> Result<Figure> {
        plot_losses(&self.losses, &self.val_losses)
    }
}
