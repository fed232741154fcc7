//! Figures as SVG (plotters, no system fonts): shown inline in a notebook, savable to a file.

use crate::nn::shape::{Within, error, invalid};
use crate::notebook::page::output::emit;
use candle_core::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// An SVG picture.
#[derive(Clone)]
pub struct Figure {
    /// What drew it (`plot_attention`, `losses`, ...).
    pub title: String,
    /// The picture as SVG text.
    pub svg: String,
}

impl std::fmt::Debug for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<Figure: {} ({} bytes of SVG)>", self.title, self.svg.len())
    }
}

impl Figure {
    /// Writes the SVG to `path`.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, &self.svg).map_err(|e| candle_core::Error::Msg(format!("Figure::save: {}: {e}", path.display())))
    }

    /// What evcxr calls to show the figure: the SVG, with a text fallback.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &format!("<Figure: {}>", self.title)), ("image/svg+xml", &self.svg)]);
    }
}

pub(crate) fn plot_err<E: std::fmt::Debug>(e: E) -> candle_core::Error {
    candle_core::Error::Msg(format!("plots: drawing failed: {e:?}"))
}

/// Draws a chart's legend (its series labels) in a white, slightly see-through box with a light
/// grey border at `position`, the labels at `font_size` points: one look for every figure.
pub(crate) fn draw_legend<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    position: SeriesLabelPosition,
    font_size: u32,
) -> Result<()> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", font_size))
        .position(position)
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

/// The widest or tallest figure drawn, in pixels: larger sizes are an error, never a giant SVG.
pub const MAX_PIXELS: u32 = 40_000;

/// The size in pixels of a figure of `base + per * count` pixels along each axis (`(base, per,
/// count)` for width, then height), computed without overflow; an error naming `module` if it is
/// zero or over [`MAX_PIXELS`].
pub fn figure_size(module: &str, width: (u32, u32, usize), height: (u32, u32, usize)) -> Result<(u32, u32)> {
    let side = |(base, per, count): (u32, u32, usize), what: &str| -> Result<u32> {
        let px = u32::try_from(count).ok().and_then(|c| per.checked_mul(c)).and_then(|p| p.checked_add(base));
        match px {
            Some(px) if px > 0 && px <= MAX_PIXELS => Ok(px),
            _ => Err(error(module, format!("a figure {base} + {per} x {count} pixels {what} is too large (at most {MAX_PIXELS} pixels)"))),
        }
    };
    Ok((side(width, "wide")?, side(height, "tall")?))
}

/// The height of the strip [`with_note`] takes for its note.
pub const NOTE_HEIGHT: u32 = 22;

/// Splits a strip off the top of `root` holding `note` (what a big display leaves out) and
/// returns the rest; `root` itself when there is no note.
pub fn with_note<'a>(root: &DrawingArea<SVGBackend<'a>, Shift>, note: Option<&str>) -> Result<DrawingArea<SVGBackend<'a>, Shift>> {
    let Some(note) = note else { return Ok(root.clone()) };
    let (strip, rest) = root.split_vertically(NOTE_HEIGHT);
    strip.draw(&Text::new(note.to_string(), (8, 5), ("sans-serif", 12).into_font().color(&RGBColor(90, 90, 90)))).map_err(plot_err)?;
    Ok(rest)
}

/// Draws into a fresh SVG of `size` pixels (width, height) and wraps it as a figure. Sizes of
/// zero or over [`MAX_PIXELS`] are an error naming `title`: `draw` lays out a chart, a caption or
/// a heatmap in the area, and an area without pixels holds none of them (an empty SVG would drop
/// what `draw` meant to show without a word).
pub fn figure(title: &str, size: (u32, u32), draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>) -> Result<Figure> {
    check_figure_size(size).within(title)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Figure { title: title.to_string(), svg })
}

/// Checks that a figure of `size` pixels (width, height) has 1 to [`MAX_PIXELS`] pixels each way.
fn check_figure_size(size: (u32, u32)) -> Result<()> {
    let (w, h) = size;
    if w == 0 || h == 0 {
        return Err(invalid(format!(
            "a figure of size {size:?} (width, height) has no pixels to draw on: expected 1 to {MAX_PIXELS} pixels each way"
        )));
    }
    if w > MAX_PIXELS || h > MAX_PIXELS {
        return Err(invalid(format!("a figure of size {size:?} (width, height) is too large: expected 1 to {MAX_PIXELS} pixels each way")));
    }
    Ok(())
}

/// Text of `size` pixels in `color`, anchored at its point by `h` and `v` (plotters' text
/// anchors): the one place figures place centred or right-aligned labels.
pub fn anchored_text(
    text: impl Into<String>,
    at: (i32, i32),
    size: u32,
    color: &RGBColor,
    h: HPos,
    v: VPos,
) -> Text<'static, (i32, i32), String> {
    let style = ("sans-serif", size).into_font().color(color).pos(Pos::new(h, v));
    Text::new(text.into(), at, style)
}
