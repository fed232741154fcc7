//! Lecture part 2: attention heatmaps and the query with its keys.

use crate::notebook::figure::{Figure, figure, plot_err};
use crate::notebook::heatmap::heatmap_panel;
use crate::notebook::palette::CORNER_COLORS;
use candle_core::{Result, Tensor, bail};
use plotters::prelude::*;

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
    let ks = keys
        .to_dtype(candle_core::DType::F64)?
        .to_vec2::<f64>()
        .map_err(|_| candle_core::Error::Msg(format!("query_and_keys: expected keys (L, 2), got {:?}", keys.dims())))?;
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
        let circle: Vec<(f64, f64)> = (0..=120)
            .map(|i| {
                let t = i as f64 / 120.0 * std::f64::consts::TAU;
                (t.cos(), t.sin())
            })
            .collect();
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
