//! `make bench`: trains the lecture's models with this crate and prints one JSON line per model
//! (seconds, final losses). `tools/bench.py` runs the same trainings in PyTorch and compares.
//! Run with RAYON_NUM_THREADS=1 (the Makefile does).

use attention_zoo::prelude::*;
use std::time::Instant;

/// Trains a lecture model for 100 epochs on the squares (Adam 0.01, MSE, batches of 16; the
/// model is made right after `manual_seed(seed)`); returns (seconds, final loss, final
/// validation loss).
fn train_lecture<M: Model>(seed: i128, make: impl Fn() -> Result<M>) -> Result<(f64, f64, f64)> {
    let full_train = generate_sequences(256, false, 13)?.to_tensor()?;
    let full_test = generate_sequences(128, false, 19)?.to_tensor()?;
    let train = TensorDataset::new(&full_train, &full_train.narrow(1, 2, 2)?)?;
    let test = TensorDataset::new(&full_test.narrow(1, 0, 2)?, &full_test.narrow(1, 2, 2)?)?;
    manual_seed(seed)?;
    let model = make()?;
    let optimizer = Adam::new(model.parameters(), 0.01)?;
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    sbs.progress_every = 0;
    sbs.set_loaders(DataLoader::shuffled(train, 16, Generator::default())?, Some(DataLoader::new(test, 16)?));
    let start = Instant::now();
    sbs.train(100)?;
    Ok((start.elapsed().as_secs_f64(), sbs.losses[99], sbs.val_losses[99]))
}

/// The translation bench: one epoch of notebook 04's training (the generated corpus, batches of 32
/// by similar length, `TransformerConfig::small`, Adam with the warm-up schedule) through
/// `StepByStep`. Writes the epoch's batches and the settings to `batches_json`, so that
/// `tools/bench.py` trains PyTorch's model on exactly the same batches; returns (seconds,
/// target tokens, mean loss).
fn train_translation(batches_json: &str) -> Result<(f64, usize, f64)> {
    let corpus = generate_corpus(&CorpusConfig::default())?;
    let src_vocab = Vocab::build(corpus.train.iter().map(|(de, _)| tokenize(de)), 1, None)?;
    let tgt_vocab = Vocab::build(corpus.train.iter().map(|(_, en)| tokenize(en)), 1, None)?;
    let train = encode_pairs(&corpus.train, &src_vocab, &tgt_vocab, false);
    let cfg = TransformerConfig::small(src_vocab.len(), tgt_vocab.len());
    let (seed, batch_size, warmup, factor) = (0u64, 32, 400, 0.32);
    let loader = BucketIterator::new(train, batch_size, Some(cfg.max_len), seed)?;
    let mut peek = loader.clone();
    peek.manual_seed(seed);
    let batches: Vec<String> = peek
        .epoch_indices()
        .iter()
        .map(|b| {
            let rows = |side: fn(&EncodedPair) -> &Vec<u32>| format!("{:?}", b.iter().map(|&i| side(&peek.pairs()[i])).collect::<Vec<_>>());
            format!("{{\"src\": {}, \"tgt\": {}}}", rows(|p| &p.0), rows(|p| &p.1))
        })
        .collect();
    let settings = format!(
        "{{\"seed\": {seed}, \"src_vocab\": {}, \"tgt_vocab\": {}, \"d_model\": {}, \"n_heads\": {}, \"d_ff\": {}, \"n_layers\": {}, \"max_len\": {}, \"warmup\": {warmup}, \"factor\": {factor}, \"batches\": [{}]}}",
        cfg.src_vocab,
        cfg.tgt_vocab,
        cfg.d_model,
        cfg.n_heads,
        cfg.d_ff,
        cfg.n_layers,
        cfg.max_len,
        batches.join(",\n")
    );
    std::fs::write(batches_json, settings).map_err(|e| candle_core::Error::Msg(format!("{batches_json}: {e}")))?;
    manual_seed(seed as i128)?;
    let model = Transformer::from_config(&cfg)?;
    let optimizer = Adam::with_betas(model.parameters(), 1e-3, (0.9, 0.98), 1e-9)?;
    let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(0), optimizer, loader, None);
    sbs.schedule = Some(NoamSchedule::new(cfg.d_model, warmup, factor)?);
    sbs.progress_every = 0;
    sbs.threads = 2;
    sbs.set_seed(seed)?;
    sbs.train(1)?;
    let stats = &sbs.epoch_stats[0];
    Ok((stats.seconds, stats.tokens.unwrap_or(0), sbs.losses[0]))
}

fn main() -> Result<()> {
    let which: Vec<String> = std::env::args().skip(1).collect();
    let run = |name: &str| which.is_empty() || which.iter().any(|w| w == name);
    let report = |name: &str, (secs, loss, val): (f64, f64, f64)| {
        println!("{{\"model\": \"{name}\", \"seconds\": {secs:.4}, \"loss\": {loss:.6}, \"val_loss\": {val:.6}}}");
    };
    if run("seq2seq") {
        report("seq2seq", train_lecture(23, || EncoderDecoder::new(Encoder::new(2, 2)?, Decoder::new(2, 2)?, 2, 2, 0.5))?);
    }
    if run("attention") {
        report("attention", train_lecture(23, || EncoderDecoderAttn::new(Encoder::new(2, 2)?, DecoderAttn::new(2, 2)?, 2, 2, 0.5))?);
    }
    if run("selfattn") {
        report(
            "selfattn",
            train_lecture(23, || {
                EncoderDecoderSelfAttn::new(EncoderSelfAttn::new(3, 2, 10, Some(2))?, DecoderSelfAttn::new(3, 2, 10, Some(2))?, 2, 2)
            })?,
        );
    }
    if let Some(path) = which.iter().find_map(|w| w.strip_prefix("translation=")) {
        let (secs, tokens, loss) = train_translation(path)?;
        println!("{{\"model\": \"translation\", \"seconds\": {secs:.4}, \"tokens\": {tokens}, \"loss\": {loss:.6}}}");
        return Ok(());
    }
    if run("selfattn_pe") {
        report(
            "selfattn_pe",
            train_lecture(43, || {
                EncoderDecoderSelfAttn::new(EncoderPe::new(3, 2, 10, Some(2), 100)?, DecoderPe::new(3, 2, 10, Some(2), 100)?, 2, 2)
            })?,
        );
    }
    Ok(())
}
