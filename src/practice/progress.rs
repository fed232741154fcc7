//! The outcomes of the checks, kept in a small JSON file so they outlive a cell and a kernel
//! restart (evcxr gives every cell its own copy of the crate's statics, so they cannot live in
//! memory). The file is `.zoo-progress.json` in the notebook's folder (Jupyter runs a kernel in
//! its notebook's folder), or the path in the environment variable `ZOO_PROGRESS`. It maps an
//! exercise's id to its last verdict and how many checks it had; git ignores it.

use super::outcome::{NOT_CHECKED, Outcome, Verdict};
use super::{Info, part};
use crate::notebook::emit;
use crate::notebook::page::html::{CELL_CSS, HEAD_CSS, TABLE_CSS, escape};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file's name in the notebook's folder.
pub const FILE: &str = ".zoo-progress.json";

/// What the file keeps of one exercise.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    /// The last check's verdict.
    pub verdict: Verdict,
    /// How many checks it has had.
    pub checks: u32,
}

/// Where the outcomes are kept: `$ZOO_PROGRESS`, or `.zoo-progress.json` in the current folder.
pub fn path() -> PathBuf {
    std::env::var_os("ZOO_PROGRESS").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(FILE))
}

/// Every record in the file at `path`; an absent file has none. A file that is not such a record
/// (edited by hand, cut short) is an error, so that it is never written over.
pub fn load(path: &Path) -> std::result::Result<BTreeMap<String, Record>, String> {
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{} is not a progress file: {e}", path.display())),
    }
}

/// Keeps an outcome in the file at `path`. The file is written whole to a temporary file, then
/// renamed over the old one, so a kernel stopped mid-write never leaves half a file. A file that
/// cannot be read is first moved aside to `NAME.unreadable`, never lost; a folder that cannot be
/// written loses the record, never the check.
pub fn record_in(path: &Path, outcome: &Outcome) {
    let mut records = load(path).unwrap_or_else(|_| {
        let _ = std::fs::rename(path, path.with_extension("json.unreadable"));
        BTreeMap::new()
    });
    let entry = records.entry(outcome.info.id.to_string()).or_insert(Record { verdict: outcome.verdict, checks: 0 });
    entry.verdict = outcome.verdict;
    entry.checks += 1;
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let tmp = path.with_extension(format!("json.{}.{}.tmp", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
    if let Ok(text) = serde_json::to_string_pretty(&records)
        && std::fs::write(&tmp, text).is_ok()
        && std::fs::rename(&tmp, path).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Keeps an outcome in the progress file ([`path`]).
pub(crate) fn record(outcome: &Outcome) {
    record_in(&path(), outcome)
}

/// The progress table's columns.
const HEAD: [&str; 5] = ["exercise", "what you write", "lecture", "last check", "checks"];

/// One part's exercises and their last outcomes: what `progress()` shows at the end of a notebook.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The part, `"01"` to `"06"`.
    pub part: String,
    /// Each exercise with its record, if it has been checked.
    pub rows: Vec<(Info, Option<Record>)>,
    /// The file read.
    pub file: PathBuf,
}

impl Progress {
    /// The exercises of `part` with what the progress file ([`path`]) keeps of them.
    pub fn of(number: &str) -> Progress {
        Progress::read(&path(), number)
    }

    /// The exercises of `part` with what the file at `file` keeps of them (none if it cannot be read).
    pub fn read(file: &Path, number: &str) -> Progress {
        let records = load(file).unwrap_or_default();
        let rows = part(number).into_iter().map(|i| (i, records.get(i.id).cloned())).collect();
        Progress { part: number.to_string(), rows, file: file.to_path_buf() }
    }

    /// How many are correct.
    pub fn correct(&self) -> usize {
        self.rows.iter().filter(|(_, r)| r.as_ref().is_some_and(|r| r.verdict == Verdict::Correct)).count()
    }

    /// Each row's cells as text, with the colour of its verdict.
    fn cells(&self) -> Vec<([String; 5], &'static str)> {
        self.rows
            .iter()
            .map(|(i, r)| {
                let (verdict, checks, colour) = match r {
                    Some(r) => (r.verdict.words().to_string(), r.checks.to_string(), r.verdict.colours().0),
                    None => ("not checked yet".to_string(), "0".to_string(), NOT_CHECKED),
                };
                ([i.id.to_string(), i.title.to_string(), i.lecture.to_string(), verdict, checks], colour)
            })
            .collect()
    }

    fn summary(&self) -> String {
        format!("Part {}: {} of {} correct (kept in {})", self.part, self.correct(), self.rows.len(), self.file.display())
    }

    /// The table as plain text.
    pub fn text(&self) -> String {
        let head = HEAD;
        let rows: Vec<[String; 5]> = self.cells().into_iter().map(|(r, _)| r).collect();
        let widths: Vec<usize> =
            (0..5).map(|k| rows.iter().map(|r| r[k].chars().count()).chain([head[k].len()]).max().unwrap_or(0)).collect();
        let line = |cells: &[String]| cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect::<Vec<_>>().join("  ");
        let mut out = vec![self.summary(), line(&head.map(String::from))];
        out.extend(rows.iter().map(|r| line(r)));
        out.join("\n")
    }

    /// The table as HTML, each verdict in its colour.
    pub fn html(&self) -> String {
        let head: String = HEAD.iter().map(|h| format!("<th style=\"{HEAD_CSS};text-align:left\">{h}</th>")).collect();
        let body: String = self
            .cells()
            .iter()
            .map(|(r, colour)| {
                let cell = |k: usize, style: &str| format!("<td style=\"{CELL_CSS};text-align:left{style}\">{}</td>", escape(&r[k]));
                format!(
                    "<tr>{}{}{}{}{}</tr>",
                    cell(0, ""),
                    cell(1, ""),
                    cell(2, ""),
                    cell(3, &format!(";color:{colour};font-weight:bold")),
                    cell(4, ";text-align:right")
                )
            })
            .collect();
        format!(
            "<table class=\"zoo-progress\" style=\"{TABLE_CSS}\"><caption style=\"font-family:sans-serif;font-size:13px;text-align:left\">{}</caption>\
             <tr>{head}</tr>{body}</table>",
            escape(&self.summary())
        )
    }

    /// What evcxr calls.
    pub fn evcxr_display(&self) {
        emit(&[("text/plain", &self.text()), ("text/html", &self.html())]);
    }
}
