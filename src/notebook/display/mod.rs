//! Tensors and tables as a notebook shows them: PyTorch-style text, HTML tables, attention weights
//! as shaded tables, small tables of text, and what big displays keep.

pub(crate) mod alphas;
pub(crate) mod comparison;
pub(crate) mod elide;
pub(crate) mod helpers;
pub(crate) mod position_codes;
pub(crate) mod print;
pub(crate) mod read;
pub(crate) mod table;
pub(crate) mod text_table;
