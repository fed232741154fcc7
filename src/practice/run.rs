//! Running a student's code on the hidden cases: panics and errors caught as theirs, each result
//! held against the reference, the usual mistakes recognised, the outcome recorded.

pub(crate) use super::outcome::{Outcome, Verdict};

use super::Info;
use super::answer::{Answer, Tolerance};
pub(crate) use super::call::{Called, call};
use super::cases::{Case, KeptGenerator};
use super::diagnose::{self, Facts, Relation};
use super::probe;
pub(crate) use super::probe::Invariant;
use super::progress;
use candle_core::Result;
use std::time::Instant;

/// A usual mistake: the sentence that points at it, and the answer it gives on a case.
pub(crate) struct Mistake<I, A> {
    pub sentence: &'static str,
    pub answer: fn(&I) -> Result<A>,
}

impl<T> Called<T> {
    /// What the code returned, or what the student sees when it did not return: Not attempted
    /// for a `todo!()`, else Incorrect in `case` with the error or the panic's message.
    pub fn returned(self, case: &str) -> std::result::Result<T, Finding> {
        match self {
            Called::Returned(value) => Ok(value),
            Called::Todo => Err(Finding::with(Verdict::NotAttempted)),
            Called::Failed(e) => Err(Finding::incorrect(case.to_string(), format!("Your code returned an error: {e}"), None)),
            Called::Panicked(e) => Err(Finding::incorrect(case.to_string(), format!("Your code panicked: {e}"), None)),
        }
    }
}

/// The outcome of a check, before it is recorded.
pub(crate) struct Finding {
    pub verdict: Verdict,
    pub case: Option<String>,
    pub detail: Option<String>,
    pub advice: Option<String>,
    pub observed: Option<String>,
}

impl Finding {
    pub fn incorrect(case: String, detail: String, advice: Option<&'static str>) -> Finding {
        Finding { verdict: Verdict::Incorrect, case: Some(case), detail: Some(detail), advice: advice.map(str::to_string), observed: None }
    }

    pub fn with(verdict: Verdict) -> Finding {
        Finding { verdict, case: None, detail: None, advice: None, observed: None }
    }
}

/// What the student's code gave on one case, next to the reference's answer.
struct Ran<A> {
    label: String,
    called: Called<A>,
    want: A,
}

/// Runs the student's `f` on every case against `reference`, with the known mistakes and the
/// invariants a correct answer keeps (see [`Invariant`]); records and returns the outcome. A case
/// or reference that cannot be made is the crate's fault, said as such. Whatever the references
/// or the student's code draw from the default generator, the student's generator is as it was
/// afterwards.
pub(crate) fn check<I, A: Answer>(
    info: &Info,
    cases: Result<Vec<Case<I>>>,
    reference: impl Fn(&I) -> Result<A>,
    mistakes: &[Mistake<I, A>],
    invariants: &[Invariant<I>],
    tol: Tolerance,
    f: impl Fn(&I) -> Result<A>,
) -> Outcome {
    let start = Instant::now();
    let _kept = KeptGenerator::keep();
    let finding = run_cases(info, cases, reference, Known { mistakes, invariants }, tol, f);
    finish(info, finding, start)
}

/// What a check knows of the usual mistakes: the wrong answers they give, and the invariants a
/// correct answer keeps.
struct Known<'a, I, A> {
    mistakes: &'a [Mistake<I, A>],
    invariants: &'a [Invariant<I>],
}

/// Every case is run (not only up to the first that differs), so that the verdict and the
/// diagnosis see all of them.
fn run_cases<I, A: Answer>(
    info: &Info,
    cases: Result<Vec<Case<I>>>,
    reference: impl Fn(&I) -> Result<A>,
    known: Known<I, A>,
    tol: Tolerance,
    f: impl Fn(&I) -> Result<A>,
) -> (Finding, usize) {
    let cases = match cases {
        Ok(c) => c,
        Err(e) => return (internal(e), 0),
    };
    let n = cases.len();
    let mut ran = Vec::with_capacity(n);
    for (k, case) in cases.iter().enumerate() {
        let want = match call(|| reference(&case.input)) {
            Called::Returned(w) => w,
            Called::Failed(e) | Called::Panicked(e) => return (internal(e), n),
            Called::Todo => return (internal("the reference is not written"), n),
        };
        ran.push(Ran { label: format!("Case {} of {n}: {}.", k + 1, case.label), called: call(|| f(&case.input)), want });
    }
    if cfg!(debug_assertions) {
        audit(info, &cases, &ran, known.mistakes, tol);
        probe::audit(&cases, known.invariants, tol, &reference);
    }
    (judge(&cases, ran, known, tol, &f), n)
}

