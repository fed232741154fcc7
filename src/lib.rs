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
//! ## The prelude, by lecture part
//!
//! `use attention_zoo::prelude::*;` brings in what the notebooks call, grouped as the lecture
//! introduces it:
//!
//! | group | what it brings | notebook |
//! |---|---|---|
//! | tensors and the generator | candle's `Tensor`, `Device`, `DType`, `IndexOp`, `Result`, and `candle_nn` (`candle_nn::ops::softmax`); `manual_seed`, `Generator`, NumPy's `RandomState` | all |
//! | part 1, sequence-to-sequence | `generate_sequences`, `TensorDataset`, `DataLoader`; `Gru`, `Linear`, `Dropout`, ...; `Encoder`, `Decoder`, `EncoderDecoder`; `StepByStep`, `MSELoss`, `Adam`; `plot_data`, `plot_losses` | 01 |
//! | part 2, attention | `Attention`, `Score`, `calc_alphas`, `context_vector`; `DecoderAttn`, `EncoderDecoderAttn`; `MultiHeadAttention`; `show_alphas`, `plot_attention` | 02 |
//! | part 3, self-attention | `EncoderSelfAttn`, `DecoderSelfAttn`, `EncoderDecoderSelfAttn`, `EncoderPe`, `DecoderPe`; `subsequent_mask`, `source_mask`; `PositionalEncoding`; `position_codes`, `encoding_curves` | 03 |
//! | the Transformer (002) | `scaled_dot_product_attention`, `create_mask`, `padding_mask`; `NarrowMultiHeadAttention`, `AddNorm`, `PointwiseFeedforward`; `EncoderLayer`, `DecoderLayer` and their outputs; `Transformer`, `TransformerConfig`; `show_heatmaps`, `show_cross_attention` | 04 |
//! | translation | `generate_corpus`, `Vocab`, `tokenize`, `BucketIterator`, `TranslationBatch`, `PAD_ID`; `Translate`, `Translator`, `translation_trainer`; `greedy_decode`, `beam_search`; `corpus_bleu`; `CrossEntropyLoss`, `NoamSchedule` | 04, 05 |
//! | the blog post (004) | `AttentionLayer`, `LstmTranslator`, `GruTranslator`, `TransformerEncoderBlock` | 05 |
//! | models of your own | `Walk` (the trait and `#[derive(Walk)]`), `Walker`, `Model`, `Param`, `TrainingMode`, `errors_as` | any, 00 |
//! | comparing trainings over seeds | `SeedSpread`, `ks_2samp` | 03 |
//! | notebook building blocks | `show`, `show_all`, `Table`, `Figure`; `draw(Architecture::X)` and `Diagram` for architecture diagrams; `show_class(Architecture::X)`, a lecture class's Rust (read from the crate's files at build time) beside its diagram; `explore`, `explore_sentence`, `explore_alphas` (and `explore_terms`, `explore_sentence_terms`, `explore_attention` with the neuron view), an attention explorer to click through | all |
//!
//! The GPS exercise of 001 (notebook 06) imports its data from [`data`] (`GpsConfig`,
//! `gps_splits`, `MinMaxScaler`). Each layer's own items are under its module; the files inside a
//! layer are private.
//!
//! Every public `forward` documents its shapes in a `# Shapes` section, with the letters `N`
//! (batch), `L` (source steps), `Lt`/`Lq` (target steps, queries), `F` (features), `H` (hidden
//! units) and `D` (`d_model`).

// The derives write `::attention_zoo::nn::Walk`, which names this crate from inside it too.
extern crate self as attention_zoo;

pub mod attention;
pub mod data;
pub mod models;
pub mod nn;
pub mod notebook;
pub mod practice;
pub mod repro;
pub mod train;

/// Settings of the whole process, which the crate never changes by itself: a program or a
/// notebook opts in.
///
/// - **Memory**: [`keep_freed_memory`](tuning::keep_freed_memory) tells glibc's allocator to keep
///   freed tensors' memory for the next ones. The notebook kernel's start-up and `make bench`
///   call it; a training or decoding loop then takes 10% (a GRU epoch) to 25% (the base
///   Transformer on two threads) less time (the README's speed table is measured with it).
/// - **Threads**: candle's products run on rayon's global pool, whose size is read once from the
///   environment variable `RAYON_NUM_THREADS` (default: one thread per core). Small models (the
///   lecture's, hidden sizes of a few units) want `RAYON_NUM_THREADS=1`: a tiny product costs
///   about 17 us across two threads and 0.3 us on one. Set it before the program starts (the
///   shell, the kernel's environment); the crate reads it only where it says so
///   ([`StepByStep::threads`](crate::train::StepByStep)).
///
/// One process-wide write remains, and it is not a setting: under evcxr as published every
/// notebook cell links its own copy of the crate (the project's kernel links one copy for all of
/// them), so the default generator (`manual_seed`'s) is made once on the heap
/// and its address is left in one environment variable, `ATTENTION_ZOO_DEFAULT_GENERATOR_<version>_<size>`,
/// where the copies of later cells find it (the environment is the one name space a process's
/// copies share without foreign calls). It is written once, at the generator's first use, and
/// names the process, so a child process makes its own.
pub mod tuning {
    pub use crate::nn::fused::heap::{MMAP_THRESHOLD, TOP_PAD, TRIM_THRESHOLD, keep_freed_memory};
}

