//! The Transformer and the recurrent translators as [`Learner`]s of translation batches: teacher
//! forcing on the shifted target, tokens counted for the progress line, and data-parallel
//! half-batches.

use super::batches::Learner;
use super::loss::Loss;
use super::parallel::{parallel_grads, split_rows};
use crate::data::TranslationBatch;
use crate::models::{GruTranslator, LstmTranslator, Transformer};
use crate::nn::{Param, Walk};
use candle_core::Result;
use candle_core::Tensor;
use candle_core::backprop::GradStore;

impl Learner<TranslationBatch> for Transformer {
    /// Teacher forcing: the decoder reads `<sos>` and the target without its last token, under
    /// the causal and padding mask, and predicts the target without its `<sos>`.
    fn forward_batch(&mut self, batch: &TranslationBatch) -> Result<(Tensor, Tensor)> {
        let logits = self.forward(&batch.src, &batch.tgt_input()?, Some(&batch.src_mask()?), Some(&batch.tgt_mask()?))?;
        Ok((logits, batch.tgt_output()?))
    }

    /// The target tokens the decoder predicts (padding left out).
    fn batch_tokens(batch: &TranslationBatch) -> Option<usize> {
        Some(batch.target_tokens())
    }

    /// Runs of consecutive rows, each weighted by its target tokens (the loss is a mean over
    /// tokens). `None` while dropout is on in training: parts drawing their masks at once would
    /// draw them in no fixed order, and the same seed would no longer give the same training.
    fn parallel_grads<L: Loss>(
        &self,
        batch: &TranslationBatch,
        threads: usize,
        loss_fn: &L,
        params: &[Param],
    ) -> Option<Result<(f64, GradStore)>> {
        if self.config.dropout > 0.0 && self.is_training() {
            return None;
        }
        halves(self, batch, threads, loss_fn, params)
    }
}

/// A data-parallel step over runs of a translation batch's rows, each weighted by its target
/// tokens (the loss is a mean over tokens); `None` for fewer than two threads or rows.
fn halves<M: Learner<TranslationBatch> + Clone + Send, L: Loss>(
    model: &M,
    batch: &TranslationBatch,
    threads: usize,
    loss_fn: &L,
    params: &[Param],
) -> Option<Result<(f64, GradStore)>> {
    if threads < 2 || batch.len() < 2 {
        return None;
    }
    let parts = split_rows(batch.len(), threads).into_iter().map(|r| {
        let part = batch.rows(r)?;
        let weight = part.target_tokens() as f64;
        Ok((part, weight))
    });
    Some(parts.collect::<Result<Vec<_>>>().and_then(|parts| parallel_grads(model, loss_fn, &parts, params)))
}

/// The recurrent translators: teacher forcing through their `forward(src, tgt_input)`, and
/// data-parallel runs of rows (neither has dropout).
macro_rules! recurrent_learner {
    ($($model:ty),*) => {$(
        impl Learner<TranslationBatch> for $model {
            /// Teacher forcing: `<sos>` and the target without its last token in, the target
            /// without `<sos>` out.
            fn forward_batch(&mut self, batch: &TranslationBatch) -> Result<(Tensor, Tensor)> {
                let logits = self.forward(&batch.src, &batch.tgt_input()?)?;
                Ok((logits, batch.tgt_output()?))
            }

            fn batch_tokens(batch: &TranslationBatch) -> Option<usize> {
                Some(batch.target_tokens())
            }

            /// Two (or more) runs of rows at once, one thread each.
            fn parallel_grads<L: Loss>(
                &self,
                batch: &TranslationBatch,
                threads: usize,
                loss_fn: &L,
                params: &[Param],
            ) -> Option<Result<(f64, GradStore)>> {
                halves(self, batch, threads, loss_fn, params)
            }
        }
    )*};
}

recurrent_learner!(LstmTranslator, GruTranslator);
