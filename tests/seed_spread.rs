//! The seed-spread check's parts against their oracles (tools/fixtures/seed_spread.py): our
//! `ks_2samp` against scipy's, and the lecture recipes against PyTorch's runs for the recipes that
//! do not amplify rounding. The check itself (every recipe over 24 seeds) runs in `make seeds`.

use crate::common;
/// The lecture's recipes, as the bench runs them.
#[path = "../examples/bench/recipes.rs"]
#[allow(dead_code)]
mod recipes;

use attention_zoo::prelude::*;
use attention_zoo::train::{SPREAD_ALPHA, SPREAD_MEDIAN_TOLERANCE, median};
use common::fixtures::load_as;
use recipes::LectureRecipe;
use serde::Deserialize;
use std::collections::HashMap;

/// `tests/fixtures/seed_spread.json` (tools/fixtures/seed_spread.py).
#[derive(Deserialize)]
struct SeedSpreadFx {
    /// scipy's `ks_2samp` on samples of equal and unequal sizes, with ties.
    ks_2samp: Vec<KsCase>,
    /// PyTorch's final losses of each recipe, by recipe name.
    runs: HashMap<String, Runs>,
}

#[derive(Deserialize)]
struct KsCase {
    a: Vec<f64>,
    b: Vec<f64>,
    statistic: f64,
    pvalue: f64,
}

/// One recipe over many model seeds: the seeds and the last epoch's losses, seed by seed.
#[derive(Deserialize)]
struct Runs {
    seeds: Vec<i64>,
    loss: Vec<f64>,
    val_loss: Vec<f64>,
}

fn fixture() -> SeedSpreadFx {
    load_as("seed_spread")
}

#[test]
fn ks_2samp_equals_scipy() {
    let cases = fixture().ks_2samp;
    assert!(cases.len() >= 7);
    for (i, case) in cases.iter().enumerate() {
        let (a, b) = (&case.a, &case.b);
        let got = ks_2samp(a, b).unwrap();
        let (d, p) = (case.statistic, case.pvalue);
        assert!((got.statistic - d).abs() <= 1e-15, "case {i} ({} vs {}): D {} expected {d}", a.len(), b.len(), got.statistic);
        assert!(
            (got.pvalue - p).abs() <= 1e-12 * p.max(1e-300) + 1e-15,
            "case {i} ({} vs {}): p {} expected {p}",
            a.len(),
            b.len(),
            got.pvalue
        );
        // Symmetric in its samples.
        assert_eq!(ks_2samp(b, a).unwrap(), got);
    }
}

#[test]
fn ks_2samp_and_median_refuse_empty_or_nan_samples() {
    let err = ks_2samp(&[], &[1.0]).unwrap_err().to_string();
    assert!(err.contains("ks_2samp") && err.contains("first sample is empty"), "{err}");
    let err = ks_2samp(&[1.0], &[f64::NAN]).unwrap_err().to_string();
    assert!(err.contains("second sample holds a NaN"), "{err}");
    assert!(median(&[]).is_err());
    assert_eq!(median(&[3.0, 1.0, 2.0]).unwrap(), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]).unwrap(), 2.5);
}

#[test]
fn the_check_accepts_pytorch_against_itself_and_refuses_a_shifted_copy() {
    let runs = fixture().runs;
    let theirs = runs["selfattn"].loss.clone();
    let same = SeedSpread::new("selfattn", theirs.clone(), theirs.clone()).unwrap();
    assert!(same.passes() && same.ks.pvalue == 1.0 && same.median_gap() == 0.0);
    let shifted: Vec<f64> = theirs.iter().map(|v| v * (1.0 + 2.0 * SPREAD_MEDIAN_TOLERANCE)).collect();
    let s = SeedSpread::new("selfattn", shifted, theirs).unwrap();
    assert!(!s.passes(), "a copy 50% higher passed: p {} gap {}", s.ks.pvalue, s.median_gap());
    assert!(s.ks.pvalue < SPREAD_ALPHA);
    // Chance: losses within 10% of each other can never be 25% apart in median; PyTorch's own
    // self-attention losses, split in two at random, often are.
    let tight: Vec<f64> = (0..24).map(|i| 1.0 + 0.004 * i as f64).collect();
    let t = SeedSpread::new("tight", tight.clone(), tight).unwrap();
    assert_eq!(t.chance_of_median_gap(500, 0).unwrap(), 0.0);
    assert!(t.chance_of_median_gap(0, 0).is_err());
    let pe = &runs["selfattn_pe"].loss;
    let (a, b) = pe.split_at(pe.len() / 2);
    let chance = SeedSpread::new("selfattn_pe", a.to_vec(), b.to_vec()).unwrap().chance_of_median_gap(2000, 0).unwrap();
    assert!(chance > 0.2, "chance {chance}");
}

/// The GRU encoder-decoder and its attention version do not amplify rounding: trained from
/// PyTorch's initial weights, they end on PyTorch's final losses seed by seed, which shows the
/// recipe (data, loaders, seeds, optimiser) is the lecture's.
#[test]
fn the_recurrent_recipes_end_on_pytorchs_losses_seed_by_seed() {
    let _serial = common::serial();
    let runs = fixture().runs;
    for recipe in [LectureRecipe::Seq2Seq, LectureRecipe::Attention] {
        let run = &runs[recipe.name()];
        let (seeds, want) = (&run.seeds, (&run.loss, &run.val_loss));
        for i in [0, 5] {
            let got = recipe.train(seeds[i] as i128, 100).unwrap();
            assert!((got.loss - want.0[i]).abs() <= 1e-5, "{} seed {}: loss {} expected {}", recipe.name(), seeds[i], got.loss, want.0[i]);
            assert!(
                (got.val_loss - want.1[i]).abs() <= 1e-5,
                "{} seed {}: validation loss {} expected {}",
                recipe.name(),
                seeds[i],
                got.val_loss,
                want.1[i]
            );
        }
    }
    assert!(LectureRecipe::Seq2Seq.train(0, 0).is_err());
}
