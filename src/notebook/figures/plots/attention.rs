//! Lecture part 2: attention heatmaps and the query with its keys.

use crate::nn::errors_as;
use crate::nn::shape::{invalid, invalid_shape};
use crate::notebook::display::elide::{Axis, MAX_PANELS, cells_per_axis, grid, joined_note};
use crate::notebook::display::read::{check_readable, read_matrix, read_values, to_f64};
use crate::notebook::figures::figure::{Figure, NOTE_HEIGHT, draw_legend, figure, figure_size, plot_err, with_note};
use crate::notebook::figures::heatmap::{heatmap_cells, heatmap_panel};
use crate::notebook::page::palette::CORNER_COLORS;
use candle_core::{Result, Tensor};
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
/// the sequences (`point_labels` in the lecture): empty, or one per sequence. Big weights show
/// at most 10 panels (the first sequences and heads) of at most 40 x 40 cells (the first and last
/// steps), and a note above them says what was left out.
#[errors_as]
pub fn plot_attention(alphas: &Tensor, titles: &[String], source_labels: &[String], target_labels: &[String]) -> Result<Figure> {
    let (heads, n, lt, ls) = check_attention(alphas, titles, source_labels, target_labels)?;
    const M: &str = "plot_attention";
    let seqs = Axis::first(n, MAX_PANELS);
    let hs = Axis::first(heads, MAX_PANELS / seqs.len());
    let cap = cells_per_axis(hs.len() * seqs.len());
    let (rows, cols) = (Axis::edges(lt, cap), Axis::edges(ls, cap));
    let mut shown = alphas.reshape((heads, n, lt, ls))?;
    for (dim, axis) in [&hs, &seqs, &rows, &cols].into_iter().enumerate() {
        shown = axis.select(M, &shown, dim)?;
    }
    let flat = to_f64(M, &shown)?.flatten_all()?.to_vec1::<f64>()?;
    let rank4 = alphas.rank() == 4;
    let note = joined_note(&[
        if rank4 { hs.note("heads") } else { None },
        seqs.note("sequences"),
        rows.note("target steps (rows)"),
        cols.note("source steps (columns)"),
    ]);
    let row_labels = rows.labels(|i| target_labels[i].clone());
    let col_labels = cols.labels(|j| source_labels[j].clone());
    let (hk, nk, rk, ck) = (hs.len(), seqs.len(), rows.len(), cols.len());
    let grid_cols = nk.min(5);
    let rows_per_head = nk.div_ceil(grid_cols);
    let (panel_w, panel_h) = figure_size(M, (90, 62, cols.kept.len()), (60, 34, rows.kept.len()))?;
    let extra = if note.is_some() { NOTE_HEIGHT } else { 0 };
    let size = figure_size(M, (0, panel_w.max(200), grid_cols), (extra, panel_h, rows_per_head * hk))?;
    figure(M, size, |root| {
        let area = with_note(root, note.as_deref())?;
        let panels = area.split_evenly((rows_per_head * hk, grid_cols));
        for (hp, h) in hs.indices().into_iter().enumerate() {
            for (sp, i) in seqs.indices().into_iter().enumerate() {
                let base = (hp * nk + sp) * rk * ck;
                let m = grid(&rows, &cols, |r, c| flat.get(base + r * ck + c).copied().unwrap_or(f64::NAN));
                let name = titles.get(i).cloned().unwrap_or_else(|| format!("sequence {i}"));
                let title = if heads > 1 { format!("{name} (head {h})") } else { name };
                let k = hp * rows_per_head * grid_cols + sp;
                heatmap_cells(&panels[k], &title, &m, None, &row_labels, &col_labels)?;
            }
        }
        Ok(())
    })
}

