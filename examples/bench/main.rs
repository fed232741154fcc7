//! `make bench`: trains the lecture's models with this crate and prints one JSON line per model
//! (seconds, final losses). `tools/bench.py` runs the same trainings in PyTorch and compares.
//! `bench seeds=tests/fixtures/seed_spread.json` (`make seeds`, part of `make bench`) trains them
//! over many seeds and checks that the final losses spread as PyTorch's.
//! `bench translation=KIND:PATH` trains one epoch of a translator (`translation.rs`); `bench
//! peak=THREADS` measures the FMA peak on the widest vectors the CPU has and `bench vector` names
//! them (`peak.rs`); `bench passes=THREADS:VALUES` times the passes over the parameters that set a
//! floor under each training step (`floors.rs`); `bench scale=..` and `bench scale-decode=..`
//! train and decode larger Transformers for `make bench-scale` (`scale.rs`). Run with RAYON_NUM_THREADS=1 (the Makefile does).

mod floors;
mod peak;
mod products;
mod recipes;
mod scale;
mod translation;

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

fn main() -> Result<()> {
    // as the notebook kernel does (attention_zoo::tuning); the README's speeds are measured so
    attention_zoo::tuning::keep_freed_memory();
    let which: Vec<String> = std::env::args().skip(1).collect();
    let run = |name: &str| which.is_empty() || which.iter().any(|w| w == name);
    let report = |name: &str, (secs, loss, val): (f64, f64, f64)| {
        println!("{{\"model\": \"{name}\", \"seconds\": {secs:.4}, \"loss\": {loss:.6}, \"val_loss\": {val:.6}}}");
    };
    if let Some(spec) = which.iter().find_map(|w| w.strip_prefix("translation=")) {
        // KIND:PATH; a bare PATH is the Transformer
        let (kind, path) = spec.split_once(':').unwrap_or(("transformer", spec));
        let e = translation::train_translation(translation::Kind::parse(kind)?, path)?;
        println!(
            "{{\"model\": \"{kind}\", \"seconds\": {:.4}, \"tokens\": {}, \"loss\": {:.6}, \"greedy_seconds\": {:.4}, \"greedy_tokens\": {}, \"beam_seconds\": {:.4}, \"beam_tokens\": {}}}",
            e.seconds, e.tokens, e.loss, e.greedy.seconds, e.greedy.tokens, e.beam.seconds, e.beam.tokens
        );
        return Ok(());
    }
    for (mode, run) in [("scale=", scale::train as fn(&scale::Size, &str) -> Result<()>), ("scale-decode=", scale::decode)] {
        if let Some((size, path)) = which.iter().find_map(|w| w.strip_prefix(mode)).and_then(|s| s.split_once(':')) {
            return run(&scale::Size::parse(size)?, path);
        }
    }
    if let Some((results, svg)) = which.iter().find_map(|w| w.strip_prefix("scale-plot=")).and_then(|s| s.split_once(':')) {
        return scale::plot(results, svg);
    }
    if which.iter().any(|w| w == "vector") {
        println!("{{\"vector\": \"{}\"}}", peak::vector_width());
        return Ok(());
    }
    if let Some(threads) = which.iter().find_map(|w| w.strip_prefix("peak=")) {
        let threads = threads.parse().map_err(|_| candle_core::Error::Msg(format!("bench: peak=THREADS, got {threads}")))?;
        let (gflops, ghz) = (peak::fma_peak(threads), peak::clock_ghz());
        let rate = peak::fmas_per_cycle(gflops / threads as f64, ghz);
        println!(
            "{{\"peak_gflops\": {gflops:.2}, \"threads\": {threads}, \"vector\": \"{}\", \"lanes\": {}, \"clock_ghz\": {ghz:.3}, \"fmas_per_cycle\": {rate:.2}}}",
            peak::vector_width(),
            peak::lanes()
        );
        return Ok(());
    }
    if let Some((threads, values)) = which.iter().find_map(|w| w.strip_prefix("passes=")).and_then(|s| s.split_once(':')) {
        let (Ok(threads), Ok(values)) = (threads.parse(), values.parse()) else {
            return Err(candle_core::Error::Msg(format!("bench: passes=THREADS:VALUES, got {threads}:{values}")));
        };
        return floors::passes(threads, values);
    }
    if let Some((threads, path)) = which.iter().find_map(|w| w.strip_prefix("products=")).and_then(|s| s.split_once(':')) {
        let threads = threads.parse().map_err(|_| candle_core::Error::Msg(format!("bench: products=THREADS:PATH, got {threads}")))?;
        return products::products(threads, path);
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
