//! Probes of the student's function itself, beyond its answers on the cases: an answer that must
//! not change when part of the input changes (a prediction loop given another target, which it
//! must never read). Where a probe shows the code breaking its invariant, the sentence says what
//! the code does, whatever the numbers are.

use super::answer::{Answer, Tolerance};
use super::call::{Called, call};
use super::cases::Case;
use candle_core::Result;

/// An invariant of the exercise: `vary` changes a case's input where the answer must not depend
/// on it; the sentence says what the code reads that it must not.
pub(crate) struct Invariant<I> {
    pub sentence: &'static str,
    pub vary: fn(&I) -> Result<I>,
}

/// The sentence of the one invariant the student's `f` breaks, if exactly one does: on some case
/// where `f` returned (`answers`, what it gave on each case), it returns another answer for the
/// varied input.
pub(crate) fn broken<I, A: Answer>(
    cases: &[Case<I>],
    answers: &[Option<&A>],
    invariants: &[Invariant<I>],
    tol: Tolerance,
    f: &dyn Fn(&I) -> Result<A>,
) -> Option<String> {
    let breaks = |inv: &Invariant<I>| {
        cases.iter().zip(answers).any(|(case, answer)| {
            let (Some(answer), Ok(varied)) = (answer, (inv.vary)(&case.input)) else {
                return false;
            };
            matches!(call(|| f(&varied)), Called::Returned(b) if !answer.matches(&b, tol))
        })
    };
    let broken: Vec<&Invariant<I>> = invariants.iter().filter(|inv| breaks(inv)).collect();
    (broken.len() == 1).then(|| broken[0].sentence.to_string())
}

/// The reference keeps every invariant on every case (checked in debug builds): a probe the
/// reference fails would blame a correct answer.
pub(crate) fn audit<I, A: Answer>(cases: &[Case<I>], invariants: &[Invariant<I>], tol: Tolerance, reference: &dyn Fn(&I) -> Result<A>) {
    for inv in invariants {
        for case in cases {
            let varied = (inv.vary)(&case.input).expect("a varied input");
            let (a, b) = (reference(&case.input).expect("the reference"), reference(&varied).expect("the reference, varied"));
            assert!(a.matches(&b, tol), "the reference breaks the invariant {:?} on {}", inv.sentence, case.label);
        }
    }
}
