//! The exercises, tested both ways: each solution checks Correct, each starter (`todo!()`) Not
//! attempted, and the wrong answers a student would plausibly write check Incorrect with the
//! sentence that points at their mistake. Then the machinery itself: panics and errors caught as
//! the student's, the progress file, hints and solutions as the crate's files have them.

mod attention;
mod blog;
mod framework;
mod gps;
mod self_attention;
mod seq2seq;
mod transformer;

use attention_zoo::practice::{Outcome, Verdict};

/// Asserts the outcome is Correct.
#[track_caller]
pub fn correct(outcome: Outcome) {
    assert_eq!(outcome.verdict, Verdict::Correct, "{outcome}");
}

/// Asserts the outcome is Not attempted.
#[track_caller]
pub fn not_attempted(outcome: Outcome) {
    assert_eq!(outcome.verdict, Verdict::NotAttempted, "{outcome}");
}

/// Asserts the outcome is Incorrect with a sentence for the mistake that contains `words`.
#[track_caller]
pub fn mistake(outcome: Outcome, words: &str) {
    assert_eq!(outcome.verdict, Verdict::Incorrect, "{outcome}");
    assert!(outcome.advice.is_some_and(|a| a.contains(words)), "expected advice with {words:?}:\n{outcome}");
    assert!(outcome.case.is_some() && outcome.detail.is_some(), "{outcome}");
}

/// Asserts the outcome is Incorrect, naming a case and a difference, with no targeted sentence.
#[track_caller]
pub fn incorrect(outcome: Outcome, detail: &str) {
    assert_eq!(outcome.verdict, Verdict::Incorrect, "{outcome}");
    assert!(outcome.detail.as_deref().is_some_and(|d| d.contains(detail)), "expected {detail:?} in the detail:\n{outcome}");
}
