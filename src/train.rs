//! Training: losses, PyTorch's Adam, and `StepByStep`, the book's trainer.

use crate::data::DataLoader;
use crate::plots::{Figure, plot_losses};
use crate::random;
use crate::seq2seq::Model;
use candle_core::backprop::GradStore;
use crate::nn::Param;
use candle_core::{DType, Device, Result, Tensor, bail};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A loss function: predictions and targets in, a scalar tensor out.
pub trait Loss {
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor>;
}

/// `nn.MSELoss()`: the mean of the squared differences.
#[derive(Clone, Copy, Debug, Default)]
pub struct MSELoss;

impl MSELoss {
    pub fn new() -> Self {
        MSELoss
    }
}

impl Loss for MSELoss {
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
        if prediction.dims() != target.dims() {
            bail!("MSELoss: prediction {:?} and target {:?} must have the same shape", prediction.dims(), target.dims())
        }
        (prediction - target)?.sqr()?.mean_all()
    }
}

/// An optimiser: one update from the gradients, and its state for checkpoints.
pub trait Optimizer {
    fn step(&mut self, grads: &GradStore) -> Result<()>;
    /// The learning rate.
    fn lr(&self) -> f64;
    /// Its state as named tensors (saved with a checkpoint).
    fn state(&self) -> Result<Vec<(String, Tensor)>>;
    /// Restores a state written by [`Optimizer::state`]; checks everything before changing anything.
    fn load_state(&mut self, state: &HashMap<String, Tensor>) -> Result<()>;
}

/// `optim.Adam(params, lr)` with PyTorch's defaults (betas 0.9/0.999, eps 1e-8, no weight decay)
/// and PyTorch's float32 arithmetic, step for step.
#[derive(Clone, Debug)]
pub struct Adam {
    pub params: Vec<Param>,
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    pub step_count: usize,
    exp_avg: Vec<Vec<f32>>,
    exp_avg_sq: Vec<Vec<f32>>,
}

impl Adam {
    pub fn new(params: Vec<Param>, lr: f64) -> Result<Self> {
        if !(lr.is_finite() && lr >= 0.0) {
            bail!("Adam: invalid learning rate {lr}")
        }
        let exp_avg: Vec<Vec<f32>> = params.iter().map(|p| vec![0f32; p.elem_count()]).collect();
        Ok(Adam { exp_avg_sq: exp_avg.clone(), exp_avg, params, lr, betas: (0.9, 0.999), eps: 1e-8, step_count: 0 })
    }
}

fn to_vec(t: &Tensor) -> Result<Vec<f32>> {
    t.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()
}

impl Optimizer for Adam {
    fn step(&mut self, grads: &GradStore) -> Result<()> {
        self.step_count += 1;
        let (beta1, beta2) = self.betas;
        let step = self.step_count as i32;
        let bias_correction1 = 1.0 - beta1.powi(step);
        let bias_correction2 = 1.0 - beta2.powi(step);
        let step_size = (self.lr / bias_correction1) as f32;
        let bc2_sqrt = bias_correction2.sqrt() as f32;
        let (w1, b2, w2, eps) = ((1.0 - beta1) as f32, beta2 as f32, (1.0 - beta2) as f32, self.eps as f32);
        for (k, p) in self.params.iter().enumerate() {
            let Some(g) = grads.get(&p.tensor()) else { continue };
            let g = to_vec(g)?;
            let mut values = to_vec(&p.tensor())?;
            let (m, v) = (&mut self.exp_avg[k], &mut self.exp_avg_sq[k]);
            for i in 0..values.len() {
                m[i] += w1 * (g[i] - m[i]);
                v[i] = v[i] * b2 + w2 * g[i] * g[i];
                let denom = v[i].sqrt() / bc2_sqrt + eps;
                values[i] += -step_size * m[i] / denom;
            }
            p.set(&Tensor::from_vec(values, p.shape(), &Device::Cpu)?)?;
        }
        Ok(())
    }

    fn lr(&self) -> f64 {
        self.lr
    }

    fn state(&self) -> Result<Vec<(String, Tensor)>> {
        let mut s = vec![("step".to_string(), Tensor::new(&[self.step_count as f32], &Device::Cpu)?)];
        for (k, p) in self.params.iter().enumerate() {
            s.push((format!("exp_avg.{k}"), Tensor::from_vec(self.exp_avg[k].clone(), p.shape(), &Device::Cpu)?));
            s.push((format!("exp_avg_sq.{k}"), Tensor::from_vec(self.exp_avg_sq[k].clone(), p.shape(), &Device::Cpu)?));
        }
        Ok(s)
    }

    fn load_state(&mut self, state: &HashMap<String, Tensor>) -> Result<()> {
        let step = match state.get("step") {
            Some(t) => to_vec(t)?.first().copied().unwrap_or(0.0) as usize,
            None => bail!("Adam::load_state: the state has no `step`"),
        };
        let mut m = vec![];
        let mut v = vec![];
        for (k, p) in self.params.iter().enumerate() {
            for (name, dest) in [("exp_avg", &mut m), ("exp_avg_sq", &mut v)] {
                let key = format!("{name}.{k}");
                match state.get(&key) {
                    Some(t) if t.elem_count() == p.elem_count() => dest.push(to_vec(t)?),
                    Some(t) => bail!("Adam::load_state: `{key}` expected shape {:?}, got {:?}", p.dims(), t.dims()),
                    None => bail!("Adam::load_state: the state has no `{key}`"),
                }
            }
        }
        self.step_count = step;
        self.exp_avg = m;
        self.exp_avg_sq = v;
        Ok(())
    }
}

