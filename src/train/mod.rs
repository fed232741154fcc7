//! Training: losses, PyTorch's Adam, `StepByStep` (the book's trainer) and its checkpoints.

pub mod bleu;
pub mod checkpoint;
pub mod loss;
pub mod optim;
pub mod step_by_step;

pub use bleu::{Bleu, BleuConfig, Smooth, Tokenizer, corpus_bleu, corpus_bleu_tokens, sentence_bleu, tokenize_13a};
pub use checkpoint::{CheckpointRecord, tensors_checksum};
pub use loss::{Loss, MSELoss};
pub use optim::{Adam, Optimizer, OptimizerState};
pub use step_by_step::StepByStep;
