//! Training that goes wrong stops and says where, and checkpoints that cannot be lost or
//! confused: each test here failed on the trainer before these guarantees.

use crate::common;

use attention_zoo::prelude::*;
use attention_zoo::train::{CheckpointRecord, OptimizerState};
use common::fixtures::values;
use std::collections::HashMap;
use std::path::PathBuf;

fn squares(n: usize, seed: i64) -> Tensor {
    generate_sequences(n, false, seed).unwrap().to_tensor().unwrap()
}

/// A small GRU encoder-decoder on 64 squares, with a validation set, quiet.
fn trainer(lr: f64, full: &Tensor, val: Option<&Tensor>) -> StepByStep<EncoderDecoder> {
    manual_seed(23).unwrap();
    let model = EncoderDecoder::new(Encoder::new(2, 2).unwrap(), Decoder::new(2, 2).unwrap(), 2, 2, 0.5).unwrap();
    let optimizer = Adam::new(model.parameters(), lr).unwrap();
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    let loader = |t: &Tensor| DataLoader::new(TensorDataset::new(t, &t.narrow(1, 2, 2).unwrap()).unwrap(), 16).unwrap();
    sbs.set_loaders(loader(full), val.map(loader));
    sbs.progress_every = 0;
    sbs
}

fn weights(sbs: &StepByStep<EncoderDecoder>) -> Vec<Vec<f64>> {
    sbs.model.parameters().iter().map(|p| values(&p.tensor())).collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("training").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_nan_loss_stops_training_naming_epoch_and_batch_and_keeps_the_weights() {
    let _serial = common::serial();
    let data = squares(64, 13);
    let mut sbs = trainer(0.01, &data, None);
    sbs.train(2).unwrap();
    let (before, optimizer_steps) = (weights(&sbs), sbs.optimizer.step_count());
    // Poison one point of the third batch: the loss of that batch is NaN.
    let mut v: Vec<f32> = data.flatten_all().unwrap().to_vec1().unwrap();
    v[2 * 16 * 8 + 3] = f32::NAN;
    let poisoned = Tensor::from_vec(v, data.dims(), &Device::Cpu).unwrap();
    let loader = DataLoader::new(TensorDataset::new(&poisoned, &poisoned.narrow(1, 2, 2).unwrap()).unwrap(), 16).unwrap();
    sbs.set_loaders(loader, None);
    let e = sbs.train(5).unwrap_err().to_string();
    assert!(e.contains("StepByStep::train") && e.contains("epoch 3") && e.contains("training batch 3") && e.contains("NaN"), "{e}");
    assert_eq!(weights(&sbs), before, "the weights are those from before the failing epoch");
    assert_eq!((sbs.total_epochs, sbs.losses.len(), sbs.optimizer.step_count()), (2, 2, optimizer_steps));
    assert!(sbs.losses.iter().all(|l| l.is_finite()));
}

#[test]
fn a_huge_learning_rate_stops_with_finite_weights() {
    let _serial = common::serial();
    let data = squares(64, 13);
    let mut sbs = trainer(1e30, &data, None);
    let e = sbs.train(50).unwrap_err().to_string();
    assert!(e.contains("epoch") && e.contains("batch") && (e.contains("NaN") || e.contains("inf")), "{e}");
    assert!(weights(&sbs).iter().flatten().all(|w| w.is_finite()), "weights stay finite");
    assert_eq!(sbs.total_epochs, sbs.losses.len());
}

#[test]
fn an_error_in_validation_rolls_the_epoch_back() {
    let _serial = common::serial();
    let data = squares(64, 13);
    // Validation sequences with 3 features: the model refuses them.
    let bad_val = Tensor::zeros((8, 4, 3), DType::F32, &Device::Cpu).unwrap();
    let mut sbs = trainer(0.01, &data, Some(&data));
    sbs.train(1).unwrap();
    let (before, steps) = (weights(&sbs), sbs.optimizer.step_count());
    let train = DataLoader::new(TensorDataset::new(&data, &data.narrow(1, 2, 2).unwrap()).unwrap(), 16).unwrap();
    let val = DataLoader::new(TensorDataset::new(&bad_val, &bad_val.narrow(1, 2, 2).unwrap()).unwrap(), 4).unwrap();
    sbs.set_loaders(train, Some(val));
    sbs.model.set_training(false);
    let e = sbs.train(3).unwrap_err().to_string();
    assert!(e.contains("epoch 2") && e.contains("validation batch 1") && e.contains("after epoch 1"), "{e}");
    assert_eq!(weights(&sbs), before);
    assert_eq!((sbs.total_epochs, sbs.losses.len(), sbs.val_losses.len(), sbs.optimizer.step_count()), (1, 1, 1, steps));
    assert!(!sbs.model.is_training(), "the model is back in the mode it had");
}

#[test]
fn a_first_epoch_that_fails_leaves_a_fresh_optimiser() {
    // Before the first step the rollback keeps no copy of Adam's buffers (all zero): the
    // failed epoch's steps must still be undone, buffers included, so that training again
    // gives what a trainer that never failed gives.
    let _serial = common::serial();
    let data = squares(64, 13);
    let bad_val = Tensor::zeros((8, 4, 3), DType::F32, &Device::Cpu).unwrap();
    let loaders = |val: &Tensor| {
        let loader = |t: &Tensor, n| DataLoader::new(TensorDataset::new(t, &t.narrow(1, 2, 2).unwrap()).unwrap(), n).unwrap();
        (loader(&data, 16), Some(loader(val, 4)))
    };
    let mut clean = trainer(0.01, &data, Some(&data));
    let fresh = weights(&clean);
    let (train, val) = loaders(&data);
    clean.set_loaders(train, val);
    clean.train(2).unwrap();
    let mut failed = trainer(0.01, &data, Some(&data));
    let (train, val) = loaders(&bad_val);
    failed.set_loaders(train, val);
    let e = failed.train(1).unwrap_err().to_string();
    assert!(e.contains("epoch 1") && e.contains("after epoch 0"), "{e}");
    assert_eq!(weights(&failed), fresh);
    assert_eq!((failed.optimizer.step_count(), failed.total_epochs), (0, 0));
    let state = failed.optimizer.state().unwrap();
    assert!(state.tensors.iter().all(|(_, t)| values(t).iter().all(|&v| v == 0.0)), "Adam's buffers are zero again");
    let (train, val) = loaders(&data);
    failed.set_loaders(train, val);
    failed.train(2).unwrap();
    assert_eq!(weights(&failed), weights(&clean));
    assert_eq!(failed.losses, clean.losses);
}

#[test]
fn an_empty_loader_is_an_error_not_a_zero_loss() {
    let _serial = common::serial();
    let empty = Tensor::zeros((0, 4, 2), DType::F32, &Device::Cpu).unwrap();
    let mut sbs = trainer(0.01, &empty, None);
    let e = sbs.train(1).unwrap_err().to_string();
    assert!(e.contains("training loader has no batches"), "{e}");
    assert!(sbs.losses.is_empty() && sbs.total_epochs == 0);
}

#[test]
fn an_optimiser_over_another_models_parameters_is_refused() {
    let _serial = common::serial();
    let data = squares(16, 13);
    let mut sbs = trainer(0.01, &data, None);
    let stranger = Linear::new(2, 2).unwrap();
    sbs.optimizer = Adam::new(stranger.parameters(), 0.01).unwrap();
    let e = sbs.train(1).unwrap_err().to_string();
    assert!(e.contains("optimiser") && e.contains("model.parameters()"), "{e}");
    assert!(Adam::new(vec![], f64::NAN).is_err() && Adam::with_betas(vec![], 0.1, (1.0, 0.9), 1e-8).is_err());
}

#[test]
fn checkpoints_carry_their_record_and_nan_losses_round_trip() {
    let _serial = common::serial();
    let dir = scratch("record");
    let data = squares(32, 13);
    let mut sbs = trainer(0.01, &data, Some(&data));
    sbs.train(2).unwrap();
    sbs.losses.push(f64::NAN);
    sbs.val_losses.push(f64::INFINITY);
    sbs.total_epochs = 3;
    let path = dir.join("model.safetensors");
    sbs.save_checkpoint(&path).unwrap();
    let listing: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(listing, vec!["model.safetensors".to_string()], "one file, no record beside it");
    let mut other = trainer(0.5, &data, None);
    other.load_checkpoint(&path).unwrap();
    assert_eq!(other.losses.len(), 3);
    assert!(other.losses[2].is_nan() && other.val_losses[2] == f64::INFINITY);
    assert_eq!(other.losses[..2], sbs.losses[..2]);
    assert_eq!((other.total_epochs, other.optimizer.step_count(), other.optimizer.lr()), (3, sbs.optimizer.step_count(), 0.01));
    assert_eq!(weights(&other), weights(&sbs));
}

/// Rewrites a checkpoint with its record changed by `edit`, keeping the tensors (and checksum).
fn with_record(src: &PathBuf, dst: &PathBuf, edit: impl Fn(&mut serde_json::Value)) {
    let bytes = std::fs::read(src).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut meta = header.metadata().clone().unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&meta["attention_zoo.record"]).unwrap();
    edit(&mut record);
    meta.insert("attention_zoo.record".into(), record.to_string());
    // as a file written before the record had checksums, so that the record's own checks run
    meta.remove("attention_zoo.checksums");
    let tensors = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu).unwrap();
    let mut sorted: Vec<(String, Tensor)> = tensors.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    std::fs::write(dst, safetensors::serialize(sorted.iter().map(|(n, t)| (n.as_str(), t)), Some(meta)).unwrap()).unwrap();
}

