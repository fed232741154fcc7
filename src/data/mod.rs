//! Data: the lecture's squares, datasets and a loader that shuffles as PyTorch's does.

pub mod loader;
pub mod squares;

pub use loader::{DataLoader, TensorDataset};
pub use squares::{CORNERS, Sequences, generate_sequences, walk};
