//! An exercise's hints and its solution, as the notebook shows them.

use super::Info;
use crate::notebook::code::classes::record;
use crate::notebook::code::highlight::highlight;
use crate::notebook::emit;
use crate::notebook::page::html::escape;

/// One of an exercise's graduated hints.
#[derive(Clone, Debug)]
pub struct Hint {
    /// The exercise.
    pub info: Info,
    /// Which hint, from 1.
    pub n: usize,
    /// Its text.
    pub text: &'static str,
}

impl Hint {
    pub(crate) fn new(info: &Info, n: usize) -> Hint {
        let last = info.hints.len().max(1);
        let n = n.clamp(1, last);
        Hint { info: *info, n, text: info.hints.get(n - 1).copied().unwrap_or("No hint for this one: try the solution.") }
    }

    /// Whether a later hint follows.
    fn more(&self) -> Option<String> {
        let name = self.info.id.split('.').nth(1).unwrap_or("q");
        (self.n < self.info.hints.len()).then(|| format!("({name}.hint_n({}) for the next one)", self.n + 1))
    }

    /// The hint as plain text.
    pub fn text(&self) -> String {
        let head = format!("Hint {} of {} ({}):", self.n, self.info.hints.len(), self.info.id);
        [Some(head), Some(self.text.to_string()), self.more()].into_iter().flatten().collect::<Vec<_>>().join("\n")
    }

    /// What evcxr calls.
    pub fn evcxr_display(&self) {
        let html = format!(
            "<div class=\"zoo-hint\" style=\"border-left:4px solid #bf8700;background:#fff8c5;padding:6px 10px;font:13px/1.4 sans-serif;max-width:980px\">\
             <b style=\"color:#9a6700\">Hint {} of {}</b> <span style=\"color:#6e7781\">({})</span><div style=\"margin-top:3px\">{}</div>{}</div>",
            self.n,
            self.info.hints.len(),
            escape(self.info.id),
            escape(self.text),
            self.more().map(|m| format!("<div style=\"margin-top:3px;color:#6e7781\">{}</div>", escape(&m))).unwrap_or_default()
        );
        emit(&[("text/plain", &self.text()), ("text/html", &html)]);
    }
}

/// An exercise's reference solution: the items of the crate's own file, byte for byte.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The exercise.
    pub info: Info,
    /// The file, from the crate's root.
    pub path: &'static str,
    /// The items, as the file has them, a blank line between two.
    pub code: String,
}

/// The header of a solution's record in excerpts.txt.
pub(crate) fn header(path: &str, pick: &str) -> String {
    format!("Practice {path} {pick}")
}

impl Solution {
    pub(crate) fn new(info: &Info) -> Solution {
        let (path, picks) = info.solution;
        let code = picks
            .iter()
            .map(|pick| {
                record(&header(path, pick)).map(str::to_string).unwrap_or_else(|| {
                    format!(
                        "// excerpts.txt has no `{pick}` from {path}: regenerate it with `ZOO_BLESS=1 cargo test --test zoo class_excerpts`"
                    )
                })
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        Solution { info: *info, path, code }
    }

    /// The solution as plain text, under a `// src/...` line.
    pub fn text(&self) -> String {
        format!("// {} ({}: {})\n{}", self.path, self.info.id, self.info.title, self.code)
    }

    /// What evcxr calls: the code highlighted.
    pub fn evcxr_display(&self) {
        let html = format!(
            "<div class=\"zoo-solution\"><div style=\"font:12px sans-serif;color:#57606a;margin:6px 0 2px\">Solution of {}, from {}</div>\
             <pre style=\"margin:0;padding:8px 10px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;\
             font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre;overflow-x:auto\">{}</pre></div>",
            escape(self.info.id),
            escape(self.path),
            highlight(&self.code)
        );
        emit(&[("text/plain", &self.text()), ("text/html", &html)]);
    }
}
