//! The recipe notebook 05 trains its recurrent translators with, in one call.

use crate::data::{BucketIterator, TranslationBatch};
use crate::models::PAD_ID;
use crate::train::batches::Learner;
use crate::train::cross_entropy::CrossEntropyLoss;
use crate::train::optim::Adam;
use crate::train::step_by_step::StepByStep;
use candle_core::Result;

/// A trainer for a translation model: Adam at `lr`, the cross-entropy with the padding id ([`PAD_ID`])
/// ignored, gradients clipped to norm 1, each batch trained as two halves on two threads, and
/// one progress line an epoch. The recurrent translators of notebook 05 learn well with
/// `lr = 2e-3` and batches of 32.
pub fn translation_trainer<M: Learner<TranslationBatch>>(
    model: M,
    lr: f64,
    train: BucketIterator,
    valid: Option<BucketIterator>,
) -> Result<StepByStep<M, CrossEntropyLoss, Adam, BucketIterator>> {
    let adam = Adam::new(model.parameters(), lr)?;
    let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(i64::from(PAD_ID)), adam, train, valid);
    sbs.clip_grad_norm = Some(1.0);
    sbs.threads = 2;
    sbs.progress_every = 1;
    Ok(sbs)
}
