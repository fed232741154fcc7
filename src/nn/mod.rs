//! Layers with PyTorch's parameter names and PyTorch's initialisation, and the operations they
//! are made of.
//!
//! Each layer draws its initial weights from the default generator ([`crate::repro`]) in the
//! order PyTorch draws them, so `manual_seed(s)` followed by a constructor gives the weights that
//! `torch.manual_seed(s)` followed by the same PyTorch constructor gives. Every operation used here
//! records a backward pass.
//!
//! The layers read as the lecture's; where a float32 CPU tensor can go through a hand-written
//! kernel (one graph node with its own backward pass in place of several), the layer makes one call
//! into `fused`, the kernel wing, which answers with the plain-candle composition wherever the
//! kernel does not apply.

pub(crate) mod dropout;
pub(crate) mod embedding;
pub(crate) mod feed_forward;
pub(crate) mod fused;
pub(crate) mod gru;
pub(crate) mod layer_norm;
pub(crate) mod linear;
pub(crate) mod lstm;
pub(crate) mod lstm_cell;
pub(crate) mod module;
pub(crate) mod ops;
pub(crate) mod packed;
pub(crate) mod param;
mod pickle_entry;
mod pickle_scan;
pub(crate) mod pytorch;
pub(crate) mod rnn;
pub(crate) mod shape;

/// `#[derive(Walk)]`: a module's walk written from its fields (see [`Walk`]); `#[errors_as("Name")]`
/// labels a public function's errors with its item's name, once (see [`in_module`]).
pub use attention_zoo_macros::{Walk, errors_as};
pub use dropout::{Dropout, dropout};
pub use embedding::Embedding;
pub use feed_forward::FeedForward;
pub use gru::Gru;
pub use gru::GruKind;
pub use layer_norm::{LayerNorm, layer_norm};
pub use linear::Linear;
pub use lstm::Lstm;
pub use lstm::LstmKind;
pub use lstm_cell::LstmCell;
pub use module::{Leaf, Model, NamedParams, TrainingMode, Walk, Walker};
pub use ops::{masked_fill, relu, reverse_time, sigmoid, softmax};
pub use param::Param;
pub use pytorch::{BUFFER_TOLERANCE, read_pytorch};
pub use rnn::{CellKind, Recurrent, RnnWeights};
pub use shape::{Within, in_function, in_module, invalid, label_of};
