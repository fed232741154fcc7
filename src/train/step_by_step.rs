//! `StepByStep`, the book's trainer.

use super::loss::{Loss, MSELoss};
use super::optim::{Adam, Optimizer};
use crate::data::DataLoader;
use crate::nn::Model;
use crate::repro;
use candle_core::{Result, Tensor, bail};

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

    fn mini_batches(&mut self, validation: bool) -> Result<Option<f64>> {
        let loader = if validation { self.val_loader.as_mut() } else { self.train_loader.as_mut() };
        let Some(loader) = loader else {
            return if validation { Ok(None) } else { bail!("StepByStep::train: no training loader; call set_loaders first") };
        };
        let batches = loader.batches()?;
        self.model.set_training(!validation);
        let mut total = 0.0;
        for (x, y) in &batches {
            let yhat = self.model.forward(x)?;
            let loss = self.loss_fn.loss(&yhat, y)?;
            if !validation {
                let grads = loss.backward()?;
                self.optimizer.step(&grads)?;
            }
            total += loss.to_scalar::<f32>()? as f64;
        }
        Ok(Some(total / batches.len().max(1) as f64))
    }

    /// Trains for `n_epochs`, re-seeding first (see [`StepByStep::set_seed`]); records the mean
    /// training and validation losses of each epoch.
    pub fn train(&mut self, n_epochs: usize) -> Result<()> {
        self.set_seed(self.seed)?;
        // Parameters made in another notebook cell get ids from this cell's counter.
        self.model.rehome()?;
        for epoch in 0..n_epochs {
            self.total_epochs += 1;
            let loss = self.mini_batches(false)?.unwrap_or(f64::NAN);
            self.losses.push(loss);
            if let Some(val) = self.mini_batches(true)? {
                self.val_losses.push(val);
            }
            if self.progress_every > 0 && ((epoch + 1) % self.progress_every == 0 || epoch + 1 == n_epochs) {
                let val = self.val_losses.last().map_or(String::new(), |v| format!("  val_loss {v:.6}"));
                println!("epoch {:>4}/{n_epochs}  loss {loss:.6}{val}", epoch + 1);
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
