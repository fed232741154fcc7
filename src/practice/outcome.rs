//! What a check found, as the notebook shows it: a coloured box in the Lab and on the pages, plain
//! text in a terminal.

use super::Info;
use crate::nn::shape::error;
use crate::notebook::emit;
use crate::notebook::page::html::escape;
use candle_core::Result;
use std::time::Duration;

/// How a check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// The student's code still has its `todo!()` (or `unimplemented!()`).
    NotAttempted,
    /// Some cases reach a `todo!()` the student left in one branch; the others return.
    NotFinished,
    /// A case gave a different answer, or the code panicked or returned an error.
    Incorrect,
    /// Every case agreed with the reference.
    Correct,
}

impl Verdict {
    /// "Not attempted", "Incorrect", "Correct".
    pub fn words(&self) -> &'static str {
        match self {
            Verdict::NotAttempted => "Not attempted",
            Verdict::NotFinished => "Not finished",
            Verdict::Incorrect => "Incorrect",
            Verdict::Correct => "Correct",
        }
    }

    /// Its colours: the text's and the background's (grey, red, green).
    pub fn colours(&self) -> (&'static str, &'static str) {
        match self {
            Verdict::NotAttempted => (NOT_CHECKED, "#f6f8fa"),
            Verdict::NotFinished => ("#9a6700", "#fff8c5"),
            Verdict::Incorrect => ("#cf222e", "#ffebe9"),
            Verdict::Correct => ("#1a7f37", "#dafbe1"),
        }
    }
}

/// The grey of an exercise not attempted, or not checked yet.
pub const NOT_CHECKED: &str = "#6e7781";

/// What a check found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The exercise.
    pub info: Info,
    /// Its verdict.
    pub verdict: Verdict,
    /// The case that failed (`"case 2 of 4: a batch of one, seed 7"`), when one did.
    pub case: Option<String>,
    /// What went wrong: the first difference, or the panic or error of the student's code.
    pub detail: Option<String>,
    /// For a usual mistake, the sentence that points at it: given only when the answer agrees
    /// with that mistake, and no other, on every case.
    pub advice: Option<String>,
    /// Otherwise, what the answer was seen to do on the cases that differ (a constant factor,
    /// its dimensions in another order, ...), or which cases differ when the others agree.
    pub observed: Option<String>,
    /// How many cases were run.
    pub cases: usize,
    /// How long the check took.
    pub elapsed: Duration,
}

impl Outcome {
    /// Whether every case agreed with the reference.
    pub fn is_correct(&self) -> bool {
        self.verdict == Verdict::Correct
    }

    /// The outcome as plain text: the verdict line, then the case, the difference and the advice.
    pub fn text(&self) -> String {
        let mut lines = vec![format!("{} {}: {}", self.info.id, self.info.title, self.verdict.words())];
        match self.verdict {
            Verdict::NotAttempted => lines.push("Replace the todo!() with your code, run its cell, then this one again.".into()),
            Verdict::Correct => {
                let ms = self.elapsed.as_secs_f64() * 1e3;
                lines.push(match self.cases {
                    // a task judged by a bar (the open task's BLEU), not against a reference
                    0 => format!("Checked in {:.1} s.", ms / 1e3),
                    1 => format!("The case agrees with the reference ({ms:.1} ms)."),
                    n => format!("All {n} cases agree with the reference ({ms:.1} ms)."),
                })
            }
            Verdict::NotFinished | Verdict::Incorrect => {}
        }
        lines.extend(self.case.iter().cloned());
        lines.extend(self.detail.iter().cloned());
        lines.extend(self.observed.iter().map(|o| format!("Seen: {o}")));
        lines.extend(self.advice.iter().map(|a| format!("Hint: {a}")));
        lines.join("\n")
    }

    /// The outcome as a coloured box.
    pub fn html(&self) -> String {
        let (colour, background) = self.verdict.colours();
        let text = self.text();
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        let body: String = lines.map(|l| format!("<div style=\"margin-top:3px\">{}</div>", escape(l))).collect();
        format!(
            "<div class=\"zoo-outcome\" data-verdict=\"{}\" style=\"border-left:4px solid {colour};background:{background};\
             padding:6px 10px;font:13px/1.4 sans-serif;max-width:980px\"><b style=\"color:{colour}\">{}</b>{body}</div>",
            self.verdict.words(),
            escape(head)
        )
    }

    /// What evcxr calls: the box, and the text for a terminal.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.text()), ("text/html", &self.html())]);
    }

    /// The grading form of a check, for a cell a grader scores (nbgrader's autograded test
    /// cells, worth `points`): Correct gives a [`Graded`] result, the same box with `points` as its
    /// plain text (nbgrader reads a number there as the cell's score); any other verdict shows
    /// the box and ends the cell in an error (nbgrader's 0). The error is a returned value, not a
    /// panic, so no panic hook of the student's turns it into a pass. In a graded cell, name the
    /// exercise from the crate's root (`::attention_zoo::...`), so that no `q1` or module of the
    /// student's stands in for it, inside braces (evcxr reads a line that starts with `:` as a
    /// command):
    ///
    /// ```no_run
    /// # use attention_zoo::prelude::*;
    /// # fn split_sequence(full: &Tensor, input_len: usize) -> Result<(Tensor, Tensor)> { todo!() }
    /// # fn main() -> Result<()> {
    /// { ::attention_zoo::practice::seq2seq::q1.check(split_sequence).grade(2.0)? };
    /// # Ok(())
    /// # }
    /// ```
    pub fn grade(self, points: f64) -> Result<Graded> {
        if let Some(e) = self.graded_zero() {
            self.evcxr_display();
            return Err(e);
        }
        Ok(Graded { outcome: self, points })
    }

    /// The error of a verdict other than Correct: the box's text, its first line (the exercise and
    /// the verdict) as the label.
    fn graded_zero(&self) -> Option<candle_core::Error> {
        if self.is_correct() {
            return None;
        }
        let text = self.text();
        let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
        Some(error(head, format!("graded 0\n{rest}").trim_end()))
    }
}

/// A check's outcome graded Correct, worth its cell's points: shown as the outcome's box, with the
/// points as its plain text, the form in which nbgrader reads a cell's score.
#[derive(Clone, Debug)]
pub struct Graded {
    /// The outcome, Correct.
    pub outcome: Outcome,
    /// The points the cell gives.
    pub points: f64,
}

impl Graded {
    /// What evcxr calls: the points as plain text, the outcome's box as HTML.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.points.to_string()), ("text/html", &self.outcome.html())]);
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}
