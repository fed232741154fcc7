//! Training: losses, PyTorch's Adam, `StepByStep` (the book's trainer) and its checkpoints; then,
//! by concern, [`translation`] (the translators' training, decoding, `Translator` and BLEU) and
//! [`stats`] (comparing trainings over seeds).

pub(crate) mod batches;
pub(crate) mod checkpoint;
pub(crate) mod clip;
pub(crate) mod cross_entropy;
pub(crate) mod loss;
pub(crate) mod optim;
pub(crate) mod parallel;
pub(crate) mod pool;
pub(crate) mod progress;
pub mod quick;
pub(crate) mod report;
pub(crate) mod schedule;
pub mod stats;
pub(crate) mod step_by_step;
pub mod translation;

pub use batches::{Batches, Learner};
pub use checkpoint::{CheckpointRecord, tensors_checksum};
pub use clip::{clip_grad_norm, clip_grad_norm_with};
pub use cross_entropy::{CrossEntropyLoss, Reduction, log_softmax};
pub use loss::{LeadingFeatures, Loss, MSELoss};
pub use optim::{Adam, Optimizer, OptimizerState};
pub use progress::{EpochStats, progress_line};
pub use quick::{QUICK_BATCHES, QUICK_ENV, QUICK_PAIRS, quick_run};
pub use report::TrainingReport;
pub use schedule::NoamSchedule;
pub use stats::{FinalLosses, KS_MAX_EXACT, KsTest, SPREAD_ALPHA, SPREAD_MEDIAN_TOLERANCE, SeedSpread, ks_2samp, median};
pub use step_by_step::StepByStep;
pub use translation::{
    BeamConfig, Bleu, BleuConfig, Hypothesis, LengthPenalty, Smooth, Tokenizer, Translator, beam_search, corpus_bleu, corpus_bleu_tokens,
    greedy_decode, sentence_bleu, tokenize_13a, translation_trainer,
};
