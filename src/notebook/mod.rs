//! What notebooks show: tensors as PyTorch-style text and HTML tables, attention weights as
//! shaded tables, and the lecture's figures as SVG, grouped by lecture part as the book keeps its
//! plots apart from its models. Nothing below this layer imports it.

pub mod alphas;
pub mod comparison;
pub mod elide;
pub mod figure;
pub mod grid_layout;
pub mod heatmap;
pub mod heatmap_grid;
pub mod helpers;
pub mod html;
pub mod output;
pub mod palette;
pub mod plots;
pub mod position_codes;
pub mod print;
pub mod read;
pub mod table;
pub mod text_table;

pub use alphas::{ShowAlphas, show_alphas};
pub use comparison::comparison_table;
pub use figure::Figure;
pub use heatmap_grid::HeatmapGrid;
pub use helpers::batch_of_one;
pub use output::emit;
pub use plots::*;
pub use position_codes::{PositionCode, code_difference, code_difference_table, modulo_codes, position_codes, sine_cosine_codes};
pub use print::tensor_to_text;
pub use table::{ShowTensor, show, tensor_to_html};
pub use text_table::{ShowTensors, Table, show_all};
