//! # attention-zoo
//!
//! Sequence-to-sequence models, attention and Transformers on candle, built to be read next to
//! the PyTorch lecture they mirror: the same names, the same shapes and, with the same seed, the
//! same numbers. Notebooks start with `use attention_zoo::prelude::*;`.
//!
//! The crate is layered; each layer uses only the layers above it in this list:
//!
//! | module | what it holds | where the lecture has it |
//! |---|---|---|
//! | [`repro`] | PyTorch's generator, NumPy's `RandomState`, PyTorch's init recipes | `torch.manual_seed`, `np.random.seed` |
//! | [`nn`] | `Module`, `Param`, layers (linear, embedding, layer norm, GRU, LSTM, feed-forward), ops, fused kernels, shape checks | `torch.nn` |
//! | [`attention`] | scoring functions, alphas, masks, `Attention`, `MultiHeadAttention`, positional encoding | part 2 (attention), part 3 (masks, positional encoding) |
//! | [`models`] | GRU encoder-decoder, attention decoder, self-attention encoder-decoder | part 1, part 2, part 3 |
//! | [`data`] | the squares, `TensorDataset`, `DataLoader` | the book's `generate_sequences`, PyTorch's loaders |
//! | [`train`] | losses, Adam, `StepByStep`, checkpoints | the book's `StepByStep` |
//! | [`notebook`] | tensors as tables, attention heatmaps, the lecture's figures | the book's `plots/chapter9.py` |
//!
//! Every public `forward` documents its shapes in a `# Shapes` section, with the letters `N`
//! (batch), `L` (source steps), `Lt`/`Lq` (target steps, queries), `F` (features), `H` (hidden
//! units) and `D` (`d_model`).

pub mod attention;
pub mod data;
pub mod models;
pub mod nn;
pub mod notebook;
pub mod repro;
pub mod train;

/// Everything a notebook needs, in one `use`.
pub mod prelude {
    pub use crate::attention::{
        Attention, AttentionLayer, MultiHeadAttention, PositionalEncoding, Score, calc_alphas, context_vector, dot_products,
        positional_encoding_table, scaled_dot_product_attention, source_mask, subsequent_mask, uniform_alphas,
    };
    pub use crate::data::{DataLoader, Sequences, TensorDataset, generate_sequences};
    pub use crate::models::{
        Decoder, DecoderAttn, DecoderPe, DecoderSelfAttn, Encoder, EncoderDecoder, EncoderDecoderAttn, EncoderDecoderSelfAttn, EncoderPe,
        EncoderSelfAttn, SelfAttnConfig, StepDecoder, shifted_target,
    };
    pub use crate::nn::{Embedding, FeedForward, Gru, LayerNorm, Linear, Lstm, Model, Module, Param, masked_fill, reverse_time, softmax};
    pub use crate::notebook::{
        Figure, ShowAlphas, ShowTensor, batch_of_one, counter_vs_clock, encoding_curves, encoding_degrees, encoding_distances,
        exponential_dials, figure9, plot_attention, plot_data, plot_losses, plot_mesh, plot_sequences, query_and_keys, sequence_pred, show,
        show_alphas,
    };
    pub use crate::repro::{Generator, RandomState, manual_seed, rand_scalar};
    pub use crate::train::{Adam, Loss, MSELoss, Optimizer, StepByStep};
    pub use candle_core::{self, D, DType, Device, IndexOp, Result, Tensor, Var};
}
