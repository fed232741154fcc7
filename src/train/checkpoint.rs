//! Checkpoints that cannot be lost or confused: one safetensors file holds the model's weights,
//! the optimiser's buffers and, in its metadata map, the training record and checksums over the
//! tensors and over each field of the record. A record can never be paired with another file's
//! weights, a flipped byte of the tensors or a changed field of the record is an error naming
//! it, and loading checks everything before it changes anything.

use super::batches::Batches;
use super::loss::Loss;
use super::optim::{Optimizer, OptimizerState};
use super::step_by_step::StepByStep;
use crate::nn::Walk;
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::{DType, Device, Result, Tensor};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The metadata keys a checkpoint writes.
const RECORD_KEY: &str = "attention_zoo.record";
const CHECKSUM_KEY: &str = "attention_zoo.checksum";
/// The checksums of the record's fields, by field name, with the tensors' under `tensors`.
const CHECKSUMS_KEY: &str = "attention_zoo.checksums";

/// What a checkpoint records beside the tensors. Losses are kept as text so that NaN and the
/// infinities round-trip (JSON has no such numbers).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CheckpointRecord {
    pub total_epochs: usize,
    #[serde(with = "float_text")]
    pub losses: Vec<f64>,
    #[serde(with = "float_text")]
    pub val_losses: Vec<f64>,
    pub seed: u64,
    /// The model's parameter names, in order.
    pub parameters: Vec<String>,
    /// The optimiser's kind (`"Adam"`).
    pub optimizer: String,
    /// The optimiser's steps so far.
    pub optimizer_step: u64,
    /// The optimiser's hyperparameters, by name.
    #[serde(with = "float_text_pairs")]
    pub hyperparameters: Vec<(String, f64)>,
}

mod float_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| format!("{x:?}")))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        let text = Vec::<String>::deserialize(d)?;
        text.iter().map(|t| t.parse::<f64>().map_err(|_| serde::de::Error::custom(format!("not a number: {t:?}")))).collect()
    }
}

mod float_text_pairs {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|(n, x)| (n, format!("{x:?}"))))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, f64)>, D::Error> {
        let text = Vec::<(String, String)>::deserialize(d)?;
        let parse = |(n, t): &(String, String)| {
            t.parse::<f64>().map(|x| (n.clone(), x)).map_err(|_| serde::de::Error::custom(format!("`{n}` is not a number: {t:?}")))
        };
        text.iter().map(parse).collect()
    }
}

/// FNV-1a (64 bits), fed piece by piece.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn eat(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// A checksum per field of a record (its JSON object), over each field's JSON text.
fn record_checksums(record: &serde_json::Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(fields) = record.as_object() {
        for (name, value) in fields {
            let mut h = Fnv::new();
            h.eat(name.as_bytes());
            h.eat(value.to_string().as_bytes());
            out.insert(name.clone(), h.hex());
        }
    }
    out
}

/// FNV-1a (64 bits) over each tensor's name, dtype, shape and float32 bytes, in name order: any
/// changed byte of the data changes it.
pub fn tensors_checksum(tensors: &BTreeMap<String, Tensor>) -> Result<String> {
    let mut h = Fnv::new();
    let mut eat = |bytes: &[u8]| h.eat(bytes);
    for (name, t) in tensors {
        eat(name.as_bytes());
        eat(format!("{:?}{:?}", t.dtype(), t.dims()).as_bytes());
        let values = t.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()?;
        for v in values {
            eat(&v.to_le_bytes());
        }
    }
    Ok(h.hex())
}

/// What differs between the model's parameter names and a checkpoint's: the missing ones, the
/// unexpected ones (a few of each), or only their order.
fn parameter_mismatch(model: &[String], file: &[String]) -> String {
    let few = |names: Vec<&String>| {
        let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
        let more = names.len().saturating_sub(4);
        if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
    };
    let missing: Vec<&String> = model.iter().filter(|n| !file.contains(n)).collect();
    let unexpected: Vec<&String> = file.iter().filter(|n| !model.contains(n)).collect();
    match (missing.is_empty(), unexpected.is_empty()) {
        (true, true) => "it holds the model's parameters in another order: it was saved from another model".into(),
        (false, true) => format!("it lacks {} of the model's {} parameters: {}", missing.len(), model.len(), few(missing)),
        (true, false) => format!("it holds {} parameters the model does not have: {}", unexpected.len(), few(unexpected)),
        (false, false) => format!(
            "it was saved from another model: {} of the model's parameters are missing ({}) and {} are unexpected ({})",
            missing.len(),
            few(missing),
            unexpected.len(),
            few(unexpected)
        ),
    }
}