/// The known mistakes hold to the rules their sentences rely on (checked in debug builds, so in
/// every test that runs a check): each differs from the reference on some case, and each pair
/// differs from each other on some case. A sentence is given only when one mistake alone behaves
/// as the student's code; two that behave alike would leave both unsaid, and one that agrees with
/// the reference would be given to a correct answer.
fn audit<I, A: Answer>(info: &Info, cases: &[Case<I>], ran: &[Ran<A>], mistakes: &[Mistake<I, A>], tol: Tolerance) {
    let answers: Vec<Vec<Option<A>>> = mistakes
        .iter()
        .map(|m| {
            cases
                .iter()
                .map(|c| match call(|| (m.answer)(&c.input)) {
                    Called::Returned(a) => Some(a),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let same = |a: &[Option<A>], b: &[&A]| a.iter().zip(b).all(|(x, y)| x.as_ref().is_some_and(|x| x.matches(y, tol)));
    let wants: Vec<&A> = ran.iter().map(|r| &r.want).collect();
    let broken = super::rules::broken(cases, &wants);
    assert!(broken.is_empty(), "the hidden cases of {} share an accident: {}", info.id, broken.join("; "));
    for (m, a) in mistakes.iter().zip(&answers) {
        assert!(!same(a, &wants), "the mistake {:?} gives the reference's answer on every case", m.sentence);
    }
    for i in 0..mistakes.len() {
        for j in i + 1..mistakes.len() {
            let alike = answers[i].iter().zip(&answers[j]).all(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => x.matches(y, tol),
                (None, None) => true,
                _ => false,
            });
            assert!(
                !alike,
                "the mistakes {:?} and {:?} behave alike on every case: add a case that tells them apart",
                mistakes[i].sentence, mistakes[j].sentence
            );
        }
    }
}

/// The verdict over all cases: Not attempted when every case reaches the `todo!()`, Not finished
/// when some do, Incorrect at the first case that fails or differs (with the diagnosis), else
/// Correct.
fn judge<I, A: Answer>(cases: &[Case<I>], ran: Vec<Ran<A>>, known: Known<I, A>, tol: Tolerance, f: &dyn Fn(&I) -> Result<A>) -> Finding {
    let todo: Vec<usize> = ran.iter().enumerate().filter(|(_, r)| matches!(r.called, Called::Todo)).map(|(k, _)| k).collect();
    if todo.len() == ran.len() {
        return Finding::with(Verdict::NotAttempted);
    }
    if !todo.is_empty() {
        let reached: Vec<String> = todo.iter().map(|&k| format!("case {} ({})", k + 1, cases[k].label)).collect();
        return Finding {
            verdict: Verdict::NotFinished,
            case: None,
            detail: Some(format!(
                "Your code reaches a todo!() in {} of {} cases: {}. The other cases return.",
                todo.len(),
                ran.len(),
                reached.join("; ")
            )),
            advice: None,
            observed: None,
        };
    }
    // each case: what the student's code returned and how it differs, or what stopped it
    let results: Vec<std::result::Result<(&A, Option<String>), String>> = ran
        .iter()
        .map(|r| match &r.called {
            Called::Returned(got) => Ok((
                got,
                got.difference(&r.want, tol)
                    .unwrap_or_else(|e| Some(format!("your answer could not be compared with the reference's: {e}"))),
            )),
            Called::Failed(e) => Err(format!("Your code returned an error: {e}")),
            Called::Panicked(e) => Err(format!("Your code panicked: {e}")),
            Called::Todo => Err(String::new()),
        })
        .collect();
    let Some(first) = results.iter().position(|r| !matches!(r, Ok((_, None)))) else {
        return Finding::with(Verdict::Correct);
    };
    let detail = match &results[first] {
        Ok((_, Some(d))) => format!("The first difference: {d}."),
        Err(e) => e.clone(),
        Ok((_, None)) => unreachable!("the first case that does not agree"),
    };
    let answers: Vec<Option<&A>> = results.iter().map(|r| r.as_ref().ok().map(|(got, _)| *got)).collect();
    let advice = known_mistake(cases, &results, known.mistakes, tol).or_else(|| probe::broken(cases, &answers, known.invariants, tol, f));
    let observed = if advice.is_some() {
        None
    } else {
        // what the answer does, where it returned but differs
        let differing: Vec<usize> = results.iter().enumerate().filter(|(_, r)| matches!(r, Ok((_, Some(_))))).map(|(k, _)| k).collect();
        let per_case: Vec<(Vec<Relation>, &Facts)> = differing
            .iter()
            .map(|&k| (first_relations(results[k].as_ref().map(|(g, _)| *g).ok(), &ran[k].want, &cases[k].facts), &cases[k].facts))
            .collect();
        let failing: Vec<usize> = results.iter().enumerate().filter(|(_, r)| !matches!(r, Ok((_, None)))).map(|(k, _)| k).collect();
        (if differing.len() == failing.len() { diagnose::observation(&per_case) } else { None }).or_else(|| which_cases(cases, &failing))
    };
    Finding { verdict: Verdict::Incorrect, case: Some(ran[first].label.clone()), detail: Some(detail), advice, observed }
}

/// The sentence of the one known mistake that behaves as the student's code on every case (the
/// same answer where both return, or both stopped by an error or a panic), if exactly one does:
/// two that do the same on these cases are not told apart, and neither is named.
fn known_mistake<I, A: Answer>(
    cases: &[Case<I>],
    results: &[std::result::Result<(&A, Option<String>), String>],
    mistakes: &[Mistake<I, A>],
    tol: Tolerance,
) -> Option<String> {
    let agreeing: Vec<&Mistake<I, A>> = mistakes
        .iter()
        .filter(|m| {
            cases.iter().zip(results).all(|(case, result)| match (call(|| (m.answer)(&case.input)), result) {
                (Called::Returned(wrong), Ok((got, _))) => got.matches(&wrong, tol),
                (Called::Failed(_) | Called::Panicked(_), Err(_)) => true,
                _ => false,
            })
        })
        .collect();
    (agreeing.len() == 1).then(|| agreeing[0].sentence.to_string())
}

/// The relations between the first tensor of the answer that differs and the reference's.
fn first_relations<A: Answer>(got: Option<&A>, want: &A, facts: &Facts) -> Vec<Relation> {
    let Some(got) = got else {
        return vec![];
    };
    let (g, w) = (got.tensors(), want.tensors());
    for (a, b) in g.iter().zip(&w) {
        if a.dims() != b.dims() || !a.matches(b, Tolerance { atol: 1e-4, rtol: 1e-4 }) {
            return diagnose::relations(a, b, facts).unwrap_or_default();
        }
    }
    vec![]
}

/// When some cases agree and others do not: which differ, by their labels, which say what sets
/// each apart (a batch of one, one step, a pad id other than 0, ...).
fn which_cases<I>(cases: &[Case<I>], failing: &[usize]) -> Option<String> {
    if failing.len() == cases.len() || failing.is_empty() {
        return None;
    }
    let agree: Vec<String> = (0..cases.len()).filter(|k| !failing.contains(k)).map(|k| (k + 1).to_string()).collect();
    let differ: Vec<String> = failing.iter().map(|&k| format!("case {} ({})", k + 1, cases[k].label)).collect();
    Some(format!(
        "Case{} {} agree{} with the reference; only {} differ{}: look at what sets {} apart.",
        if agree.len() > 1 { "s" } else { "" },
        agree.join(", "),
        if agree.len() > 1 { "" } else { "s" },
        differ.join(" and "),
        if failing.len() > 1 { "" } else { "s" },
        if failing.len() > 1 { "them" } else { "it" }
    ))
}

/// The crate could not make a case or its reference: said as such, never as the student's fault.
pub(crate) fn internal(e: impl std::fmt::Display) -> Finding {
    Finding {
        verdict: Verdict::Incorrect,
        case: None,
        detail: Some(format!("The check itself failed (a bug of attention-zoo, not of your code): {e}")),
        advice: None,
        observed: None,
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
        observed: finding.observed,
        cases,
        elapsed: start.elapsed(),
    };
    progress::record(&outcome);
    outcome
}