/// What a checkpoint's JSON record holds beside the weights.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CheckpointRecord {
    pub total_epochs: usize,
    pub losses: Vec<f64>,
    pub val_losses: Vec<f64>,
    pub seed: u64,
    pub parameters: Vec<String>,
}

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
        random::manual_seed(seed as i128)?;
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

    /// Predictions in evaluation mode.
    pub fn predict(&mut self, x: &Tensor) -> Result<Tensor> {
        self.model.set_training(false);
        let y = self.model.forward(x)?.detach();
        Ok(y)
    }

    /// The number of trainable values in the model.
    pub fn count_parameters(&self) -> usize {
        self.model.count_parameters()
    }

    /// The training and validation losses, log scale.
    pub fn plot_losses(&self) -> Result<Figure> {
        plot_losses(&self.losses, &self.val_losses)
    }

    fn record_path(path: &Path) -> PathBuf {
        path.with_extension("json")
    }

    /// Saves the weights and the optimiser's state as safetensors at `path`, and a JSON record of
    /// epochs and losses beside it (same name, `.json`). Files are written whole, then renamed.
    pub fn save_checkpoint(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let mut tensors: HashMap<String, Tensor> = HashMap::new();
        for (n, t) in self.model.state_dict()? {
            tensors.insert(format!("model.{n}"), t);
        }
        for (n, t) in self.optimizer.state()? {
            tensors.insert(format!("optimizer.{n}"), t);
        }
        let record = CheckpointRecord {
            total_epochs: self.total_epochs,
            losses: self.losses.clone(),
            val_losses: self.val_losses.clone(),
            seed: self.seed,
            parameters: self.model.named_parameters().into_iter().map(|(n, _)| n).collect(),
        };
        let json = serde_json::to_string_pretty(&record)
            .map_err(|e| candle_core::Error::Msg(format!("save_checkpoint: cannot write the record: {e}")))?;
        let tmp = path.with_extension("safetensors.partial");
        candle_core::safetensors::save(&tensors, &tmp)?;
        let tmp_json = path.with_extension("json.partial");
        std::fs::write(&tmp_json, json).map_err(|e| candle_core::Error::Msg(format!("save_checkpoint: {}: {e}", tmp_json.display())))?;
        std::fs::rename(&tmp, path).map_err(|e| candle_core::Error::Msg(format!("save_checkpoint: {}: {e}", path.display())))?;
        let rec = Self::record_path(path);
        std::fs::rename(&tmp_json, &rec).map_err(|e| candle_core::Error::Msg(format!("save_checkpoint: {}: {e}", rec.display())))?;
        Ok(())
    }

    /// Loads a checkpoint written by [`StepByStep::save_checkpoint`]. Both files are read and
    /// checked first: a missing or corrupt file leaves the trainer exactly as it was.
    pub fn load_checkpoint(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let rec_path = Self::record_path(path);
        let text = std::fs::read_to_string(&rec_path)
            .map_err(|e| candle_core::Error::Msg(format!("load_checkpoint: cannot read the record {}: {e}", rec_path.display())))?;
        let record: CheckpointRecord = serde_json::from_str(&text)
            .map_err(|e| candle_core::Error::Msg(format!("load_checkpoint: the record {} is not valid: {e}", rec_path.display())))?;
        let tensors = candle_core::safetensors::load(path, &Device::Cpu)
            .map_err(|e| candle_core::Error::Msg(format!("load_checkpoint: cannot read the weights {}: {e}", path.display())))?;
        let mut model_state = HashMap::new();
        let mut opt_state = HashMap::new();
        for (k, t) in tensors {
            if let Some(n) = k.strip_prefix("model.") {
                model_state.insert(n.to_string(), t);
            } else if let Some(n) = k.strip_prefix("optimizer.") {
                opt_state.insert(n.to_string(), t);
            }
        }
        // Check the model's part before changing anything; the optimiser checks its own.
        for (name, var) in self.model.named_parameters() {
            match model_state.get(&name) {
                Some(t) if t.dims() == var.dims().as_slice() => {}
                Some(t) => bail!("load_checkpoint: parameter `{name}` expected shape {:?}, got {:?}", var.dims(), t.dims()),
                None => bail!("load_checkpoint: parameter `{name}` is missing from {}", path.display()),
            }
        }
        let saved_optimizer = self.optimizer.state()?.into_iter().collect::<HashMap<_, _>>();
        self.optimizer.load_state(&opt_state)?;
        if let Err(e) = self.model.load_state_dict(&model_state) {
            self.optimizer.load_state(&saved_optimizer)?;
            return Err(e);
        }
        self.total_epochs = record.total_epochs;
        self.losses = record.losses;
        self.val_losses = record.val_losses;
        self.seed = record.seed;
        Ok(())
    }
}