/// A fresh name beside `path` for writing before the rename, never an existing file.
fn temporary_beside(path: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let name = path.file_name().map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.{nanos}.partial", std::process::id()))
}

/// Checks that `path` can name the checkpoint's file: it is not a folder.
fn check_not_folder(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(invalid(format!("{} is a folder, not a file", path.display())));
    }
    Ok(())
}

/// Writes `bytes` to a new temporary file beside `path`, syncs it, then renames it over `path`;
/// a failure names `path` ([`invalid`]: `save_checkpoint` labels it).
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temporary_beside(path);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(|e| invalid(format!("{}: {e}", path.display())))
}

impl<M: Walk, L: Loss, O: Optimizer, D: Batches> StepByStep<M, L, O, D> {
    /// Saves the weights, the optimiser's state and the training record (epochs, losses, seed,
    /// parameter names, the optimiser's hyperparameters) into one safetensors file at `path`,
    /// with a checksum over the tensors. The file is written whole beside `path`, then renamed:
    /// nothing but `path` is ever replaced.
    #[errors_as("save_checkpoint")]
    pub fn save_checkpoint(&self, path: impl AsRef<Path>) -> Result<()> {
        check_not_folder(path.as_ref())?;
        let bytes = self.checkpoint_bytes(path.as_ref())?;
        write_whole(path.as_ref(), &bytes)
    }

    /// The safetensors file [`save_checkpoint`](Self::save_checkpoint) writes to `path`.
    fn checkpoint_bytes(&self, path: &Path) -> Result<Vec<u8>> {
        let optimizer = self.optimizer.state()?;
        let mut tensors: BTreeMap<String, Tensor> = BTreeMap::new();
        // the parameters only: buffers are rebuilt from the model's configuration
        for (n, p) in self.model.named_parameters() {
            tensors.insert(format!("model.{n}"), p.tensor().detach().copy()?);
        }
        for (n, t) in &optimizer.tensors {
            tensors.insert(format!("optimizer.{n}"), t.clone());
        }
        let record = CheckpointRecord {
            total_epochs: self.total_epochs,
            losses: self.losses.clone(),
            val_losses: self.val_losses.clone(),
            seed: self.seed,
            parameters: self.model.named_parameters().into_iter().map(|(n, _)| n).collect(),
            optimizer: optimizer.kind.clone(),
            optimizer_step: optimizer.step,
            hyperparameters: optimizer.hyperparameters.clone(),
        };
        let value = serde_json::to_value(&record).map_err(|e| invalid(format!("cannot write the record: {e}")))?;
        let tensors_sum = tensors_checksum(&tensors)?;
        let mut sums = record_checksums(&value);
        sums.insert("tensors".into(), tensors_sum.clone());
        let sums = serde_json::to_string(&sums).map_err(|e| invalid(format!("cannot write the checksums: {e}")))?;
        let metadata = HashMap::from([
            (RECORD_KEY.to_string(), value.to_string()),
            (CHECKSUM_KEY.to_string(), tensors_sum),
            (CHECKSUMS_KEY.to_string(), sums),
        ]);
        safetensors::serialize(tensors.iter(), Some(metadata))
            .map_err(|e| invalid(format!("{}: cannot encode the tensors: {e}", path.display())))
    }

