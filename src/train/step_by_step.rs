//! `StepByStep`, the book's trainer.

use super::loss::{Loss, MSELoss};
use super::optim::{Adam, Optimizer};
use crate::data::DataLoader;
use crate::nn::Model;
use crate::nn::shape::error;
use crate::repro;
use candle_core::{Result, Tensor};

/// The book's trainer: `StepByStep::new(model, loss, optimizer)`, `set_loaders`, `train(n)`,
/// `losses`/`val_losses`, `predict`, checkpoints and `plot_losses`.
///
/// The loss and the optimiser are type parameters rather than boxed trait objects: a boxed
/// object made in one notebook cell would run that cell's copy of the code in later cells.
pub struct StepByStep<M: Model, L: Loss = MSELoss, O: Optimizer = Adam> {
    pub model: M,
    pub loss_fn: L,
    pub optimizer: O,
    pub train_loader: Option<DataLoader>,
    pub val_loader: Option<DataLoader>,
    /// Mean mini-batch training loss of every epoch so far.
    pub losses: Vec<f64>,
    /// Mean mini-batch validation loss of every epoch so far.
    pub val_losses: Vec<f64>,
    pub total_epochs: usize,
    /// The seed `train` starts from (42 unless `set_seed` said otherwise).
    pub seed: u64,
    /// Print one progress line every this many epochs (0: never).
    pub progress_every: usize,
}

impl<M: Model, L: Loss, O: Optimizer> StepByStep<M, L, O> {
    pub fn new(model: M, loss_fn: L, optimizer: O) -> Self {
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
        }
    }

    /// The training loader and, optionally, the validation loader.
    pub fn set_loaders(&mut self, train_loader: DataLoader, val_loader: Option<DataLoader>) {
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

    /// One pass over the training (or validation) loader: the mean mini-batch loss, or `None`
    /// when there is no validation loader. A non-finite loss stops the pass before it updates
    /// anything, naming the batch.
    fn mini_batches(&mut self, validation: bool, epoch: usize) -> Result<Option<f64>> {
        let module = "StepByStep::train";
        let what = if validation { "validation" } else { "training" };
        let loader = if validation { self.val_loader.as_mut() } else { self.train_loader.as_mut() };
        let Some(loader) = loader else {
            return if validation { Ok(None) } else { Err(error(module, "no training loader; call set_loaders first")) };
        };
        let batches = loader.batches()?;
        if batches.is_empty() {
            return Err(error(module, format!("the {what} loader has no batches (an empty dataset)")));
        }
        self.model.set_training(!validation);
        let mut total = 0.0;
        for (b, (x, y)) in batches.iter().enumerate() {
            let at = || format!("epoch {epoch}, {what} batch {}", b + 1);
            let yhat = self.model.forward(x).map_err(|e| error(module, format!("{}: {e}", at())))?;
            let loss = self.loss_fn.loss(&yhat, y).map_err(|e| error(module, format!("{}: {e}", at())))?;
            let value = loss.to_scalar::<f32>()? as f64;
            if !value.is_finite() {
                return Err(error(
                    module,
                    format!("the {what} loss of {} is {value} (bad data or too large a learning rate); training stopped", at()),
                ));
            }
            if !validation {
                let grads = loss.backward()?;
                self.optimizer.step(&grads)?;
            }
            total += value;
        }
        Ok(Some(total / batches.len() as f64))
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
                "StepByStep::train",
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
        let optimizer = self.optimizer.state()?;
        let epoch = self.total_epochs + 1;
        let run = |me: &mut Self| -> Result<()> {
            let loss = me.mini_batches(false, epoch)?.unwrap_or(f64::NAN);
            let val = me.mini_batches(true, epoch)?;
            me.losses.push(loss);
            me.val_losses.extend(val);
            me.total_epochs = epoch;
            Ok(())
        };
        let result = run(self);
        if let Err(e) = result {
            let weights = weights.into_iter().collect();
            self.model.load_state_dict(&weights)?;
            self.optimizer.load_state(&optimizer)?;
            self.model.set_training(mode);
            return Err(error("StepByStep::train", format!("{e}; the trainer is back as it was after epoch {}", epoch - 1)));
        }
        Ok(())
    }

    /// Trains for `n_epochs`, re-seeding first (see [`StepByStep::set_seed`]); records the mean
    /// training and validation losses of each epoch. An error (a non-finite loss, a bad batch)
    /// stops training and names the epoch and the batch; the trainer is then as it was after
    /// the last good epoch.
    pub fn train(&mut self, n_epochs: usize) -> Result<()> {
        self.check_optimizer()?;
        self.set_seed(self.seed)?;
        // Parameters made in another notebook cell get ids from this cell's counter.
        self.model.rehome()?;
        for k in 0..n_epochs {
            self.epoch()?;
            if self.progress_every > 0 && ((k + 1) % self.progress_every == 0 || k + 1 == n_epochs) {
                let loss = self.losses.last().copied().unwrap_or(f64::NAN);
                let val = self.val_losses.last().map_or(String::new(), |v| format!("  val_loss {v:.6}"));
                println!("epoch {:>4}/{n_epochs}  loss {loss:.6}{val}", k + 1);
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
    pub fn predict(&mut self, x: &Tensor) -> Result<Tensor> {
        self.model.set_training(false);
        let y = self.model.forward(x)?.detach();
        Ok(y)
    }

    /// The number of trainable values in the model.
    pub fn count_parameters(&self) -> usize {
        self.model.count_parameters()
    }
}
