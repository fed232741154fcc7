//! One row of a comparison of trainings: what a model is, what its training cost, what it
//! reached.

use super::batches::{Batches, Learner};
use super::loss::Loss;
use super::optim::Optimizer;
use super::step_by_step::StepByStep;
use super::translation::Bleu;

/// A trained model's size, its training's cost and its test score.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingReport {
    pub name: String,
    pub parameters: usize,
    pub epochs: usize,
    /// Wall-clock seconds of the training passes (validation left out).
    pub seconds: f64,
    /// Tokens trained on over all epochs, where the model counts them.
    pub tokens: Option<usize>,
    /// The last epoch's validation loss, if any.
    pub val_loss: Option<f64>,
    /// Test BLEU, once scored ([`TrainingReport::with_bleu`]).
    pub bleu: Option<f64>,
}

impl TrainingReport {
    /// Tokens per second over all training passes.
    pub fn tokens_per_second(&self) -> Option<f64> {
        self.tokens.filter(|_| self.seconds > 0.0).map(|t| t as f64 / self.seconds)
    }

    /// The report with its test BLEU.
    pub fn with_bleu(mut self, bleu: &Bleu) -> Self {
        self.bleu = Some(bleu.score);
        self
    }
}

impl<M: Learner<D::Batch>, L: Loss, O: Optimizer, D: Batches> StepByStep<M, L, O, D> {
    /// The report of the training so far, under `name`: parameters, epochs, the seconds and
    /// tokens of every training pass, the last validation loss.
    pub fn report(&self, name: &str) -> TrainingReport {
        let stats = &self.epoch_stats;
        let tokens = stats.iter().map(|s| s.tokens).sum::<Option<usize>>();
        TrainingReport {
            name: name.to_string(),
            parameters: self.count_parameters(),
            epochs: self.total_epochs,
            seconds: stats.iter().map(|s| s.seconds).sum(),
            tokens,
            val_loss: self.val_losses.last().copied(),
            bleu: None,
        }
    }
}
