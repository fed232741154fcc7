//! `StepByStep`, the book's trainer.

use super::batches::{Batches, Learner};
use super::clip::clip_grad_norm;
use super::loss::{Loss, MSELoss};
use super::optim::{Adam, Optimizer};
use super::parallel::{backward, step_weights};
use super::progress::{EpochStats, progress_line};
use super::quick::{QUICK_BATCHES, quick_limit};
use super::schedule::NoamSchedule;
use crate::data::DataLoader;
use crate::nn::fused::transposed::with_transposed;
use crate::nn::shape::error;
use crate::repro;
use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor};
use std::time::Instant;

/// The name training's errors carry: the public method that runs them, [`StepByStep::train`].
const TRAIN: &str = "StepByStep::train";

/// The book's trainer: `StepByStep::new(model, loss, optimizer)`, `set_loaders`, `train(n)`,
/// `losses`/`val_losses`, `predict`, checkpoints and `plot_losses`.
///
/// The loss and the optimiser are type parameters rather than boxed trait objects: a boxed
/// object made in one notebook cell would run that cell's copy of the code in later cells.
///
/// The loaders are a type parameter too: the lecture's [`DataLoader`] of `(x, y)` tensors by
/// default, or a [`BucketIterator`](crate::data::BucketIterator) of padded translation batches
/// for the [`Transformer`](crate::models::Transformer) (see [`Learner`]). For those the trainer
/// can also clip the gradients' norm ([`StepByStep::clip_grad_norm`]) and follow a warm-up
/// schedule ([`StepByStep::schedule`]), and its progress line counts tokens per second.
pub struct StepByStep<M, L: Loss = MSELoss, O: Optimizer = Adam, D: Batches = DataLoader> {
    pub model: M,
    pub loss_fn: L,
    pub optimizer: O,
    pub train_loader: Option<D>,
    pub val_loader: Option<D>,
    /// Mean mini-batch training loss of every epoch so far.
    pub losses: Vec<f64>,
    /// Mean mini-batch validation loss of every epoch so far.
    pub val_losses: Vec<f64>,
    pub total_epochs: usize,
    /// The seed `train` starts from (42 unless `set_seed` said otherwise).
    pub seed: u64,
    /// Print one progress line every this many epochs (0: never).
    pub progress_every: usize,
    /// Clip the gradients' global 2-norm to this before every step (`None`: no clipping).
    pub clip_grad_norm: Option<f64>,
    /// Set the learning rate before every step from this schedule, at the optimiser's step count
    /// (so that a checkpoint resumes the schedule where it left off). `None`: a constant rate.
    pub schedule: Option<NoamSchedule>,
    /// Seconds, tokens and batches of every epoch's training pass (tokens counted where the
    /// model's [`Learner::batch_tokens`] counts them).
    pub epoch_stats: Vec<EpochStats>,
    /// Train each batch as this many parts at once, one thread each, where the model can split
    /// its batches ([`Learner::parallel_grads`]: translation batches without dropout); the step is
    /// the whole batch's, up to float32 rounding. Default 1. From 2 on, the optimiser may split
    /// its update too ([`Optimizer::set_threads`]: Adam does from 65,536 values), and the
    /// threads are a pool the process keeps from step to step (as many as it has cores; each
    /// evcxr cell that trains so makes its own, which then sleeps). Set `RAYON_NUM_THREADS=1`
    /// with it, as the kernels do: candle's products then stay on their part's thread, and the
    /// parts keep one core each busy.
    pub threads: usize,
    /// Train (and validate) on at most this many batches an epoch, the first of each pass; the
    /// `train` says so in a line when it is set. `None` (the default) uses every batch; the
    /// quick switch ([`quick`](super::quick)) starts it at [`QUICK_BATCHES`].
    pub max_batches: Option<usize>,
}

impl<M: Learner<(Tensor, Tensor)>, L: Loss, O: Optimizer> StepByStep<M, L, O> {
    /// The lecture's trainer, for models that take tensors from a [`DataLoader`]: set its
    /// loaders with [`StepByStep::set_loaders`].
    pub fn new(model: M, loss_fn: L, optimizer: O) -> Self {
        Self::empty(model, loss_fn, optimizer)
    }
}

