//! Statistics for comparing trainings: the two-sample Kolmogorov-Smirnov test (as scipy's
//! `ks_2samp`) and the seed-spread check of final losses over many model seeds.

pub mod ks;
pub mod spread;

pub use ks::{KsTest, ks_2samp, median};
pub use spread::{FinalLosses, SPREAD_ALPHA, SPREAD_MEDIAN_TOLERANCE, SeedSpread};