/// Checks that `alphas` is readable, `(N, Lt, Ls)` or `(heads, N, Lt, Ls)` with no size zero,
/// with `Ls` source and `Lt` target labels and no titles or one per sequence; returns
/// `(heads, N, Lt, Ls)`.
fn check_attention(
    alphas: &Tensor,
    titles: &[String],
    source_labels: &[String],
    target_labels: &[String],
) -> Result<(usize, usize, usize, usize)> {
    check_readable(alphas)?;
    let (heads, n, lt, ls) = match *alphas.dims() {
        [n, lt, ls] => (1, n, lt, ls),
        [h, n, lt, ls] => (h, n, lt, ls),
        ref d => return Err(invalid_shape("alphas (N, Lt, Ls) or (heads, N, Lt, Ls)", d)),
    };
    if source_labels.len() != ls || target_labels.len() != lt {
        return Err(invalid(format!(
            "expected {ls} source and {lt} target labels for alphas {:?}, got {} source and {} target labels",
            alphas.dims(),
            source_labels.len(),
            target_labels.len()
        )));
    }
    if !titles.is_empty() && titles.len() != n {
        return Err(invalid(format!(
            "expected no titles or one per sequence ({n}) for alphas {:?}, got {} titles",
            alphas.dims(),
            titles.len()
        )));
    }
    if heads == 0 || n == 0 || lt == 0 || ls == 0 {
        return Err(invalid_shape("alphas with at least one head, sequence, target and source step", alphas.dims()));
    }
    Ok((heads, n, lt, ls))
}

/// The most keys `query_and_keys` draws.
pub const MAX_KEYS: usize = 26;

/// A query, its keys and (optionally) the context vector as arrows from the origin, with the
/// unit circle; the legend gives each key's norm and its cosine with the query
/// (`query_and_keys`). `q` is `(D,)` with `D = 2`, `keys` is `(L, 2)`, `context` is `(2,)`.
#[errors_as]
pub fn query_and_keys(q: &Tensor, keys: &Tensor, context: Option<&Tensor>) -> Result<Figure> {
    let (q, ks, ctx) = check_vectors(q, keys, context)?;
    let norm = |v: &[f64]| v[0].hypot(v[1]);
    let qn = norm(&q);
    // The unit circle's window, widened to hold the longest vector.
    let longest = std::iter::once(&q).chain(&ks).chain(&ctx).flat_map(|v| v.iter()).fold(0f64, |m, x| m.max(x.abs()));
    let r = (longest * 1.1).max(1.5);
    let head_size = 0.09 * r / 1.5;
    figure("query_and_keys", (520, 520), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Query and keys", ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(25)
            .y_label_area_size(30)
            .build_cartesian_2d(-r..r, -r..r)
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
            let (ux, uy) = (v[0] / len * head_size, v[1] / len * head_size);
            let head = vec![tip, (tip.0 - ux - uy * 0.5, tip.1 - uy + ux * 0.5), (tip.0 - ux + uy * 0.5, tip.1 - uy - ux * 0.5)];
            chart.draw_series(std::iter::once(Polygon::new(head, color.filled()))).map_err(plot_err)?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerLeft, 11)?;
        Ok(())
    })
}

/// The values of a query, keys and context `query_and_keys` draws: an error naming it unless
/// the query and the context hold 2 finite values, and `keys` is `(L, 2)` with at most
/// [`MAX_KEYS`] keys, all finite.
#[allow(clippy::type_complexity)]
fn check_vectors(q: &Tensor, keys: &Tensor, context: Option<&Tensor>) -> Result<(Vec<f64>, Vec<Vec<f64>>, Option<Vec<f64>>)> {
    const M: &str = "query_and_keys";
    let (_, q) = read_values(M, q)?;
    let ks = read_matrix(M, keys, "keys (L, 2)")?;
    if q.len() != 2 || keys.dims().get(1) != Some(&2) {
        return Err(invalid(format!(
            "only two dimensions can be drawn: expected a query of 2 values and keys (L, 2), got a query of {} values and keys {:?}",
            q.len(),
            keys.dims()
        )));
    }
    if ks.len() > MAX_KEYS {
        return Err(invalid(format!("expected at most {MAX_KEYS} keys (one legend entry each), got keys {:?}", keys.dims())));
    }
    let ctx = match context {
        Some(c) => Some(read_values(M, c)?.1),
        None => None,
    };
    if let Some(c) = &ctx
        && c.len() != 2
    {
        return Err(invalid(format!("only two dimensions can be drawn: expected a context of 2 values, got {}", c.len())));
    }
    for (what, v) in std::iter::once(("the query", &q)).chain(ks.iter().map(|k| ("a key", k))).chain(ctx.iter().map(|c| ("the context", c)))
    {
        if let Some(bad) = v.iter().find(|x| !x.is_finite()) {
            return Err(invalid(format!("{what} holds {bad}: only finite vectors can be drawn")));
        }
    }
    Ok((q, ks, ctx))
}
