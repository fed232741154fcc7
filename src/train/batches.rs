//! What [`StepByStep`](super::StepByStep) trains on: a source of batches ([`Batches`]), and a
//! model that turns one batch into predictions and the targets they are scored against
//! ([`Learner`]).
//!
//! The lecture's models take a tensor and predict a tensor: every [`Model`] is a
//! `Learner<(Tensor, Tensor)>` over a [`DataLoader`]. The Transformer takes a padded
//! [`TranslationBatch`] from a [`BucketIterator`]: source, shifted target and both masks go in
//! (teacher forcing), logits come out, scored against the target shifted the other way.

use super::loss::Loss;
use crate::data::{BucketIterator, DataLoader, TranslationBatch};
use crate::nn::{Model, Param, Walk};
use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor};

/// A source of batches, epoch after epoch.
pub trait Batches {
    /// One batch, as the model's [`Learner::forward_batch`] takes it.
    type Batch;
    /// This epoch's batches (in a new order each call where the source shuffles).
    fn batches(&mut self) -> Result<Vec<Self::Batch>>;
    /// Seeds the shuffling, so that a training started from the same seed sees the same batches.
    fn manual_seed(&mut self, seed: u64);
}

impl Batches for DataLoader {
    type Batch = (Tensor, Tensor);

    fn batches(&mut self) -> Result<Vec<(Tensor, Tensor)>> {
        DataLoader::batches(self)
    }

    fn manual_seed(&mut self, seed: u64) {
        DataLoader::manual_seed(self, seed)
    }
}

impl Batches for BucketIterator {
    type Batch = TranslationBatch;

    fn batches(&mut self) -> Result<Vec<TranslationBatch>> {
        self.epoch()
    }

    fn manual_seed(&mut self, seed: u64) {
        BucketIterator::manual_seed(self, seed)
    }
}

/// A model [`StepByStep`](super::StepByStep) can train on batches of type `B`.
pub trait Learner<B>: Walk {
    /// The predictions for one batch and the targets they are scored against, in the shapes the
    /// trainer's loss takes.
    ///
    /// # Shapes
    /// - `(x (N, ...), y (N, ...))` for a [`Model`]: returns `(forward(x), y)`
    /// - a [`TranslationBatch`] for the [`Transformer`](crate::models::Transformer): returns the logits `(N, T - 1, V)` and
    ///   the target ids `(N, T - 1)` (padding 0, which the loss should ignore)
    fn forward_batch(&mut self, batch: &B) -> Result<(Tensor, Tensor)>;

    /// The tokens of a batch that the progress line counts per second (`None`: none counted).
    fn batch_tokens(_batch: &B) -> Option<usize> {
        None
    }

    /// A data-parallel step ([`StepByStep::threads`](super::StepByStep::threads)): the batch's
    /// mean loss and its gradients, computed as `threads` parts at once, one thread each.
    /// `None` (the default): this model trains on whole batches only.
    fn parallel_grads<L: Loss>(&self, _batch: &B, _threads: usize, _loss_fn: &L, _params: &[Param]) -> Option<Result<(f64, GradStore)>> {
        None
    }
}

impl<M: Model> Learner<(Tensor, Tensor)> for M {
    fn forward_batch(&mut self, (x, y): &(Tensor, Tensor)) -> Result<(Tensor, Tensor)> {
        Ok((self.forward(x)?, y.clone()))
    }
}
