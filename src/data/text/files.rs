//! Sentence pairs from the two formats real corpora come in: one tab-separated file (one
//! `source<TAB>target` pair a line, as the Tatoeba/Anki downloads) and two line-aligned files
//! (line `i` of the source file translates line `i` of the target file, as Europarl or WMT).
//!
//! Both loaders read the whole file, check every line and return the pairs as written (no
//! tokenizing or lower-casing: that is [`super::tokenize`]'s job). Every error names the loader,
//! the file and the 1-based line:
//!
//! - a file that cannot be read (missing, a folder, no permission): the path and the OS error;
//! - a line that is not valid UTF-8: the line and the byte offset of the first bad byte in it;
//! - a tab-separated line without a tab, or with an empty source or target;
//! - two aligned files with different numbers of lines: both files and both counts;
//! - a file (or pair of files) without a single pair: the empty corpus.
//!
//! Lines end at `\n`; a `\r` before it (Windows files) and a UTF-8 byte-order mark at the start
//! are dropped, and a last line without `\n` counts as a line. Fields are trimmed of surrounding
//! spaces.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::Result;
use std::path::Path;

/// The lines of a file, checked for UTF-8, with `\r\n`, a final newline and a byte-order mark
/// handled as the module documents.
fn check_lines(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(&bytes);
    let mut body = bytes;
    if let Some(rest) = body.strip_suffix(b"\n".as_slice()) {
        body = rest;
    }
    if body.is_empty() {
        return Ok(vec![]);
    }
    body.split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, raw)| {
            let raw = raw.strip_suffix(b"\r".as_slice()).unwrap_or(raw);
            std::str::from_utf8(raw).map(str::to_string).map_err(|e| {
                invalid(format!("{} line {}: invalid UTF-8 at byte {} of the line", path.display(), i + 1, e.valid_up_to() + 1))
            })
        })
        .collect()
}

/// Reads a tab-separated file of sentence pairs, one `source<TAB>target` pair a line.
///
/// - Blank lines (empty or only spaces) are skipped, so a trailing empty line does no harm.
/// - Columns after the second are ignored: Tatoeba/Anki files carry an attribution there.
/// - A line without a tab, or whose source or target is empty after trimming, is an error
///   naming the file and its 1-based line, as are invalid UTF-8 and a file without any pair.
///
/// ```no_run
/// # fn main() -> candle_core::Result<()> {
/// let pairs = attention_zoo::data::text::read_tsv_pairs("deu-eng.tsv")?;
/// println!("{} pairs, the first: {:?}", pairs.len(), pairs[0]);
/// # Ok(()) }
/// ```
#[errors_as]
pub fn read_tsv_pairs(path: impl AsRef<Path>) -> Result<Vec<(String, String)>> {
    let lines = check_lines(path.as_ref())?;
    check_tsv(path.as_ref(), &lines)
}

/// The pairs of a tab-separated file's `lines` (read from `path`), each line checked as
/// [`read_tsv_pairs`] documents.
fn check_tsv(path: &Path, lines: &[String]) -> Result<Vec<(String, String)>> {
    let mut pairs = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |what: &str| invalid(format!("{} line {}: {what}", path.display(), i + 1));
        let mut columns = line.split('\t');
        let source = columns.next().unwrap_or("").trim();
        let Some(target) = columns.next().map(str::trim) else {
            return Err(at(&format!("no tab between source and target in {:?}", shorten(line))));
        };
        if source.is_empty() {
            return Err(at("the source (before the tab) is empty"));
        }
        if target.is_empty() {
            return Err(at("the target (after the tab) is empty"));
        }
        pairs.push((source.to_string(), target.to_string()));
    }
    if pairs.is_empty() {
        return Err(invalid(format!("{}: empty corpus, no sentence pair in {} lines", path.display(), lines.len())));
    }
    Ok(pairs)
}

/// Reads two line-aligned files: line `i` of `source` and line `i` of `target` form a pair.
///
/// - The files must have the same number of lines; otherwise the error names both files and
///   both counts.
/// - A line blank in both files is skipped; a line blank in one file only is an error naming
///   that file and the 1-based line (the files have most likely slipped out of alignment).
/// - Invalid UTF-8 and files without any pair are errors naming the file(s) and line.
#[errors_as]
pub fn read_aligned_pairs(source: impl AsRef<Path>, target: impl AsRef<Path>) -> Result<Vec<(String, String)>> {
    let src = check_lines(source.as_ref())?;
    let tgt = check_lines(target.as_ref())?;
    check_aligned((source.as_ref(), &src), (target.as_ref(), &tgt))
}

/// The pairs of two line-aligned files, each given as its path and its lines, checked as
/// [`read_aligned_pairs`] documents.
fn check_aligned((sp, src): (&Path, &[String]), (tp, tgt): (&Path, &[String])) -> Result<Vec<(String, String)>> {
    if src.len() != tgt.len() {
        return Err(invalid(format!(
            "unequal line counts: {} has {} lines, {} has {} lines",
            sp.display(),
            src.len(),
            tp.display(),
            tgt.len()
        )));
    }
    let mut pairs = Vec::with_capacity(src.len());
    for (i, (s, t)) in src.iter().zip(tgt).enumerate() {
        let (s, t) = (s.trim(), t.trim());
        match (s.is_empty(), t.is_empty()) {
            (true, true) => continue,
            (true, false) => return Err(blank_one_side(sp, tp, i)),
            (false, true) => return Err(blank_one_side(tp, sp, i)),
            (false, false) => pairs.push((s.to_string(), t.to_string())),
        }
    }
    if pairs.is_empty() {
        return Err(invalid(format!("empty corpus, no sentence pair in {} and {} ({} lines each)", sp.display(), tp.display(), src.len())));
    }
    Ok(pairs)
}

/// The error for line `i` blank in `blank` but not in `other`.
fn blank_one_side(blank: &Path, other: &Path, i: usize) -> candle_core::Error {
    invalid(format!(
        "{} line {}: blank line, but line {} of {} is not (are the files aligned?)",
        blank.display(),
        i + 1,
        i + 1,
        other.display()
    ))
}

/// The first 60 characters of a line, for error messages.
fn shorten(line: &str) -> String {
    let mut s: String = line.chars().take(60).collect();
    if line.chars().nth(60).is_some() {
        s.push_str("...");
    }
    s
}
