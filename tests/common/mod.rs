pub mod fixtures;
pub mod nbrun;
