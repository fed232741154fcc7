//! What notebooks show: tensors as PyTorch-style text and HTML tables, attention weights as
//! shaded tables, and the lecture's figures as SVG, grouped by lecture part as the book keeps its
//! plots apart from its models. Nothing below this layer imports it.

pub(crate) mod alphas;
pub(crate) mod code;
pub(crate) mod comparison;
pub(crate) mod diagram;
pub(crate) mod elide;
pub(crate) mod explorer;
pub(crate) mod figure;
pub(crate) mod grid_layout;
pub(crate) mod heatmap;
pub(crate) mod heatmap_grid;
#[cfg(test)]
mod heatmap_grid_tests;
pub(crate) mod helpers;
pub(crate) mod html;
pub(crate) mod output;
pub(crate) mod palette;
pub(crate) mod plots;
pub(crate) mod position_codes;
pub(crate) mod print;
pub(crate) mod read;
pub(crate) mod table;
pub(crate) mod text_table;

pub use alphas::{ShowAlphas, show_alphas};
pub use code::{ClassView, Excerpt, show_class};
pub use comparison::comparison_table;
pub use diagram::{Architecture, Diagram, Part, draw};
pub use explorer::{
    AttentionKind, Explorer, Neurons, explore, explore_alphas, explore_attention, explore_sentence, explore_sentence_terms, explore_terms,
};
pub use figure::{Figure, MAX_PIXELS, figure};
pub use heatmap::heatmap_panel;
pub use heatmap_grid::HeatmapGrid;
pub use helpers::batch_of_one;
pub use output::emit;
pub use plots::*;
pub use position_codes::{PositionCode, code_difference, code_difference_table, modulo_codes, position_codes, sine_cosine_codes};
pub use print::{ValueFormat, tensor_to_text, tensor_to_text_as};
pub use table::{ShowTensor, show, tensor_to_html, tensor_to_html_as};
pub use text_table::{ShowTensors, Table, show_all};
