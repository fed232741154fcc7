//! Layers with PyTorch's parameter names and PyTorch's initialisation, and the operations they
//! are made of.
//!
//! Each layer draws its initial weights from the default generator ([`crate::repro`]) in the
//! order PyTorch draws them, so `manual_seed(s)` followed by a constructor gives the weights that
//! `torch.manual_seed(s)` followed by the same PyTorch constructor gives. Every operation used here
//! records a backward pass (the sigmoid and the layer norm are written with basic tensor
//! operations on purpose; [`kernels`] fuses the linear layer and the softmax with hand-written
//! backward passes).

pub mod dropout;
pub mod embedding;
pub mod feed_forward;
pub mod gru;
pub mod kernels;
pub mod layer_norm;
pub mod linear;
pub mod lstm;
pub mod lstm_cell;
pub mod module;
pub mod ops;
pub mod packed;
pub mod param;
pub mod pytorch;
pub mod rnn;
pub mod shape;

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
pub use ops::{masked_fill, reverse_time, sigmoid, softmax};
pub use param::Param;
pub use pytorch::read_pytorch;
pub use rnn::{CellKind, Recurrent, RnnWeights};
