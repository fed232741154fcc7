//! The one switch that shortens trainings for the `cargo test` pass over the notebooks (where
//! the crate is built without optimisation): the environment variable [`QUICK_ENV`] set to `1`
//! makes new trainers start with [`StepByStep::max_batches`](super::StepByStep::max_batches) at
//! [`QUICK_BATCHES`] and new translators with
//! [`Translator::max_pairs`](super::Translator::max_pairs) at [`QUICK_PAIRS`]. Both are ordinary
//! settings, printed when they cut anything; `make notebooks` leaves the variable unset, so the
//! real kernel runs every training in full.

/// The environment variable of the quick switch.
pub const QUICK_ENV: &str = "ATTENTION_ZOO_QUICK";
/// Batches an epoch (training and validation each) in a quick run.
pub const QUICK_BATCHES: usize = 3;
/// Sentence pairs [`Translator::bleu`](super::Translator::bleu) scores in a quick run.
pub const QUICK_PAIRS: usize = 16;

/// Whether this is a quick run ([`QUICK_ENV`] set to `1`).
pub fn quick_run() -> bool {
    std::env::var(QUICK_ENV).is_ok_and(|v| v == "1")
}

/// `Some(n)` in a quick run, `None` otherwise: the default of a limit that the quick switch sets.
pub(crate) fn quick_limit(n: usize) -> Option<usize> {
    quick_run().then_some(n)
}
