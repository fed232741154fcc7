//! The exercises, tested both ways: each solution checks Correct, each starter (`todo!()`) Not
//! attempted, and the wrong answers a student would plausibly write check Incorrect with the
//! sentence that points at their mistake. Then the machinery itself: panics and errors caught as
//! the student's, the progress file, hints and solutions as the crate's files have them.

mod attention;
mod blog;
mod corpus;
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
    assert!(outcome.advice.as_deref().is_some_and(|a| a.contains(words)), "expected advice with {words:?}:\n{outcome}");
    assert!(outcome.case.is_some() && outcome.detail.is_some(), "{outcome}");
}

/// Asserts the outcome is Incorrect, naming a case and a difference, with no targeted sentence.
#[track_caller]
pub fn incorrect(outcome: Outcome, detail: &str) {
    assert_eq!(outcome.verdict, Verdict::Incorrect, "{outcome}");
    assert!(outcome.detail.as_deref().is_some_and(|d| d.contains(detail)), "expected {detail:?} in the detail:\n{outcome}");
}

/// Every targeted sentence of every exercise (`sentence: "..."` in src/practice/) is reached by a
/// wrong answer of these tests: some `mistake(.., "words")` names words of it. A sentence no test
/// reaches is advice nobody has seen work.
#[test]
fn every_targeted_sentence_is_reached_by_a_wrong_answer() {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    /// The string literals of a piece of Rust, each with its whitespace runs made single spaces.
    fn literals(text: &str) -> Vec<String> {
        let mut out = vec![];
        let mut rest = text;
        while let Some(start) = rest.find('"') {
            let body = &rest[start + 1..];
            let mut end = 0;
            let bytes = body.as_bytes();
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            out.push(
                body[..end.min(body.len())].replace("\\\n", "").split_whitespace().collect::<Vec<_>>().join(" ").replace("\\\"", "\""),
            );
            rest = &body[(end + 1).min(body.len())..];
        }
        out
    }
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (mut sources, mut tests) = (vec![], vec![]);
    files(&root.join("src/practice"), &mut sources);
    files(&root.join("tests/practice"), &mut tests);
    let mut sentences = vec![];
    for path in &sources {
        let text = std::fs::read_to_string(path).expect("readable");
        for part in text.split("sentence:").skip(1).filter(|p| p.trim_start().starts_with('"')) {
            sentences.push((path.strip_prefix(&root).unwrap().display().to_string(), literals(part).remove(0)));
        }
    }
    let mut words = vec![];
    for path in &tests {
        let text = std::fs::read_to_string(path).expect("readable");
        for part in text.split("    mistake(").skip(1) {
            // the call's last literal is the words looked for: the call ends at its `(`'s match
            let (mut depth, mut end, mut quoted, mut escaped) = (1usize, part.len(), false, false);
            for (k, c) in part.char_indices() {
                match (quoted, escaped, c) {
                    (true, true, _) => escaped = false,
                    (true, false, '\\') => escaped = true,
                    (true, false, '"') => quoted = false,
                    (false, _, '"') => quoted = true,
                    (false, _, '(') => depth += 1,
                    (false, _, ')') => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = k;
                    break;
                }
            }
            if let Some(w) = literals(&part[..end]).pop() {
                words.push(w);
            }
        }
    }
    assert!(sentences.len() >= 140, "{} sentences found", sentences.len());
    let unreached: Vec<String> =
        sentences.iter().filter(|(_, s)| !words.iter().any(|w| s.contains(w.as_str()))).map(|(f, s)| format!("{f}: {s}")).collect();
    assert!(unreached.is_empty(), "targeted sentences no wrong answer of tests/practice reaches:\n{}", unreached.join("\n"));
}
