//! Wrong answers as students write them from the notebooks' statements alone, at least three an
//! exercise, each with the words a sentence must hold to name its mistake. The test runs them all
//! and holds the checker to the practice issue's figures: none checks Correct, no sentence names a
//! mistake the answer did not make, and at least 60% of them carry a sentence (a known mistake's,
//! or what was observed) that names the actual mistake. It prints the figures per part.

mod attention;
mod blog;
mod gps;
mod held_out;
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
    /// A known mistake's sentence (or a probe's) that names the mistake.
    Sentence,
    /// What was observed (a factor, a transpose, a shift, a dtype...) names the mistake.
    Observed,
    /// Only the line saying which case alone differs names it, through that case's label.
    Cases,
    /// Incorrect, with no sentence for the mistake.
    Unnamed,
}

/// Whether `text` holds `words` as whole words (case-insensitive): "lo" is not found in "look".
fn contains_words(text: &str, words: &str) -> bool {
    let (text, words) = (text.to_lowercase(), words.to_lowercase());
    let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    text.match_indices(&words).any(|(at, _)| edge(text[..at].chars().next_back()) && edge(text[at + words.len()..].chars().next()))
}

fn told(w: &Wrong) -> Told {
    let o = &w.outcome;
    let has = |text: &Option<String>| text.as_deref().is_some_and(|t| w.words.iter().any(|word| contains_words(t, word)));
    // the line that names the cases that differ begins "Case 2 agrees" or "Cases 1, 3 agree"
    let cases_line = o.observed.as_deref().is_some_and(|t| t.starts_with("Case"));
    match o.verdict {
        Verdict::Correct => Told::Accepted,
        Verdict::NotAttempted | Verdict::NotFinished => Told::Unfinished,
        Verdict::Incorrect if o.advice.is_some() && !has(&o.advice) => Told::Misnamed,
        Verdict::Incorrect if has(&o.advice) => Told::Sentence,
        Verdict::Incorrect if has(&o.observed) && !cases_line => Told::Observed,
        Verdict::Incorrect if has(&o.observed) => Told::Cases,
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
    let (mut total, mut named, mut by_cases) = (0, 0, 0);
    println!("part  wrong answers  sentence  observed  which case  unnamed");
    for (part, wrongs) in &parts {
        let (mut sentence, mut observed, mut cases) = (0, 0, 0);
        for w in wrongs {
            assert!(w.outcome.info.id.starts_with(part), "{} is filed under part {part}", w.outcome.info.id);
            match told(w) {
                Told::Sentence => sentence += 1,
                Told::Observed => observed += 1,
                Told::Cases => cases += 1,
                Told::Unnamed => {}
                t => problems.push(format!("{:?}: {} ({}):\n{}", t, w.outcome.info.id, w.what, w.outcome)),
            }
        }
        let n = sentence + observed + cases;
        println!("{part}    {:>13}  {sentence:>8}  {observed:>8}  {cases:>10}  {:>7}", wrongs.len(), wrongs.len() - n);
        total += wrongs.len();
        named += n;
        by_cases += cases;
    }
    let share = named as f64 / total as f64;
    let strict = (named - by_cases) as f64 / total as f64;
    println!(
        "all   {total:>13}  named: {named} ({:.1}%), of which {by_cases} only through the label of the one case that differs; without those {:.1}%",
        100.0 * share,
        100.0 * strict
    );
    for w in parts.iter().flat_map(|(_, ws)| ws) {
        match told(w) {
            Told::Unnamed => println!("unnamed: {} ({})", w.outcome.info.id, w.what),
            Told::Cases => {
                println!("named by the case's label: {} ({}): {}", w.outcome.info.id, w.what, w.outcome.observed.as_deref().unwrap_or(""))
            }
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    for info in all() {
        let count = parts.iter().flat_map(|(_, ws)| ws).filter(|w| w.outcome.info.id == info.id).count();
        assert!(count >= 3, "{} has {count} wrong answers in the corpus; at least 3", info.id);
    }
    assert!(
        strict >= 0.6,
        "{} of {total} wrong answers named by a sentence or an observation ({:.1}%): at least 60%",
        named - by_cases,
        100.0 * strict
    );
}

#[test]
fn held_out_wrong_answers_are_never_accepted() {
    let _serial = crate::common::serial();
    let wrongs = held_out::corpus();
    println!("part  wrong answers  sentence  observed  which case  unnamed  misnamed  accepted");
    let mut totals = [0usize; 7];
    for part in ["01", "02", "03", "04", "05", "06"] {
        let mut counts = [0usize; 7];
        for w in wrongs.iter().filter(|w| w.outcome.info.id.starts_with(part)) {
            counts[0] += 1;
            match told(w) {
                Told::Sentence => counts[1] += 1,
                Told::Observed => counts[2] += 1,
                Told::Cases => counts[3] += 1,
                Told::Unnamed => counts[4] += 1,
                Told::Misnamed => counts[5] += 1,
                Told::Accepted | Told::Unfinished => counts[6] += 1,
            }
        }
        let [n, sentence, observed, cases, unnamed, misnamed, accepted] = counts;
        println!("{part}    {n:>13}  {sentence:>8}  {observed:>8}  {cases:>10}  {unnamed:>7}  {misnamed:>8}  {accepted:>8}");
        for (total, count) in totals.iter_mut().zip(counts) {
            *total += count;
        }
    }
    let [n, sentence, observed, cases, unnamed, misnamed, accepted] = totals;
    println!("all   {n:>13}  {sentence:>8}  {observed:>8}  {cases:>10}  {unnamed:>7}  {misnamed:>8}  {accepted:>8}");
    let named = sentence + observed;
    println!("named by a sentence or an observation: {named} of {n} ({:.1}%)", 100.0 * named as f64 / n as f64);
    let mut problems = vec![];
    for w in &wrongs {
        match told(w) {
            Told::Unnamed | Told::Misnamed | Told::Cases => {
                println!("\n{:?}: {} ({}), words {:?}:\n{}", told(w), w.outcome.info.id, w.what, w.words, w.outcome)
            }
            Told::Accepted | Told::Unfinished => {
                problems.push(format!("{:?}: {} ({}):\n{}", told(w), w.outcome.info.id, w.what, w.outcome))
            }
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
