//! Wrong answers as students write them from the notebooks' statements alone, at least three an
//! exercise, each with the words a sentence must hold to name its mistake. The test runs them all
//! and holds the checker to the practice issue's figures: none checks Correct, no sentence names a
//! mistake the answer did not make, and at least 60% of them carry a sentence (a known mistake's,
//! or what was observed) that names the actual mistake. It prints the figures per part.

mod attention;
mod blog;
mod gps;
mod self_attention;
mod seq2seq;
mod transformer;

use attention_zoo::practice::{Outcome, Verdict, all};

/// One wrong answer: what the student did, in words, the words that name it (any one of them,
/// case-insensitive, in the known mistake's sentence or in the "Seen:" line), and its outcome.
pub struct Wrong {
    pub what: &'static str,
    pub words: &'static [&'static str],
    pub outcome: Outcome,
}

/// A wrong answer of the corpus.
pub fn wrong(what: &'static str, words: &'static [&'static str], outcome: Outcome) -> Wrong {
    Wrong { what, words, outcome }
}

/// How the checker answered one wrong answer.
#[derive(Debug, PartialEq)]
enum Told {
    /// Checked Correct: the worst.
    Accepted,
    /// Not attempted or not finished: the corpus's own mistake (a wrong answer returns).
    Unfinished,
    /// A known mistake's sentence that names another mistake.
    Misnamed,
    /// A sentence that names the mistake.
    Named,
    /// Incorrect, with no sentence for the mistake.
    Unnamed,
}

fn told(w: &Wrong) -> Told {
    let o = &w.outcome;
    let has = |text: &Option<String>| {
        text.as_deref().is_some_and(|t| w.words.iter().any(|word| t.to_lowercase().contains(&word.to_lowercase())))
    };
    match o.verdict {
        Verdict::Correct => Told::Accepted,
        Verdict::NotAttempted | Verdict::NotFinished => Told::Unfinished,
        Verdict::Incorrect if o.advice.is_some() && !has(&o.advice) => Told::Misnamed,
        Verdict::Incorrect if has(&o.advice) || has(&o.observed) => Told::Named,
        Verdict::Incorrect => Told::Unnamed,
    }
}

#[test]
fn wrong_answers_as_students_write_them_are_never_accepted_and_mostly_named() {
    let _serial = crate::common::serial();
    let parts: Vec<(&str, Vec<Wrong>)> = vec![
        ("01", seq2seq::corpus()),
        ("02", attention::corpus()),
        ("03", self_attention::corpus()),
        ("04", transformer::corpus()),
        ("05", blog::corpus()),
        ("06", gps::corpus()),
    ];
    let mut problems = vec![];
    let (mut total, mut named) = (0, 0);
    println!("part  wrong answers  named  unnamed");
    for (part, wrongs) in &parts {
        let mut n = 0;
        for w in wrongs {
            assert!(w.outcome.info.id.starts_with(part), "{} is filed under part {part}", w.outcome.info.id);
            let t = told(w);
            match t {
                Told::Named => n += 1,
                Told::Unnamed => {}
                _ => problems.push(format!("{:?}: {} ({}):\n{}", t, w.outcome.info.id, w.what, w.outcome)),
            }
        }
        println!("{part}    {:>13}  {n:>5}  {:>7}", wrongs.len(), wrongs.len() - n);
        total += wrongs.len();
        named += n;
    }
    let share = named as f64 / total as f64;
    println!("all   {total:>13}  {named:>5}  {:>7}   named: {:.1}%", total - named, 100.0 * share);
    for w in parts.iter().flat_map(|(_, ws)| ws).filter(|w| told(w) == Told::Unnamed) {
        println!("unnamed: {} ({})", w.outcome.info.id, w.what);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    for info in all() {
        let count = parts.iter().flat_map(|(_, ws)| ws).filter(|w| w.outcome.info.id == info.id).count();
        assert!(count >= 3, "{} has {count} wrong answers in the corpus; at least 3", info.id);
    }
    assert!(share >= 0.6, "{named} of {total} wrong answers named ({:.1}%): at least 60%", 100.0 * share);
}
