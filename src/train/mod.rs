//! Training: losses, PyTorch's Adam, `StepByStep` (the book's trainer) and its checkpoints.

pub mod batches;
pub mod bleu;
pub mod checkpoint;
pub mod clip;
pub mod cross_entropy;
pub mod ks;
pub mod loss;
pub mod optim;
pub mod parallel;
pub mod progress;
pub mod recipe;
pub mod report;
pub mod schedule;
pub mod seed_spread;
pub mod step_by_step;
pub mod translation_learner;
pub mod translator;

pub use batches::{Batches, Learner};
pub use bleu::{Bleu, BleuConfig, Smooth, Tokenizer, corpus_bleu, corpus_bleu_tokens, sentence_bleu, tokenize_13a};
pub use checkpoint::{CheckpointRecord, tensors_checksum};
pub use clip::{clip_grad_norm, clip_grad_norm_with};
pub use cross_entropy::{CrossEntropyLoss, Reduction};
pub use ks::{KsTest, ks_2samp, median};
pub use loss::{LeadingFeatures, Loss, MSELoss};
pub use optim::{Adam, Optimizer, OptimizerState};
pub use progress::{EpochStats, progress_line};
pub use recipe::translation_trainer;
pub use report::TrainingReport;
pub use schedule::NoamSchedule;
pub use seed_spread::{FinalLosses, LectureRecipe, SeedSpread};
pub use step_by_step::StepByStep;
pub use translator::{QUICK_ENV, Translator, quick_run};
