//! Data: the lecture's squares, datasets and a loader that shuffles as PyTorch's does.

pub mod corpus;
pub mod loader;
pub mod squares;
pub mod text;

pub use corpus::{Corpus, CorpusConfig, generate_corpus};
pub use loader::{DataLoader, TensorDataset};
pub use squares::{CORNERS, Sequences, generate_sequences, walk};
pub use text::{BucketIterator, TranslationBatch, Vocab, detokenize, encode_pairs, read_aligned_pairs, read_tsv_pairs, tokenize};