/// Everything a notebook needs, in one `use`, grouped by the part of the lecture that
/// introduces it (the table on the front page lists the groups).
pub mod prelude {
    // The tensors and the generator (every part).
    pub use crate::repro::{Generator, RandomState, manual_seed, rand_scalar};
    pub use candle_core::{self, D, DType, Device, IndexOp, Tensor, Var};
    /// candle's layers and operations, for the notebooks' cells that first write an operation in
    /// plain candle (`candle_nn::ops::softmax(&x, D::Minus1)`) before the crate's helper.
    pub use candle_nn;
    /// candle's `Result<T>` (`Result<Tensor>` in a cell's own functions), which also takes a
    /// second parameter as std's does: evcxr writes the types of the variables it keeps as
    /// `Result<T, E>`, and with a one-parameter alias in scope that code did not compile (any
    /// closure kept in a cell failed with "type alias takes 1 generic argument"; evcxr issue 258).
    pub type Result<T, E = candle_core::Error> = std::result::Result<T, E>;
    // Part 1, sequence-to-sequence: the squares, loaders, GRU encoder-decoder, teacher forcing, the trainer.
    pub use crate::data::{DataLoader, Sequences, TensorDataset, generate_sequences};
    pub use crate::models::{Decoder, Encoder, EncoderDecoder, StepDecoder};
    pub use crate::nn::{Dropout, Embedding, FeedForward, Gru, LayerNorm, Linear, Lstm, masked_fill, reverse_time, softmax};
    pub use crate::notebook::{batch_of_one, counter_vs_clock, plot_data, plot_losses, plot_sequences, sequence_pred};
    pub use crate::train::{Adam, Batches, EpochStats, Learner, Loss, MSELoss, Optimizer, StepByStep};
    // Part 2, attention: scores, alphas, context vectors, the attention decoder, wide multi-head attention.
    pub use crate::attention::{Attention, MultiHeadAttention, Score, calc_alphas, context_vector, dot_products, uniform_alphas};
    pub use crate::models::{DecoderAttn, EncoderDecoderAttn};
    pub use crate::notebook::{ShowAlphas, figure9, plot_attention, query_and_keys, show_alphas};
    // Part 3, self-attention: masks, the self-attention encoder-decoder, positional encoding.
    pub use crate::attention::{PositionalEncoding, positional_encoding_table, source_mask, subsequent_mask};
    pub use crate::models::{
        DecoderPe, DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderPe, EncoderSelfAttn, SelfAttnConfig, shifted_target,
    };
    pub use crate::notebook::{
        PositionCode, code_difference, code_difference_table, encoding_curves, encoding_degrees, encoding_distances, exponential_dials,
        modulo_codes, plot_mesh, position_codes, sine_cosine_codes,
    };
    // The Transformer (002): scaled dot-product and narrow multi-head attention, sub-layers, layers, stacks, the model and its attention grids.
    pub use crate::attention::{
        MhaOutput, NarrowMultiHeadAttention, VectorisedMultiHeadAttention, create_mask, padding_mask, scaled_dot_product_attention,
        scaled_dot_product_attention_additive,
    };
    pub use crate::models::{
        AddNorm, AttentionMaps, DecoderLayer, DecoderLayerOutput, Embeddings, EncoderLayer, EncoderLayerOutput, HeadLayout,
        PointwiseFeedforward, Transformer, TransformerConfig, TransformerDecoder, TransformerDecoderOutput, TransformerEncoder,
        TransformerEncoderOutput, TransformerOutput, TransformerPositionalEncoding, transformer_encoding_table,
    };
    pub use crate::notebook::{
        HeatmapGrid, show_cross_attention, show_decoder_attention, show_encoder_attention, show_heatmaps, stack_layers,
    };
    // Translation: the corpus, vocabularies, batches, the Translate contract, training, decoding and BLEU.
    pub use crate::attention::ScoreTerms;
    pub use crate::data::text::{EOS_ID, EncodedPair, PAD_ID, SOS_ID, UNK_ID, tokenize_cased};
    pub use crate::data::{
        BucketIterator, Corpus, CorpusConfig, TranslationBatch, Vocab, detokenize, encode_pairs, generate_corpus, read_aligned_pairs,
        read_tsv_pairs, tokenize,
    };
    pub use crate::models::{SentenceAttention, SentenceTerms, TermMaps, Translate};
    pub use crate::notebook::comparison_table;
    pub use crate::train::{
        BeamConfig, CrossEntropyLoss, NoamSchedule, Reduction, TrainingReport, Translator, beam_search, clip_grad_norm,
        clip_grad_norm_with, corpus_bleu, greedy_decode, quick_run, sentence_bleu, translation_trainer,
    };
    // The blog post (004): the QKV layer, the LSTM and GRU translators, the encoder block.
    pub use crate::attention::AttentionLayer;
    pub use crate::models::{GruTranslator, GruTranslatorConfig, LstmTranslator, LstmTranslatorConfig, TransformerEncoderBlock};
    // Models of your own: the module tree and parameters.
    pub use crate::nn::{Model, Param, TrainingMode, Walk, Walker, errors_as};
    // Comparing trainings over seeds.
    pub use crate::train::{SeedSpread, ks_2samp};
    // Notebook building blocks: tensors as tables, figures, architecture diagrams.
    pub use crate::notebook::{Architecture, ClassView, Diagram, Figure, ShowTensor, ShowTensors, Table, draw, show, show_all, show_class};
    pub use crate::notebook::{
        AttentionKind, Explorer, Neurons, explore, explore_alphas, explore_attention, explore_sentence, explore_sentence_terms,
        explore_terms,
    };
}
