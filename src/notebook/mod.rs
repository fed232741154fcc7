//! What notebooks show, in rooms by what it is: `display/` (tensors and tables), `figures/`
//! (figures, heatmaps, plots and diagrams, as SVG), `explorer/` (the interactive attention
//! explorer), `code/` (the class cells' code) and `page/` (what every output is made of).
//! Nothing below this layer imports it.

pub(crate) mod code;
pub(crate) mod display;
pub(crate) mod explorer;
pub(crate) mod figures;
pub(crate) mod page;

pub use code::{ClassView, Excerpt, show_class};
pub use display::alphas::{ShowAlphas, show_alphas};
pub use display::comparison::comparison_table;
pub use display::helpers::batch_of_one;
pub use display::position_codes::{PositionCode, code_difference, code_difference_table, modulo_codes, position_codes, sine_cosine_codes};
pub use display::print::{ValueFormat, tensor_to_text, tensor_to_text_as};
pub use display::table::{ShowTensor, show, tensor_to_html, tensor_to_html_as};
pub use display::text_table::{ShowTensors, Table, show_all};
pub use explorer::{
    AttentionKind, Explorer, Neurons, explore, explore_alphas, explore_attention, explore_sentence, explore_sentence_terms, explore_terms,
};
pub use figures::diagram::{Architecture, Diagram, Part, draw};
pub use figures::figure::{Figure, MAX_PIXELS, figure};
pub use figures::heatmap::heatmap_panel;
pub use figures::heatmap_grid::HeatmapGrid;
pub use figures::plots::*;
pub use page::output::emit;
