//! Every translator ([`Translate`]) is a [`Learner`] of translation batches: teacher forcing on the
//! shifted target, tokens counted for the progress line, and data-parallel runs of rows.

use crate::data::TranslationBatch;
use crate::models::Translate;
use crate::models::special_ids::check_padding_id;
use crate::nn::Param;
use crate::nn::shape::Within;
use crate::train::batches::Learner;
use crate::train::loss::Loss;
use crate::train::parallel::{parallel_grads, split_rows};
use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor};

impl<M: Translate + Clone + Send> Learner<TranslationBatch> for M {
    /// Teacher forcing: the decoder reads `<sos>` and the target without its last token, and
    /// predicts the target without its `<sos>`.
    ///
    /// The model's `pad_id`, if any, must be the padding id the batches use and the loss of
    /// [`translation_trainer`](crate::train::translation_trainer) ignores ([`PAD_ID`](crate::models::PAD_ID)).
    fn forward_batch(&mut self, batch: &TranslationBatch) -> Result<(Tensor, Tensor)> {
        // Only the door is labelled (`.within`): the model's own errors below pass as the model
        // labelled them, as before.
        check_batch_pad(&*self).within("Learner::forward_batch")?;
        let logits = self.teacher_forced(&batch.src, &batch.tgt_input()?)?;
        Ok((logits, batch.tgt_output()?))
    }

    /// The target tokens the decoder predicts (padding left out).
    fn batch_tokens(batch: &TranslationBatch) -> Option<usize> {
        Some(batch.target_tokens())
    }

    /// Runs of consecutive rows, one thread each, each weighted by its target tokens (the loss is
    /// a mean over tokens). `None` for fewer than two threads or rows, and where the model says
    /// its rows may not be split ([`Translate::splits_rows`]: dropout drawing its masks).
    fn parallel_grads<L: Loss>(
        &self,
        batch: &TranslationBatch,
        threads: usize,
        loss_fn: &L,
        params: &[Param],
    ) -> Option<Result<(f64, GradStore)>> {
        if threads < 2 || batch.len() < 2 || !self.splits_rows() {
            return None;
        }
        let parts = split_rows(batch.len(), threads).into_iter().map(|r| {
            let part = batch.rows(r)?;
            let weight = part.target_tokens() as f64;
            Ok((part, weight))
        });
        Some(parts.collect::<Result<Vec<_>>>().and_then(|parts| parallel_grads(self, loss_fn, &parts, params)))
    }
}

/// The model's `pad_id`, if any, is a target id and the padding id the batches use ([`PAD_ID`](crate::models::PAD_ID)).
fn check_batch_pad<M: Translate>(model: &M) -> Result<()> {
    match model.pad_id() {
        Some(pad) => check_padding_id(pad, model.tgt_vocab(), "the batches"),
        None => Ok(()),
    }
}
