//! Figures as SVG (plotters, no system fonts): shown inline in a notebook, savable to a file.

use super::output::emit;
use candle_core::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// An SVG picture.
#[derive(Clone)]
pub struct Figure {
    pub title: String,
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

/// Draws into a fresh SVG of `size` pixels and wraps it as a figure.
pub fn figure(title: &str, size: (u32, u32), draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>) -> Result<Figure> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Figure { title: title.to_string(), svg })
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
