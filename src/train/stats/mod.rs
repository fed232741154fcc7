//! Statistics for comparing trainings: the two-sample Kolmogorov-Smirnov test (as scipy's
//! `ks_2samp`) and the seed-spread check of final losses over many model seeds.

pub(crate) mod ks;
pub(crate) mod spread;

pub use ks::{KS_MAX_EXACT, KsTest, ks_2samp, median};
pub use spread::{FinalLosses, SPREAD_ALPHA, SPREAD_MEDIAN_TOLERANCE, SeedSpread};
