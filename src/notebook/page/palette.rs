//! The colours of the figures and tables.

use plotters::style::RGBColor;

/// The source sequence (blue).
pub const SOURCE_COLOR: RGBColor = RGBColor(31, 119, 180);

/// The target sequence (red).
pub const TARGET_COLOR: RGBColor = RGBColor(214, 39, 40);

/// Predictions (green).
pub const PRED_COLOR: RGBColor = RGBColor(44, 160, 44);

/// One colour per corner of the square, in walking order.
pub const CORNER_COLORS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(214, 39, 40)];

/// An RGB triple (for HTML as well as SVG).
pub struct HeatColor(pub u8, pub u8, pub u8);

/// A colour from white (0) to dark blue (1), for attention weights.
pub fn heat_rgb(v: f64) -> HeatColor {
    let t = if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    HeatColor(lerp(247.0, 8.0), lerp(251.0, 48.0), lerp(255.0, 107.0))
}

/// [`heat_rgb`] as a plotters colour.
pub fn heat_color(v: f64) -> RGBColor {
    let HeatColor(r, g, b) = heat_rgb(v);
    RGBColor(r, g, b)
}
