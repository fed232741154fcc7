//! `make bench`: trains the lecture's models with this crate and prints one JSON line per model
//! (seconds, final losses). `tools/bench.py` runs the same trainings in PyTorch and compares.
//! `bench seeds=tests/fixtures/seed_spread.json` (`make seeds`, part of `make bench`) trains them
//! over many seeds and checks that the final losses spread as PyTorch's.
//! Run with RAYON_NUM_THREADS=1 (the Makefile does).

mod recipes;

use attention_zoo::prelude::*;
use recipes::LectureRecipe;
use std::time::Instant;

/// Trains a lecture recipe for 100 epochs, its model made right after `manual_seed` with the
/// lecture's seed; returns (seconds, final loss, final validation loss).
fn train_lecture(recipe: LectureRecipe) -> Result<(f64, f64, f64)> {
    let start = Instant::now();
    let last = recipe.train(recipe.lecture_seed(), 100)?;
    Ok((start.elapsed().as_secs_f64(), last.loss, last.val_loss))
}

/// The seed-spread check: every lecture recipe trained for the model seeds of the PyTorch
/// fixture at `path` (tests/fixtures/seed_spread.json); our final losses against PyTorch's, by a
/// two-sample Kolmogorov-Smirnov test at 5% and medians within 25%. Prints a table; errors when
/// a recipe fails the check.
fn seed_spread(path: &str) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| candle_core::Error::Msg(format!("{path}: {e}")))?;
    let fixture: serde_json::Value = serde_json::from_str(&text).map_err(|e| candle_core::Error::Msg(format!("{path}: {e}")))?;
    let numbers =
        |v: &serde_json::Value| v.as_array().map(|a| a.iter().filter_map(|x| x.as_f64()).collect::<Vec<f64>>()).unwrap_or_default();
    let epochs = fixture["epochs"].as_u64().unwrap_or(100) as usize;
    println!("seed spread: {epochs} epochs, the lecture's recipe but for the model seed (ours on one thread)");
    println!(
        "{:<12}{:>6}{:>7}{:>9}{:>9}{:>13}{:>10}{:>8}{:>8}{:>9}  verdict",
        "model", "seeds", "losses", "KS D", "p-value", "median ours", "PyTorch", "gap", "chance", "seconds"
    );
    let mut failed = Vec::new();
    for recipe in LectureRecipe::ALL {
        let seeds: Vec<i128> = numbers(&fixture["runs"][recipe.name()]["seeds"]).iter().map(|&s| s as i128).collect();
        let start = Instant::now();
        let runs = seeds.iter().map(|&s| recipe.train(s, epochs)).collect::<Result<Vec<_>>>()?;
        let secs = start.elapsed().as_secs_f64();
        for (which, ours) in
            [("loss", runs.iter().map(|r| r.loss).collect::<Vec<_>>()), ("val_loss", runs.iter().map(|r| r.val_loss).collect())]
        {
            let theirs = numbers(&fixture["runs"][recipe.name()][which]);
            let s = SeedSpread::new(recipe.name(), ours, theirs)?;
            let verdict = if s.passes() { "same" } else { "DIFFERENT" };
            println!(
                "{:<12}{:>6}{:>7}{:>9.4}{:>9.4}{:>13.3e}{:>10.3e}{:>7.1}%{:>7.0}%{:>9.1}  {verdict}",
                recipe.name(),
                seeds.len(),
                if which == "loss" { "train" } else { "valid" },
                s.ks.statistic,
                s.ks.pvalue,
                s.median_ours,
                s.median_pytorch,
                100.0 * s.median_gap(),
                100.0 * s.chance_of_median_gap(10_000, 0)?,
                secs
            );
            if !s.passes() {
                failed.push(format!("{} ({which})", recipe.name()));
            }
        }
    }
    println!("(chance: how often two samples of these sizes, drawn from both pooled, differ by more than 25% in median)");
    if failed.is_empty() {
        println!("seed spread: all four recipes end as PyTorch's do (KS at 5%, medians within 25%)");
        Ok(())
    } else {
        Err(candle_core::Error::Msg(format!("seed spread: our final losses differ from PyTorch's for {}", failed.join(", "))))
    }
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
    if let Some(path) = which.iter().find_map(|w| w.strip_prefix("translation=")) {
        let (secs, tokens, loss) = train_translation(path)?;
        println!("{{\"model\": \"translation\", \"seconds\": {secs:.4}, \"tokens\": {tokens}, \"loss\": {loss:.6}}}");
        return Ok(());
    }
    if let Some(path) = which.iter().find_map(|w| w.strip_prefix("seeds=")) {
        return seed_spread(path);
    }
    for recipe in LectureRecipe::ALL {
        if run(recipe.name()) {
            report(recipe.name(), train_lecture(recipe)?);
        }
    }
    Ok(())
}
