//! # attention-zoo
//!
//! Sequence-to-sequence models, attention and Transformers on candle, built to be read next to
//! the PyTorch lecture they mirror: the same names, the same shapes and, with the same seed, the
//! same numbers. Notebooks start with `use attention_zoo::prelude::*;`.
//!
//! - [`random`]: PyTorch's CPU random numbers (`manual_seed`, `rand`, `randn`, `randperm`).
//! - [`numpy`]: NumPy's legacy `RandomState`, for the lecture's data.
//! - [`nn`]: layers with PyTorch's parameter names and initialisation.
//! - [`data`]: the squares, datasets and loaders.
//! - [`seq2seq`]: the GRU encoder, decoder and encoder-decoder of the lecture's first part.
//! - [`attention`]: scoring functions, `Attention`, masks, multi-head attention, `DecoderAttn`.
//! - [`selfattn`]: self-attention encoder and decoder, target masks, positional encoding.
//! - [`train`]: MSE, PyTorch's Adam and the `StepByStep` trainer.
//! - [`display`]: tensors as HTML tables in a notebook.
//! - [`plots`]: the lecture's figures as SVG.

pub mod attention;
pub mod data;
pub mod display;
pub mod kernels;
pub mod nn;
pub mod numpy;
pub mod param;
pub mod plots;
pub mod random;
pub mod selfattn;
pub mod seq2seq;
pub mod train;

/// Everything a notebook needs, in one `use`.
pub mod prelude {
    pub use crate::attention::{
        Attention, AttentionLayer, DecoderAttn, EncoderDecoderAttn, MultiHeadAttention, Score, calc_alphas, masked_fill,
        scaled_dot_product_attention, source_mask,
    };
    pub use crate::data::{DataLoader, Sequences, TensorDataset, generate_sequences};
    pub use crate::display::{ShowAlphas, ShowTensor, show, show_alphas};
    pub use crate::nn::{Embedding, Gru, LayerNorm, Linear, Lstm, Module, Param};
    pub use crate::numpy::RandomState;
    pub use crate::plots::{
        Figure, counter_vs_clock, encoding_curves, encoding_degrees, exponential_dials, figure9, plot_attention, plot_data, plot_losses,
        plot_mesh, plot_sequences, query_and_keys, sequence_pred,
    };
    pub use crate::selfattn::{
        DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn, PositionalEncoding, shifted_target, subsequent_mask,
    };
    pub use crate::seq2seq::{Decoder, Encoder, EncoderDecoder, Model, StepDecoder};
    pub use crate::train::{Adam, Loss, MSELoss, Optimizer, StepByStep};
    pub use crate::random::{Generator, manual_seed};
    pub use candle_core::{self, D, DType, Device, IndexOp, Result, Tensor, Var};
}
