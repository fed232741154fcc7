//! Data: the lecture's squares, datasets and a loader that shuffles as PyTorch's does.

pub mod corpus;
pub(crate) mod gps;
pub(crate) mod loader;
pub(crate) mod scaler;
pub(crate) mod squares;
pub mod text;

pub use corpus::{Corpus, CorpusConfig, generate_corpus};
pub use gps::{FLORENCE, GpsConfig, GpsSplits, START_UTC, Trajectories, generate_gps_trajectories, gps_splits, lat_lon_mse, tensor_points};
pub use loader::{DataLoader, TensorDataset};
pub use scaler::MinMaxScaler;
pub use squares::{CORNERS, Sequences, generate_sequences, walk};
pub use text::{BucketIterator, TranslationBatch, Vocab, detokenize, encode_pairs, read_aligned_pairs, read_tsv_pairs, tokenize};
