//! The lecture's figures as SVG: the figure itself, heatmaps and grids of them, the plots of each
//! lecture part, and the diagrams of the classes.

pub(crate) mod diagram;
pub(crate) mod figure;
pub(crate) mod grid_layout;
pub(crate) mod heatmap;
pub(crate) mod heatmap_grid;
#[cfg(test)]
mod heatmap_grid_tests;
pub(crate) mod plots;
