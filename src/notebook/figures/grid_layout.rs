//! Where the pieces of a grid of heatmaps go, in pixels: pure arithmetic, no drawing. Text
//! widths are estimated from character counts (the SVG carries no fonts to measure with).

use crate::nn::shape::error;
use crate::notebook::display::elide::MAX_CELLS;
use crate::notebook::figures::figure::MAX_PIXELS;
use crate::notebook::figures::heatmap_grid::{GridDims, MAX_GRID_PANELS, MAX_GRID_TOKENS};
use candle_core::Result;

/// The size in pixels of the grid's text (labels, titles, ticks).
pub const FONT: u32 = 12;
/// The width of one character of [`FONT`]-pixel text (plotters writes it about 10 pixels
/// high), estimated generously.
pub const CHAR_W: u32 = 6;
/// The ticks on the colour bar (both ends included).
pub const COLORBAR_TICKS: usize = 5;
/// The bands of colour the colour bar is drawn with.
pub const COLORBAR_STEPS: usize = 64;
/// The colour bar's width.
pub const COLORBAR_W: u32 = 14;
/// The smallest font a token label shrinks to so that every token keeps its label.
pub const MIN_LABEL_FONT: u32 = 9;

const MARGIN: u32 = 12;
const TITLE_H: u32 = 26;
const COL_TITLE_H: u32 = 18;
const PANEL_TITLE_H: u32 = 18;
const AXIS_NAME: u32 = 18;
const HGAP: u32 = 16;
const VGAP: u32 = 10;
const COLORBAR_GAP: u32 = 20;
const MIN_COLORBAR_H: u32 = 80;

/// What the layout needs to know: the sizes, and the longest text of each kind in characters
/// (0 where there is none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutSpec {
    /// The sizes of the grid.
    pub dims: GridDims,
    /// The longest column (key) label.
    pub x_label_chars: usize,
    /// The longest row (query) label.
    pub y_label_chars: usize,
    /// The longest panel title.
    pub panel_title_chars: usize,
    /// The longest row title (0: no row titles).
    pub row_title_chars: usize,
    /// The longest tick label of the colour bar.
    pub tick_chars: usize,
    /// Whether there are column titles.
    pub col_titles: bool,
    /// Whether the figure has a title.
    pub title: bool,
    /// Whether the columns' axis is named under the grid.
    pub x_axis: bool,
    /// Whether the rows' axis is named left of the grid.
    pub y_axis: bool,
    /// Whether the cells print their values.
    pub values: bool,
}

/// Where everything goes. `x` grows to the right, `y` downwards, from the figure's top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The figure's width and height.
    pub size: (u32, u32),
    /// The side of one (square) cell.
    pub cell: u32,
    /// The width and height of one panel's cells (`Lk x cell`, `Lq x cell`).
    pub panel: (u32, u32),
    /// The top left of panel `(0, 0)`'s cells.
    pub origin: (u32, u32),
    /// From one panel to the next, across and down.
    pub stride: (u32, u32),
    /// Every how many rows and columns a token label is written (1: all of them).
    pub label_step: usize,
    /// The size of the token labels' font.
    pub label_font: u32,
    /// Whether the column labels are written downwards (too wide for a cell).
    pub x_rotated: bool,
    /// The right edge of the row labels.
    pub y_label_right: u32,
    /// The right edge of the row titles.
    pub row_title_right: u32,
    /// Where the name of the rows' axis goes (its x), and of the columns' axis (its y).
    pub axis_names: (u32, u32),
    /// The top of the column labels, under the last row of panels.
    pub x_label_top: u32,
    /// The top of the figure's title.
    pub title_top: u32,
    /// The bottom of the column titles.
    pub col_title_bottom: u32,
    /// The colour bar: left, top, width, height.
    pub colorbar: (u32, u32, u32, u32),
}

impl Layout {
    /// The top left of panel `(r, c)`'s cells.
    pub fn panel_at(&self, r: usize, c: usize) -> (i32, i32) {
        let at = |origin: u32, i: usize, stride: u32| {
            let px = u64::from(origin) + (i as u64).saturating_mul(u64::from(stride));
            i32::try_from(px).unwrap_or(i32::MAX)
        };
        (at(self.origin.0, c, self.stride.0), at(self.origin.1, r, self.stride.1))
    }
}

/// The side of a cell: up to 28 pixels, smaller for long sequences and wide grids (the grid
/// aims at about 1400 x 1000 pixels), at least 4; at least 34 when cells print their values.
/// Sequences of up to [`MAX_CELLS`] tokens (the most a display keeps before eliding) get at
/// least [`MIN_LABEL_FONT`] + 1 pixels, room for a label on every row and column.
pub fn cell_size(d: GridDims, values: bool) -> u32 {
    let fit = |budget: usize, n: usize| budget / n.max(1);
    let side = 28.min(fit(240, d.lq.max(d.lk))).min(fit(1400, d.cols.saturating_mul(d.lk))).min(fit(1000, d.rows.saturating_mul(d.lq)));
    let floor = if d.lq.max(d.lk) <= MAX_CELLS { MIN_LABEL_FONT + 1 } else { 4 };
    let side = u32::try_from(side).unwrap_or(28).max(floor);
    if values { side.max(34) } else { side }
}

/// The font of the token labels for cells of side `cell`: [`FONT`] where it fits, down to
/// [`MIN_LABEL_FONT`] so that one label per cell fits; [`FONT`] again for cells too small for
/// that (then [`label_step`] thins the labels).
pub fn label_font(cell: u32) -> u32 {
    let fits = cell.saturating_sub(1);
    if fits >= MIN_LABEL_FONT { fits.min(FONT) } else { FONT }
}

