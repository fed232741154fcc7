//! `StepByStep` on translation batches against PyTorch (tests/fixtures/translation.json, written by
//! tools/fixtures/translation.py): a small Xavier-initialised Transformer, two epochs of two padded
//! batches, Adam with the warm-up schedule, gradient clipping and label smoothing with the padding
//! ignored; each epoch's training and validation loss and the final weights, trained on whole
//! batches and as two half-batches on two threads.

use crate::common;

use attention_zoo::prelude::*;
use attention_zoo::train::Batches;
use common::fixtures::{StateFx, assert_close, load_as, values};
use serde::Deserialize;
use std::collections::HashMap;

/// `tests/fixtures/translation.json`: the pairs, the batches of each epoch (indices into the
/// pairs), the sizes and PyTorch's initial weights, epoch losses and final weights.
#[derive(Deserialize)]
struct TranslationFx {
    sizes: Sizes,
    pairs: Vec<EncodedPair>,
    batches: Vec<Vec<usize>>,
    valid: Vec<Vec<usize>>,
    initial: StateFx,
    losses: Vec<f64>,
    val_losses: Vec<f64>,
    state: StateFx,
}

#[derive(Deserialize)]
struct Sizes {
    d_model: usize,
    n_heads: usize,
    d_ff: usize,
    n_layers: usize,
    max_len: usize,
    src_vocab: usize,
    tgt_vocab: usize,
    seed: i64,
    epochs: usize,
    warmup: u64,
    factor: f64,
    label_smoothing: f64,
    max_norm: f64,
}

/// The same batches every epoch, in the fixture's order.
#[derive(Clone)]
struct Fixed(Vec<TranslationBatch>);

impl Batches for Fixed {
    type Batch = TranslationBatch;

    fn batches(&mut self) -> Result<Vec<TranslationBatch>> {
        Ok(self.0.clone())
    }

    fn manual_seed(&mut self, _seed: u64) {}
}

fn batches(pairs: &[EncodedPair], lists: &[Vec<usize>]) -> Fixed {
    Fixed(lists.iter().map(|b| TranslationBatch::new(pairs, b).unwrap()).collect())
}

fn trainer(fx: &TranslationFx, threads: usize) -> StepByStep<Transformer, CrossEntropyLoss, Adam, Fixed> {
    let s = &fx.sizes;
    let cfg = TransformerConfig {
        d_model: s.d_model,
        n_heads: s.n_heads,
        d_ff: s.d_ff,
        n_layers: s.n_layers,
        dropout: 0.0,
        max_len: s.max_len,
        heads: HeadLayout::Vectorised,
        xavier_init: true,
        ..TransformerConfig::new(s.src_vocab, s.tgt_vocab)
    };
    manual_seed(s.seed as i128).unwrap();
    let model = Transformer::from_config(&cfg).unwrap();
    let initial: HashMap<String, Tensor> = fx.initial.tensors().into_iter().collect();
    for (name, p) in model.named_parameters() {
        assert_eq!(values(&p.tensor()), values(&initial[&name]), "initial {name}: Xavier draws bit for bit");
    }
    let adam = Adam::with_betas(model.parameters(), 1e-3, (0.9, 0.98), 1e-9).unwrap();
    let loss = CrossEntropyLoss::new().ignore_index(0).label_smoothing(s.label_smoothing).unwrap();
    let (train, valid) = (batches(&fx.pairs, &fx.batches), batches(&fx.pairs, &fx.valid));
    let mut sbs = StepByStep::with_loaders(model, loss, adam, train, Some(valid));
    sbs.schedule = Some(NoamSchedule::new(cfg.d_model, s.warmup, s.factor).unwrap());
    sbs.clip_grad_norm = Some(s.max_norm);
    sbs.threads = threads;
    sbs.progress_every = 0;
    sbs
}

#[test]
fn translation_training_is_pytorchs_on_whole_and_half_batches() {
    let _guard = common::serial(); // the default generator is shared by every test of this file
    let fx: TranslationFx = load_as("translation");
    for threads in [1, 2] {
        let mut sbs = trainer(&fx, threads);
        sbs.train(fx.sizes.epochs).unwrap();
        let what = format!("{threads} thread(s)");
        assert_close(&format!("{what}: epoch losses"), &sbs.losses, &fx.losses, 2e-6);
        assert_close(&format!("{what}: validation losses"), &sbs.val_losses, &fx.val_losses, 2e-6);
        let want: HashMap<String, Tensor> = fx.state.tensors().into_iter().collect();
        let mut max = 0f64;
        for (name, p) in sbs.model.named_parameters() {
            let diff = values(&p.tensor()).iter().zip(values(&want[&name])).fold(0f64, |m, (a, b)| m.max((a - b).abs()));
            // The key projections' biases have a true gradient of 0 (the softmax ignores a
            // constant added to every score of a query): Adam scales float32 noise up to about
            // the learning rate a step (see tests/transformer.rs). Everything else stays close.
            let tol = if name.ends_with("key.bias") { 4.0 * 0.21 } else { 2e-5 };
            assert!(diff <= tol, "{what}: {name} differs from PyTorch's by {diff:e}");
            if !name.ends_with("key.bias") {
                max = max.max(diff);
            }
        }
        assert_eq!(sbs.epoch_stats.len(), 2);
        let tokens: usize = fx.batches.len();
        assert!(sbs.epoch_stats.iter().all(|s| s.batches == tokens && s.tokens.is_some_and(|t| t > 0)), "{what}: stats");
        eprintln!("{what}: weights within {max:e} of PyTorch's");
    }
}

#[test]
fn a_batch_longer_than_max_len_stops_training_and_names_the_sizes() {
    let _guard = common::serial();
    let fx: TranslationFx = load_as("translation");
    let mut sbs = trainer(&fx, 1);
    let long: Vec<EncodedPair> = vec![((0..40).map(|i| 3 + i % 7).collect(), vec![1, 5, 2])];
    sbs.train_loader = Some(Fixed(vec![TranslationBatch::from_pairs(&long).unwrap()]));
    let before = values(&sbs.model.src_embedding.embedding.weight.tensor());
    let err = sbs.train(1).unwrap_err().to_string();
    for part in ["epoch 1", "training batch 1", "40", "32"] {
        assert!(err.contains(part), "`{part}` missing from: {err}");
    }
    assert_eq!(values(&sbs.model.src_embedding.embedding.weight.tensor()), before, "nothing changed");
    assert!(sbs.losses.is_empty() && sbs.total_epochs == 0);
}
