//! The check that the final losses of many trainings (one per model seed) spread as PyTorch's
//! do; `make seeds` runs it on the lecture's four trainings (`examples/bench/recipes.rs`). The self-attention trainings amplify float32 rounding:
//! one run ends wherever rounding sends it, in PyTorch as here, so a run is not compared with a
//! run; the distributions are.

use super::ks::{KsTest, ks_2samp, median};
use crate::repro::Generator;
use candle_core::{Error, Result};

/// The significance level of the seed-spread check.
pub const SPREAD_ALPHA: f64 = 0.05;
/// How far our median final loss may be from PyTorch's, relative to PyTorch's.
pub const SPREAD_MEDIAN_TOLERANCE: f64 = 0.25;

/// The last epoch's mean training and validation losses of one training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalLosses {
    pub loss: f64,
    pub val_loss: f64,
}

/// Our final losses of one recipe over many seeds against PyTorch's.
#[derive(Clone, Debug)]
pub struct SeedSpread {
    pub name: String,
    pub ours: Vec<f64>,
    pub pytorch: Vec<f64>,
    pub ks: KsTest,
    pub median_ours: f64,
    pub median_pytorch: f64,
}

impl SeedSpread {
    /// Compares the two samples: the two-sample Kolmogorov-Smirnov test and both medians.
    pub fn new(name: impl Into<String>, ours: Vec<f64>, pytorch: Vec<f64>) -> Result<Self> {
        let ks = ks_2samp(&ours, &pytorch)?;
        let (median_ours, median_pytorch) = (median(&ours)?, median(&pytorch)?);
        Ok(Self { name: name.into(), ours, pytorch, ks, median_ours, median_pytorch })
    }

    /// |median ours - median PyTorch| / median PyTorch: 0 when the medians are equal (both 0
    /// included), infinite when only PyTorch's is 0.
    pub fn median_gap(&self) -> f64 {
        let gap = (self.median_ours - self.median_pytorch).abs();
        if gap == 0.0 { 0.0 } else { gap / self.median_pytorch.abs() }
    }

    /// The check: the KS test keeps "same distribution" at [`SPREAD_ALPHA`] and the medians are
    /// within [`SPREAD_MEDIAN_TOLERANCE`].
    pub fn passes(&self) -> bool {
        self.ks.same_distribution(SPREAD_ALPHA) && self.median_gap() <= SPREAD_MEDIAN_TOLERANCE
    }

    /// How often chance alone puts the medians further apart than [`SPREAD_MEDIAN_TOLERANCE`]:
    /// both samples pooled, as if they came from one distribution, then `draws` times shuffled
    /// (a generator seeded `seed`) and cut into two samples of the same sizes again. A large value
    /// says the medians of this many seeds are too unsettled for the tolerance to tell anything.
    pub fn chance_of_median_gap(&self, draws: usize, seed: u64) -> Result<f64> {
        if draws == 0 {
            return Err(Error::Msg("SeedSpread::chance_of_median_gap: draws must be at least 1".into()));
        }
        let pooled: Vec<f64> = self.ours.iter().chain(&self.pytorch).copied().collect();
        let mut g = Generator::new(seed);
        let mut over = 0;
        for _ in 0..draws {
            let order = g.randperm(pooled.len());
            let (a, b): (Vec<f64>, Vec<f64>) = (
                order[..self.ours.len()].iter().map(|&i| pooled[i]).collect(),
                order[self.ours.len()..].iter().map(|&i| pooled[i]).collect(),
            );
            let (ma, mb) = (median(&a)?, median(&b)?);
            if (ma - mb).abs() > SPREAD_MEDIAN_TOLERANCE * mb.abs() {
                over += 1;
            }
        }
        Ok(over as f64 / draws as f64)
    }
}