#[test]
fn corrupt_or_mismatched_checkpoints_are_clear_errors_and_change_nothing() {
    let _serial = common::serial();
    let dir = scratch("corrupt");
    let data = squares(32, 13);
    let mut sbs = trainer(0.01, &data, None);
    sbs.train(2).unwrap();
    let good = dir.join("good.safetensors");
    sbs.save_checkpoint(&good).unwrap();
    let mut other = trainer(0.01, &data, None);
    other.train(1).unwrap();
    let (before, epochs) = (weights(&other), other.total_epochs);
    let mut expect_error = |path: &PathBuf, needle: &str| {
        let e = other.load_checkpoint(path).unwrap_err().to_string();
        assert!(e.contains("load_checkpoint") && e.contains(needle), "expected `{needle}` in: {e}");
        assert_eq!((weights(&other), other.total_epochs), (before.clone(), epochs), "a failed load changes nothing");
    };
    // A flipped byte in the tensor data.
    let mut bytes = std::fs::read(&good).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    let flipped = dir.join("flipped.safetensors");
    std::fs::write(&flipped, &bytes).unwrap();
    expect_error(&flipped, "checksum");
    // Not a safetensors file, a missing file, a plain safetensors file without a record.
    let junk = dir.join("junk.safetensors");
    std::fs::write(&junk, b"not a checkpoint").unwrap();
    expect_error(&junk, "not a safetensors file");
    expect_error(&dir.join("missing.safetensors"), "cannot read");
    let plain = dir.join("plain.safetensors");
    candle_core::safetensors::save(&HashMap::from([("w", Tensor::zeros(2, DType::F32, &Device::Cpu).unwrap())]), &plain).unwrap();
    expect_error(&plain, "no record");
    // A record edited after saving is refused by its checksums, naming the field.
    let edited = dir.join("edited.safetensors");
    let mut meta = safetensors::SafeTensors::read_metadata(&std::fs::read(&good).unwrap()).unwrap().1.metadata().clone().unwrap();
    let record = meta["attention_zoo.record"].replace("\"seed\":", "\"seed\":1");
    meta.insert("attention_zoo.record".into(), record);
    let tensors = candle_core::safetensors::load_buffer(&std::fs::read(&good).unwrap(), &Device::Cpu).unwrap();
    let mut sorted: Vec<(String, Tensor)> = tensors.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    std::fs::write(&edited, safetensors::serialize(sorted.iter().map(|(n, t)| (n.as_str(), t)), Some(meta)).unwrap()).unwrap();
    expect_error(&edited, "`seed` no longer matches its checksum");
    // Records (of files without the record's checksums) that do not fit: a negative or
    // fractional step, a NaN learning rate, other names.
    with_record(&good, &edited, |r| r["optimizer_step"] = serde_json::json!(-1));
    expect_error(&edited, "record is not valid");
    with_record(&good, &edited, |r| r["optimizer_step"] = serde_json::json!(2.5));
    expect_error(&edited, "record is not valid");
    with_record(&good, &edited, |r| r["hyperparameters"][0][1] = serde_json::json!("NaN"));
    expect_error(&edited, "learning rate");
    with_record(&good, &edited, |r| r["optimizer"] = serde_json::json!("SGD"));
    expect_error(&edited, "SGD");
    with_record(&good, &edited, |r| r["parameters"][0] = serde_json::json!("encoder.other"));
    expect_error(&edited, "unexpected (`encoder.other`)");
    // A checkpoint of another model.
    manual_seed(1).unwrap();
    let layer = DecoderAttn::new(2, 2).unwrap();
    let optimizer = Adam::new(layer.parameters(), 0.01).unwrap();
    let model = EncoderDecoderAttn::new(Encoder::new(2, 2).unwrap(), layer, 2, 2, 0.5).unwrap();
    let mut attn = StepByStep::new(model, MSELoss::new(), optimizer);
    attn.progress_every = 0;
    let foreign = dir.join("attention.safetensors");
    attn.save_checkpoint(&foreign).unwrap();
    expect_error(&foreign, "6 parameters the model does not have: `decoder.attn.linear_query.weight`");
    other.load_checkpoint(&good).unwrap();
    assert_eq!(weights(&other), weights(&sbs));
}