/// Every how many cells a label is written so that labels of [`label_font`] pixels do not
/// overlap: 1 for cells of at least [`MIN_LABEL_FONT`] + 1 pixels.
pub fn label_step(cell: u32) -> usize {
    (label_font(cell) + 1).div_ceil(cell.max(1)) as usize
}

fn px(n: usize) -> u64 {
    n as u64
}

/// The most characters of any text the layout makes room for.
const MAX_CHARS: usize = 200;

/// The layout of a grid; an error naming `module` for sizes over the grid's limits or a figure
/// over [`MAX_PIXELS`] either way.
pub(crate) fn layout(module: &str, spec: &LayoutSpec) -> Result<Layout> {
    let d = spec.dims;
    if d.rows.saturating_mul(d.cols) > MAX_GRID_PANELS || d.lq.max(d.lk) > MAX_GRID_TOKENS || d.rows.min(d.cols).min(d.lq).min(d.lk) == 0 {
        return Err(error(
            module,
            format!("expected 1 to {MAX_GRID_PANELS} panels of 1 to {MAX_GRID_TOKENS} x {MAX_GRID_TOKENS} cells, got {d:?}"),
        ));
    }
    let c = |n: usize| n.min(MAX_CHARS);
    let s = LayoutSpec {
        x_label_chars: c(spec.x_label_chars),
        y_label_chars: c(spec.y_label_chars),
        panel_title_chars: c(spec.panel_title_chars),
        row_title_chars: c(spec.row_title_chars),
        tick_chars: c(spec.tick_chars),
        ..*spec
    };
    let (char_w, font) = (u64::from(CHAR_W), u64::from(FONT));
    let cell = cell_size(d, s.values);
    let panel = (px(d.lk).saturating_mul(u64::from(cell)), px(d.lq).saturating_mul(u64::from(cell)));
    let title_w = px(s.panel_title_chars).saturating_mul(char_w);
    let stride_x = panel.0.max(title_w) + u64::from(HGAP);
    let stride_y = panel.1 + u64::from(PANEL_TITLE_H + VGAP);
    let x_rotated = px(s.x_label_chars).saturating_mul(char_w) > u64::from(cell);
    let x_labels_h = if x_rotated { px(s.x_label_chars).saturating_mul(char_w) + 8 } else { font + 8 };

    let y_axis_w = if s.y_axis { u64::from(AXIS_NAME) } else { 0 };
    let row_titles_w = if s.row_title_chars > 0 { px(s.row_title_chars).saturating_mul(char_w) + 10 } else { 0 };
    let row_title_right = u64::from(MARGIN) + y_axis_w + row_titles_w.saturating_sub(10);
    let y_label_right = u64::from(MARGIN) + y_axis_w + row_titles_w + px(s.y_label_chars).saturating_mul(char_w);
    // The first panel sits centred in its stride, which may be wider than the panel.
    let left = y_label_right + 6 + (stride_x - u64::from(HGAP) - panel.0) / 2;
    let top = u64::from(MARGIN)
        + if s.title { u64::from(TITLE_H) } else { 0 }
        + if s.col_titles { u64::from(COL_TITLE_H) } else { 0 }
        + u64::from(PANEL_TITLE_H);

    let grid_right = left + stride_x.saturating_mul(px(d.cols).saturating_sub(1)) + panel.0;
    let grid_bottom = top + stride_y.saturating_mul(px(d.rows).saturating_sub(1)) + panel.1;
    let colorbar_x = grid_right + (stride_x - u64::from(HGAP) - panel.0) / 2 + u64::from(COLORBAR_GAP);
    let colorbar_h = (grid_bottom - top).max(u64::from(MIN_COLORBAR_H));
    let width = colorbar_x + u64::from(COLORBAR_W) + 6 + px(s.tick_chars).saturating_mul(char_w) + u64::from(MARGIN);
    let x_axis_y = grid_bottom + x_labels_h + 2;
    let labels_bottom = x_axis_y + if s.x_axis { u64::from(AXIS_NAME) } else { 0 };
    let height = labels_bottom.max(top + colorbar_h + font) + u64::from(MARGIN);
    let fits = |v: u64| u32::try_from(v).ok().filter(|&v| v > 0 && v <= MAX_PIXELS);
    let (Some(w), Some(h)) = (fits(width), fits(height)) else {
        return Err(error(
            module,
            format!(
                "a grid of {} x {} panels of {} x {} cells needs a figure of {width} x {height} pixels (at most {MAX_PIXELS} each way)",
                d.rows, d.cols, d.lq, d.lk
            ),
        ));
    };
    // Every value below is at most the width or the height, which fit in u32.
    let n = |v: u64| u32::try_from(v).unwrap_or(MAX_PIXELS);
    Ok(Layout {
        size: (w, h),
        cell,
        panel: (n(panel.0), n(panel.1)),
        origin: (n(left), n(top)),
        stride: (n(stride_x), n(stride_y)),
        label_step: label_step(cell),
        label_font: label_font(cell),
        x_rotated,
        y_label_right: n(y_label_right),
        row_title_right: n(row_title_right),
        axis_names: (n(u64::from(MARGIN) + u64::from(AXIS_NAME) / 2), n(x_axis_y)),
        x_label_top: n(grid_bottom + 4),
        title_top: MARGIN,
        col_title_bottom: n(top - u64::from(PANEL_TITLE_H) - 2),
        colorbar: (n(colorbar_x), n(top), COLORBAR_W, n(colorbar_h)),
    })
}
