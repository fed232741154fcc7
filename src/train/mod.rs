//! Training: losses, PyTorch's Adam, `StepByStep` (the book's trainer) and its checkpoints; then,
//! by concern, [`translation`] (the translators' training, decoding, `Translator` and BLEU) and
//! [`stats`] (comparing trainings over seeds).

pub mod batches;
pub mod checkpoint;
pub mod clip;
pub mod cross_entropy;
pub mod loss;
pub mod optim;
pub mod parallel;
pub mod progress;
pub mod quick;
pub mod report;
pub mod schedule;
pub mod stats;
pub mod step_by_step;
pub mod translation;

pub use batches::{Batches, Learner};
pub use checkpoint::{CheckpointRecord, tensors_checksum};
pub use clip::{clip_grad_norm, clip_grad_norm_with};
pub use cross_entropy::{CrossEntropyLoss, Reduction};
pub use loss::{LeadingFeatures, Loss, MSELoss};
pub use optim::{Adam, Optimizer, OptimizerState};
pub use progress::{EpochStats, progress_line};
pub use quick::{QUICK_BATCHES, QUICK_ENV, QUICK_PAIRS, quick_run};
pub use report::TrainingReport;
pub use schedule::NoamSchedule;
pub use stats::{FinalLosses, KsTest, SPREAD_ALPHA, SPREAD_MEDIAN_TOLERANCE, SeedSpread, ks_2samp, median};
pub use step_by_step::StepByStep;
pub use translation::{
    BeamConfig, Bleu, BleuConfig, Hypothesis, LengthPenalty, Smooth, Tokenizer, Translator, beam_search, corpus_bleu, corpus_bleu_tokens,
    greedy_decode, sentence_bleu, tokenize_13a, translation_trainer,
};