    /// Loads a checkpoint written by [`StepByStep::save_checkpoint`]. The record, the checksum,
    /// the parameter names and shapes, and the optimiser's kind, step and hyperparameters are all
    /// checked first: a missing, corrupt or mismatched file leaves the trainer exactly as it was.
    #[errors_as("load_checkpoint")]
    pub fn load_checkpoint(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let (record, model_state, optimizer) = self.check_checkpoint(path.as_ref())?;
        // The optimiser checks its whole state before changing anything; the model's state was
        // checked above, so after this nothing can fail half-way.
        self.optimizer.load_state(&optimizer).map_err(|e| invalid(format!("{}: {e}", path.as_ref().display())))?;
        self.model.load_state_dict(&model_state)?;
        self.total_epochs = record.total_epochs;
        self.losses = record.losses;
        self.val_losses = record.val_losses;
        self.seed = record.seed;
        Ok(())
    }

    /// Checks the checkpoint at `path` (its record, checksums, tensors and the model's parameter
    /// names and shapes) and returns its record, the model's state and the optimiser's.
    fn check_checkpoint(&self, path: &Path) -> Result<(CheckpointRecord, HashMap<String, Tensor>, OptimizerState)> {
        let at = |what: String| invalid(format!("{}: {what}", path.display()));
        let bytes = std::fs::read(path).map_err(|e| at(format!("cannot read it: {e}")))?;
        let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).map_err(|e| at(format!("not a safetensors file: {e}")))?;
        let meta = header.metadata().clone().unwrap_or_default();
        let (Some(json), Some(checksum)) = (meta.get(RECORD_KEY), meta.get(CHECKSUM_KEY)) else {
            return Err(at("not a checkpoint written by save_checkpoint (no record or checksum in its metadata)".into()));
        };
        // Every field of the record must match its checksum (files written before the record was
        // covered carry the tensors' checksum alone, which is checked below).
        if let Some(sums) = meta.get(CHECKSUMS_KEY) {
            let sums: BTreeMap<String, String> = serde_json::from_str(sums).map_err(|e| at(format!("its checksums are not valid: {e}")))?;
            let value: serde_json::Value = serde_json::from_str(json).map_err(|e| at(format!("its record is not valid: {e}")))?;
            let now = record_checksums(&value);
            let names: std::collections::BTreeSet<&String> = now.keys().chain(sums.keys().filter(|k| *k != "tensors")).collect();
            let changed: Vec<&str> = names.into_iter().filter(|n| now.get(*n) != sums.get(*n)).map(|n| n.as_str()).collect();
            if !changed.is_empty() {
                return Err(at(format!(
                    "the record was changed after it was saved: {} no longer matches its checksum",
                    changed.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                )));
            }
            if sums.get("tensors") != Some(checksum) {
                return Err(at("the tensors' two checksums disagree: the file was changed after it was saved".into()));
            }
        }
        let record: CheckpointRecord = serde_json::from_str(json).map_err(|e| at(format!("its record is not valid: {e}")))?;
        let loaded =
            candle_core::safetensors::load_buffer(&bytes, &Device::Cpu).map_err(|e| at(format!("cannot read the tensors: {e}")))?;
        let tensors: BTreeMap<String, Tensor> = loaded.into_iter().collect();
        if &tensors_checksum(&tensors)? != checksum {
            return Err(at("the tensors do not match their checksum: the file is corrupt".into()));
        }
        let names: Vec<String> = self.model.named_parameters().into_iter().map(|(n, _)| n).collect();
        if names != record.parameters {
            return Err(at(parameter_mismatch(&names, &record.parameters)));
        }
        let mut model_state = HashMap::new();
        let mut buffers = vec![];
        for (k, t) in tensors {
            if let Some(n) = k.strip_prefix("model.") {
                model_state.insert(n.to_string(), t);
            } else if let Some(n) = k.strip_prefix("optimizer.") {
                buffers.push((n.to_string(), t));
            } else {
                return Err(at(format!("unexpected tensor `{k}`")));
            }
        }
        self.model.check_state_dict("load_checkpoint", &model_state).map_err(|e| at(e.to_string()))?;
        let optimizer = OptimizerState {
            kind: record.optimizer.clone(),
            step: record.optimizer_step,
            hyperparameters: record.hyperparameters.clone(),
            tensors: buffers,
        };
        Ok((record, model_state, optimizer))
    }
}
