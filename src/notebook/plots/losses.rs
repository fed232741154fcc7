//! Training and validation losses, and `StepByStep::plot_losses`.

use crate::nn::Model;
use crate::notebook::figure::{Figure, figure, plot_err};
use crate::notebook::palette::{SOURCE_COLOR, TARGET_COLOR};
use crate::train::{Loss, Optimizer, StepByStep};
use candle_core::{Result, bail};
use plotters::prelude::*;

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

impl<M: Model, L: Loss, O: Optimizer> StepByStep<M, L, O> {
    /// The training and validation losses, log scale (the book's `plot_losses`).
    pub fn plot_losses(&self) -> Result<Figure> {
        plot_losses(&self.losses, &self.val_losses)
    }
}
