//! Running a student's code on the hidden cases: panics and errors caught as theirs, each result
//! held against the reference, the usual mistakes recognised, the outcome recorded.

pub(crate) use super::outcome::{Outcome, Verdict};

use super::Info;
use super::answer::{Answer, Tolerance};
use super::cases::{Case, KeptGenerator};
use super::progress;
use candle_core::Result;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::time::Instant;

/// A usual mistake: the sentence that points at it, and the answer it gives on a case.
pub(crate) struct Mistake<I, A> {
    pub sentence: &'static str,
    pub answer: fn(&I) -> Result<A>,
}

/// What calling the student's code gave.
pub(crate) enum Called<T> {
    Returned(T),
    Failed(String),
    Todo,
    Panicked(String),
}

impl<T> Called<T> {
    /// What the code returned, or what the student sees when it did not return: Not attempted
    /// for a `todo!()`, else Incorrect in `case` with the error or the panic's message.
    pub fn returned(self, case: &str) -> std::result::Result<T, Finding> {
        match self {
            Called::Returned(value) => Ok(value),
            Called::Todo => Err(Finding { verdict: Verdict::NotAttempted, case: None, detail: None, advice: None }),
            Called::Failed(e) => Err(Finding::incorrect(case.to_string(), format!("Your code returned an error: {e}"), None)),
            Called::Panicked(e) => Err(Finding::incorrect(case.to_string(), format!("Your code panicked: {e}"), None)),
        }
    }
}

/// The panic's message, when it has one.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs `f`, catching a panic. While it runs the panic hook prints nothing, so a student's panic
/// is shown once, in the outcome; the hook is put back before this returns. The lock keeps two
/// checks on two threads from swapping the hook in between each other.
pub(crate) fn call<T>(f: impl FnOnce() -> Result<T>) -> Called<T> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match result {
        Ok(Ok(value)) => Called::Returned(value),
        Ok(Err(e)) => Called::Failed(e.to_string()),
        Err(payload) => {
            let text = message(payload.as_ref());
            if text.starts_with("not yet implemented") || text.starts_with("not implemented") {
                Called::Todo
            } else {
                Called::Panicked(text)
            }
        }
    }
}

/// The outcome of a check, before it is recorded.
pub(crate) struct Finding {
    pub verdict: Verdict,
    pub case: Option<String>,
    pub detail: Option<String>,
    pub advice: Option<&'static str>,
}

impl Finding {
    pub fn incorrect(case: String, detail: String, advice: Option<&'static str>) -> Finding {
        Finding { verdict: Verdict::Incorrect, case: Some(case), detail: Some(detail), advice }
    }
}

/// What one case gave: `None` when it agreed with the reference.
fn judge<I, A: Answer>(
    case: &Case<I>,
    label: String,
    called: Called<A>,
    want: &A,
    mistakes: &[Mistake<I, A>],
    tol: Tolerance,
) -> Option<Finding> {
    let got = match called.returned(&label) {
        Ok(got) => got,
        Err(finding) => return Some(finding),
    };
    let difference = match got.difference(want, tol) {
        Ok(d) => d?,
        Err(e) => format!("your answer could not be compared with the reference's: {e}"),
    };
    // a mistake's answer that fails or panics (the student's answer may be far off) matches nothing
    let advice = mistakes
        .iter()
        .find(|m| matches!(call(|| (m.answer)(&case.input)), Called::Returned(wrong) if got.matches(&wrong, tol)))
        .map(|m| m.sentence);
    Some(Finding::incorrect(label, format!("The first difference: {difference}."), advice))
}

/// Runs the student's `f` on every case against `reference`; records and returns the outcome.
/// A case or reference that cannot be made is the crate's fault, said as such. Whatever the
/// references or the student's code draw from the default generator, the student's generator is
/// as it was afterwards.
pub(crate) fn check<I, A: Answer>(
    info: &Info,
    cases: Result<Vec<Case<I>>>,
    reference: impl Fn(&I) -> Result<A>,
    mistakes: &[Mistake<I, A>],
    tol: Tolerance,
    f: impl Fn(&I) -> Result<A>,
) -> Outcome {
    let start = Instant::now();
    let _kept = KeptGenerator::keep();
    let finding = run_cases(cases, reference, mistakes, tol, f);
    finish(info, finding, start)
}

fn run_cases<I, A: Answer>(
    cases: Result<Vec<Case<I>>>,
    reference: impl Fn(&I) -> Result<A>,
    mistakes: &[Mistake<I, A>],
    tol: Tolerance,
    f: impl Fn(&I) -> Result<A>,
) -> (Finding, usize) {
    let cases = match cases {
        Ok(c) => c,
        Err(e) => return (internal(e), 0),
    };
    let n = cases.len();
    for (k, case) in cases.iter().enumerate() {
        let label = format!("Case {} of {n}: {}.", k + 1, case.label);
        let want = match call(|| reference(&case.input)) {
            Called::Returned(w) => w,
            Called::Failed(e) | Called::Panicked(e) => return (internal(e), n),
            Called::Todo => return (internal("the reference is not written"), n),
        };
        let called = call(|| f(&case.input));
        if let Some(finding) = judge(case, label, called, &want, mistakes, tol) {
            return (finding, n);
        }
    }
    (Finding { verdict: Verdict::Correct, case: None, detail: None, advice: None }, n)
}

/// The crate could not make a case or its reference: said as such, never as the student's fault.
pub(crate) fn internal(e: impl std::fmt::Display) -> Finding {
    Finding {
        verdict: Verdict::Incorrect,
        case: None,
        detail: Some(format!("The check itself failed (a bug of attention-zoo, not of your code): {e}")),
        advice: None,
    }
}

/// The outcome of a finding: recorded in the progress file, then returned.
pub(crate) fn finish(info: &Info, (finding, cases): (Finding, usize), start: Instant) -> Outcome {
    let outcome = Outcome {
        info: *info,
        verdict: finding.verdict,
        case: finding.case,
        detail: finding.detail,
        advice: finding.advice,
        cases,
        elapsed: start.elapsed(),
    };
    progress::record(&outcome);
    outcome
}