#[test]
fn saving_replaces_only_its_own_file_and_names_the_path() {
    let _serial = common::serial();
    let dir = scratch("save");
    let data = squares(16, 13);
    let sbs = trainer(0.01, &data, None);
    // Files an older format (or the user) keeps beside the checkpoint stay as they are.
    for (name, text) in [("model.json", "user's notes"), ("model.safetensors.partial", "keep me")] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    sbs.save_checkpoint(dir.join("model.safetensors")).unwrap();
    sbs.save_checkpoint(dir.join("model.safetensors")).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("model.json")).unwrap(), "user's notes");
    assert_eq!(std::fs::read_to_string(dir.join("model.safetensors.partial")).unwrap(), "keep me");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3, "no temporary file is left behind");
    let e = sbs.save_checkpoint(&dir).unwrap_err().to_string();
    assert!(e.contains("save_checkpoint") && e.contains(&dir.display().to_string()) && e.contains("folder"), "{e}");
    let nowhere = dir.join("no-such-folder").join("model.safetensors");
    let e = sbs.save_checkpoint(&nowhere).unwrap_err().to_string();
    assert!(e.contains("save_checkpoint") && e.contains("no-such-folder"), "{e}");
}

#[test]
fn the_record_type_reads_what_it_writes() {
    let record = CheckpointRecord {
        total_epochs: 2,
        losses: vec![0.5, f64::NAN],
        val_losses: vec![f64::NEG_INFINITY],
        seed: 42,
        parameters: vec!["w".into()],
        optimizer: "Adam".into(),
        optimizer_step: 7,
        hyperparameters: vec![("lr".into(), 0.01)],
    };
    let json = serde_json::to_string(&record).unwrap();
    let back: CheckpointRecord = serde_json::from_str(&json).unwrap();
    assert!(back.losses[1].is_nan() && back.val_losses[0] == f64::NEG_INFINITY && back.optimizer_step == 7);
    let state = OptimizerState { kind: "Adam".into(), step: 0, hyperparameters: vec![], tensors: vec![] };
    let mut adam = Adam::new(vec![], 0.1).unwrap();
    let e = adam.load_state(&state).unwrap_err().to_string();
    assert!(e.contains("Adam::load_state") && e.contains("lr"), "{e}");
}

