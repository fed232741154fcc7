//! Part 5, the blog post's attention layers (notebooks/exercises/05_attention_layers.ipynb): the
//! plain query-key-value layer, one LSTM cell step, the vectorised multi-head attention, a
//! bidirectional LSTM's outputs, the key-padding mask, the cross-entropy that ignores padding,
//! the teacher-forcing targets of translation, and the Transformer encoder block.

mod layers;
mod lstm;
mod padding;

pub use layers::*;
pub use lstm::*;
pub use padding::*;

use super::Info;
use super::progress::Progress;

/// Every exercise of part 5, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO, Q8::INFO];

/// The table of part 5's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("05")
}