impl<M: Learner<D::Batch>, L: Loss, O: Optimizer, D: Batches> StepByStep<M, L, O, D> {
    /// A trainer for any source of batches (a [`BucketIterator`](crate::data::BucketIterator) of
    /// translation batches, say), with its loaders set at once.
    pub fn with_loaders(model: M, loss_fn: L, optimizer: O, train_loader: D, val_loader: Option<D>) -> Self {
        let mut sbs = Self::empty(model, loss_fn, optimizer);
        sbs.set_loaders(train_loader, val_loader);
        sbs
    }

    fn empty(model: M, loss_fn: L, optimizer: O) -> Self {
        StepByStep {
            model,
            loss_fn,
            optimizer,
            train_loader: None,
            val_loader: None,
            losses: vec![],
            val_losses: vec![],
            total_epochs: 0,
            seed: 42,
            progress_every: 10,
            clip_grad_norm: None,
            schedule: None,
            epoch_stats: vec![],
            threads: 1,
            max_batches: quick_limit(QUICK_BATCHES),
        }
    }

    /// The training loader and, optionally, the validation loader.
    pub fn set_loaders(&mut self, train_loader: D, val_loader: Option<D>) {
        self.train_loader = Some(train_loader);
        self.val_loader = val_loader;
    }

    /// Seeds the default generator and the training loader's generator now, and makes `train`
    /// start from this seed.
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        self.seed = seed;
        repro::manual_seed(seed as i128)?;
        if let Some(l) = &mut self.train_loader {
            l.manual_seed(seed);
        }
        Ok(())
    }

    /// One pass over the training (or validation) loader: the mean mini-batch loss and the
    /// pass's statistics, or `None` when there is no validation loader. A non-finite loss stops
    /// the pass before it updates anything, naming the batch.
    fn mini_batches(&mut self, validation: bool, epoch: usize) -> Result<Option<(f64, EpochStats)>> {
        let what = if validation { "validation" } else { "training" };
        let start = Instant::now();
        let loader = if validation { self.val_loader.as_mut() } else { self.train_loader.as_mut() };
        let Some(loader) = loader else {
            return if validation { Ok(None) } else { Err(error(TRAIN, "no training loader; call set_loaders first")) };
        };
        let mut batches = loader.batches()?;
        if let Some(max) = self.max_batches {
            batches.truncate(max);
        }
        if batches.is_empty() {
            return Err(error(TRAIN, format!("the {what} loader has no batches (an empty dataset)")));
        }
        self.model.set_training(!validation);
        let (mut total, mut tokens) = (0.0, None);
        for (b, batch) in batches.iter().enumerate() {
            let at = || format!("epoch {epoch}, {what} batch {}", b + 1);
            let in_batch = |e: candle_core::Error| error(TRAIN, format!("{}: {e}", at()));
            let parallel =
                if validation { None } else { self.model.parallel_grads(batch, self.threads, &self.loss_fn, self.optimizer.params()) };
            let (value, grads) = match parallel {
                Some(step) => {
                    let (value, grads) = step.map_err(in_batch)?;
                    (value, Some(grads))
                }
                None => {
                    let mut forward = || self.model.forward_batch(batch);
                    let (yhat, y) =
                        if validation { forward() } else { with_transposed(step_weights(self.optimizer.params(), self.threads), forward) }
                            .map_err(in_batch)?;
                    let loss = self.loss_fn.loss(&yhat, &y).map_err(in_batch)?;
                    let value = loss.to_scalar::<f32>()? as f64;
                    let grads = if validation || !value.is_finite() { None } else { Some(backward(&loss).map_err(in_batch)?) };
                    (value, grads)
                }
            };
            if !value.is_finite() {
                return Err(error(
                    TRAIN,
                    format!("the {what} loss of {} is {value} (bad data or too large a learning rate); training stopped", at()),
                ));
            }
            if let Some(grads) = grads {
                self.update(grads).map_err(in_batch)?;
            }
            total += value;
            if let Some(n) = M::batch_tokens(batch) {
                tokens = Some(tokens.unwrap_or(0) + n);
            }
        }
        let stats = EpochStats { seconds: start.elapsed().as_secs_f64(), batches: batches.len(), tokens };
        Ok(Some((total / batches.len() as f64, stats)))
    }

    /// One optimiser step from a batch's gradients: clipping and the schedule's rate if set.
    fn update(&mut self, mut grads: GradStore) -> Result<()> {
        if let Some(max_norm) = self.clip_grad_norm {
            clip_grad_norm(self.optimizer.params(), &mut grads, max_norm)?;
        }
        if let Some(schedule) = &mut self.schedule {
            schedule.set_step_count(self.optimizer.step_count());
            schedule.step(&mut self.optimizer)?;
        }
        self.optimizer.step(&grads)
    }

    /// Checks that the optimiser updates exactly the model's parameters.
    fn check_optimizer(&self) -> Result<()> {
        let model = self.model.named_parameters();
        let opt = self.optimizer.params();
        if model.len() != opt.len() || model.iter().zip(opt).any(|((_, m), o)| !m.same(o)) {
            let first = model
                .iter()
                .zip(opt)
                .position(|((_, m), o)| !m.same(o))
                .map_or(String::new(), |k| format!(" (parameter {k}, `{}`, differs)", model[k].0));
            return Err(error(
                TRAIN,
                format!(
                    "the optimiser holds {} parameters that are not the model's {}{first}; build it from model.parameters()",
                    opt.len(),
                    model.len()
                ),
            ));
        }
        Ok(())
    }

    /// One epoch of training and validation; on any error the trainer is put back as it was
    /// before the epoch (weights, optimiser state, epoch count, losses, model mode).
    fn epoch(&mut self) -> Result<()> {
        let mode = self.model.is_training();
        let weights = self.model.state_dict()?;
        let optimizer = self.optimizer.rollback_state()?;
        let epoch = self.total_epochs + 1;
        let lr = self.optimizer.lr();
        let run = |me: &mut Self| -> Result<()> {
            let (loss, stats) = me.mini_batches(false, epoch)?.ok_or_else(|| error(TRAIN, "no training loader"))?;
            let val = me.mini_batches(true, epoch)?;
            me.losses.push(loss);
            me.val_losses.extend(val.map(|(v, _)| v));
            me.epoch_stats.push(stats);
            me.total_epochs = epoch;
            Ok(())
        };
        let result = run(self);
        if let Err(e) = result {
            let weights = weights.into_iter().collect();
            self.model.load_state_dict(&weights)?;
            self.optimizer.load_state(&optimizer)?;
            self.optimizer.set_lr(lr)?;
            self.model.set_training(mode);
            return Err(error(TRAIN, format!("{e}; the trainer is back as it was after epoch {}", epoch - 1)));
        }
        Ok(())
    }

    /// Trains for `n_epochs`, re-seeding first (see [`StepByStep::set_seed`]); records the mean
    /// training and validation losses of each epoch. An error (a non-finite loss, a bad batch)
    /// stops training and names the epoch and the batch; the trainer is then as it was after
    /// the last good epoch.
    ///
    /// It changes nothing process-wide: [`crate::tuning`] says what a program may opt into.
    pub fn train(&mut self, n_epochs: usize) -> Result<()> {
        self.check_optimizer()?;
        self.optimizer.set_threads(self.threads);
        self.set_seed(self.seed)?;
        // Under evcxr as published, parameters made by another cell's copy of the crate get ids
        // from this cell's counter (a no-op elsewhere: see Param::rehome).
        self.model.rehome()?;
        if let Some(max) = self.max_batches {
            println!("StepByStep::train: at most {max} training and {max} validation batches an epoch (max_batches)");
        }
        let start = Instant::now();
        for k in 0..n_epochs {
            self.epoch()?;
            if self.progress_every > 0 && ((k + 1) % self.progress_every == 0 || k + 1 == n_epochs) {
                let loss = self.losses.last().copied().unwrap_or(f64::NAN);
                let stats = self.epoch_stats.last().cloned().unwrap_or_default();
                println!(
                    "{}",
                    progress_line(k + 1, n_epochs, loss, self.val_losses.last().copied(), &stats, start.elapsed().as_secs_f64())
                );
            }
        }
        self.model.set_training(false);
        Ok(())
    }

    /// Predictions in evaluation mode, detached.
    ///
    /// # Shapes
    /// - `x`: a batch as the model takes it, `(N, ...)`
    /// - returns the model's predictions `(N, ...)`
    pub fn predict(&mut self, x: &Tensor) -> Result<Tensor>
    where
        M: crate::nn::Model,
    {
        self.model.set_training(false);
        let y = self.model.forward(x)?.detach();
        Ok(y)
    }

    /// The number of trainable values in the model.
    pub fn count_parameters(&self) -> usize {
        self.model.count_parameters()
    }
}