/// A hand-made gradient store whose gradient for one parameter is another parameter's value:
/// Adam reads it before changing any parameter (as it would read a copy), whatever the order.
#[test]
fn adam_reads_a_gradient_that_is_another_parameter_before_changing_either() {
    use attention_zoo::nn::Param;
    use candle_core::backprop::GradStore;
    let step = |share: bool| {
        let a = Param::new(&Tensor::new(&[1f32, -2.0, 3.0], &Device::Cpu).unwrap()).unwrap();
        let b = Param::new(&Tensor::new(&[0.5f32, 0.25, -4.0], &Device::Cpu).unwrap()).unwrap();
        let mut grads = GradStore::default();
        grads.insert(&a.tensor(), if share { b.tensor() } else { b.tensor().copy().unwrap() });
        grads.insert(&b.tensor(), Tensor::new(&[1f32, 1.0, -1.0], &Device::Cpu).unwrap());
        // `b` first: updated before `a`'s gradient would be read in order
        let mut adam = Adam::new(vec![b.clone(), a.clone()], 0.1).unwrap();
        adam.step(&grads).unwrap();
        [a.tensor().to_vec1::<f32>().unwrap(), b.tensor().to_vec1::<f32>().unwrap()]
    };
    assert_eq!(step(true), step(false));
}
