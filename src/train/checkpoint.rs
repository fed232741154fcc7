//! Checkpoints: the model's weights, the optimiser's state and the training record in one file.

use super::loss::Loss;
use super::optim::Optimizer;
use super::step_by_step::StepByStep;
use crate::nn::Model;
use candle_core::{Device, Result, Tensor};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a checkpoint's JSON record holds beside the weights.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CheckpointRecord {
    pub total_epochs: usize,
    pub losses: Vec<f64>,
    pub val_losses: Vec<f64>,
    pub seed: u64,
    pub parameters: Vec<String>,
}

impl<M: Model, L: Loss, O: Optimizer> StepByStep<M, L, O> {
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
        self.model.check_state_dict("load_checkpoint", &model_state)?;
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
