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
//! | [`nn`] | `Walk` (the module tree: parameters, buffers, training mode), `Param`, layers (linear, embedding, layer norm, dropout, GRU, LSTM, feed-forward), ops, fused kernels, shape checks | `torch.nn` |
//! | [`attention`] | scoring functions, alphas, masks (keep/drop and additive), `Attention`, wide, narrow and vectorised multi-head attention, positional encoding | part 2 (attention), part 3 (masks, positional encoding), the Transformer lecture |
//! | [`models`] | GRU encoder-decoder, attention decoder, self-attention encoder-decoder, the Transformer | part 1, part 2, part 3, the Transformer lecture |
//! | [`data`] | the squares, `TensorDataset`, `DataLoader`, a generated German-English corpus, tokenizer, `Vocab`, padded translation batches | the book's `generate_sequences`, PyTorch's loaders, 002's German-English task |
//! | [`train`] | losses (MSE, cross-entropy), Adam, warm-up schedule, gradient clipping, `StepByStep`, checkpoints, BLEU | the book's `StepByStep`, PyTorch, sacrebleu |
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
        Attention, AttentionLayer, MhaOutput, MultiHeadAttention, NarrowMultiHeadAttention, PositionalEncoding, Score,
        VectorisedMultiHeadAttention, calc_alphas, context_vector, create_mask, dot_products, padding_mask, positional_encoding_table,
        scaled_dot_product_attention, scaled_dot_product_attention_additive, source_mask, subsequent_mask, uniform_alphas,
    };
    pub use crate::data::text::{EOS_ID, EncodedPair, PAD_ID, SOS_ID, UNK_ID, tokenize_cased};
    pub use crate::data::{
        BucketIterator, Corpus, CorpusConfig, DataLoader, Sequences, TensorDataset, TranslationBatch, Vocab, detokenize, encode_pairs,
        generate_corpus, generate_sequences, read_aligned_pairs, read_tsv_pairs, tokenize,
    };
    pub use crate::models::{
        AddNorm, AttentionMaps, DecoderLayer, DecoderLayerOutput, Embeddings, EncoderLayer, EncoderLayerOutput, HeadLayout,
        PointwiseFeedforward, Transformer, TransformerConfig, TransformerDecoder, TransformerDecoderOutput, TransformerEncoder,
        TransformerEncoderOutput, TransformerOutput, TransformerPositionalEncoding, transformer_encoding_table,
    };
    pub use crate::models::{
        Decoder, DecoderAttn, DecoderPe, DecoderSelfAttn, Encoder, EncoderDecoder, EncoderDecoderAttn, EncoderDecoderSelfAttn, EncoderPe,
        EncoderSelfAttn, SelfAttnConfig, StepDecoder, shifted_target,
    };
    pub use crate::models::{
        GruTranslator, GruTranslatorConfig, LstmTranslator, LstmTranslatorConfig, SentenceAttention, TransformerEncoderBlock, Translate,
    };
    pub use crate::nn::{
        Dropout, Embedding, FeedForward, Gru, LayerNorm, Linear, Lstm, Model, Param, TrainingMode, Walk, Walker, masked_fill, reverse_time,
        softmax,
    };
    pub use crate::notebook::{
        Figure, HeatmapGrid, PositionCode, ShowAlphas, ShowTensor, ShowTensors, Table, batch_of_one, comparison_table, counter_vs_clock,
        encoding_curves, encoding_degrees, encoding_distances, exponential_dials, figure9, plot_attention, plot_data, plot_losses,
        plot_mesh, plot_sequences, query_and_keys, sequence_pred, show, show_all, show_alphas, show_cross_attention,
        show_decoder_attention, show_encoder_attention, show_heatmaps, stack_layers,
    };
    pub use crate::notebook::{code_difference, code_difference_table, modulo_codes, position_codes, sine_cosine_codes};
    pub use crate::repro::{Generator, RandomState, manual_seed, rand_scalar};
    pub use crate::train::{Adam, Batches, EpochStats, Learner, Loss, MSELoss, Optimizer, StepByStep};
    pub use crate::train::{
        BeamConfig, SeedSpread, TrainingReport, Translator, beam_search, greedy_decode, ks_2samp, quick_run, translation_trainer,
    };
    pub use crate::train::{CrossEntropyLoss, NoamSchedule, Reduction, clip_grad_norm, clip_grad_norm_with, corpus_bleu, sentence_bleu};
    pub use candle_core::{self, D, DType, Device, IndexOp, Result, Tensor, Var};
}
