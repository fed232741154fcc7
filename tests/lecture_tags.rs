//! The notebooks are the lecture's twin: each code cell that mirrors a lecture cell says which in
//! its metadata (`"lecture": "000#37"`), each notebook lists the lecture cells it leaves out and
//! why (`"lecture_skipped"`), and `notebooks/lecture_map.md` (written by tools/lecture_map.py from
//! the documents and these tags) agrees with both. The notebooks are also kept in nbformat 4.5,
//! with cell ids and without outputs.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

const DOCUMENTS: [&str; 4] = ["000", "001", "002", "004"];

struct Notebook {
    name: String,
    json: Value,
}

/// The course notebooks (`notebooks/*.ipynb`).
fn notebooks() -> Vec<Notebook> {
    notebooks_in("notebooks")
}

fn notebooks_in(folder: &str) -> Vec<Notebook> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut out: Vec<Notebook> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ipynb"))
        .map(|p| Notebook {
            name: p.file_name().unwrap().to_string_lossy().into_owned(),
            json: serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// `"000#37"` as `("000", 37)`, if well-formed.
fn parse_tag(tag: &str) -> Option<(&str, usize)> {
    let (doc, n) = tag.split_once('#')?;
    let n: usize = n.parse().ok().filter(|n| *n >= 1)?;
    (DOCUMENTS.contains(&doc) && tag == format!("{doc}#{n}")).then_some((doc, n))
}

/// (notebook, code cell number counting from 1, tag) for every tagged cell.
fn tags(nbs: &[Notebook]) -> Vec<(String, usize, String)> {
    let mut out = vec![];
    for nb in nbs {
        let code = nb.json["cells"].as_array().unwrap().iter().filter(|c| c["cell_type"] == "code");
        for (i, cell) in code.enumerate() {
            if let Some(tag) = cell["metadata"].get("lecture") {
                out.push((nb.name.clone(), i + 1, tag.as_str().unwrap_or("<not a string>").to_string()));
            }
        }
    }
    out
}

fn skips(nbs: &[Notebook]) -> Vec<(String, String, String)> {
    let mut out = vec![];
    for nb in nbs {
        if let Some(map) = nb.json["metadata"].get("lecture_skipped").and_then(Value::as_object) {
            for (tag, why) in map {
                out.push((nb.name.clone(), tag.clone(), why.as_str().unwrap_or("").to_string()));
            }
        }
    }
    out
}

/// The rows of `notebooks/lecture_map.md`: (tag, the lecture cell's first line with `\|` read as
/// `|`, what mirrors it or why nothing does).
fn map_rows() -> Vec<(String, String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("notebooks/lecture_map.md");
    let map = std::fs::read_to_string(&path).unwrap();
    let mut out = vec![];
    for row in map.lines().filter(|l| l.starts_with("| 00")) {
        let (tag, rest) = row[2..].split_once(" | `").unwrap_or_else(|| panic!("lecture_map.md: {row}"));
        let (line, target) = rest.rsplit_once("` | ").unwrap_or_else(|| panic!("lecture_map.md: {row}"));
        let target = target.strip_suffix(" |").unwrap_or_else(|| panic!("lecture_map.md: {row}"));
        out.push((tag.to_string(), line.replace("\\|", "|"), target.trim().to_string()));
    }
    out
}

#[test]
fn notebooks_are_nbformat_4_5_with_ids_and_without_outputs() {
    for nb in notebooks().into_iter().chain(notebooks_in("notebooks/exercises")).chain(notebooks_in("notebooks/exercises-source")) {
        assert_eq!((nb.json["nbformat"].as_u64(), nb.json["nbformat_minor"].as_u64()), (Some(4), Some(5)), "{}", nb.name);
        let mut ids = BTreeSet::new();
        for (i, cell) in nb.json["cells"].as_array().unwrap().iter().enumerate() {
            let id =
                cell["id"].as_str().unwrap_or_else(|| panic!("{}: cell {i} has no id (.venv/bin/python tools/notebook_tidy.py)", nb.name));
            assert!(
                !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "{}: id {id:?}",
                nb.name
            );
            assert!(ids.insert(id.to_string()), "{}: two cells have the id {id}", nb.name);
            if cell["cell_type"] == "code" {
                assert!(cell["outputs"].as_array().is_some_and(|o| o.is_empty()), "{}: cell {id} is committed with outputs", nb.name);
                assert!(cell["execution_count"].is_null(), "{}: cell {id} is committed with an execution count", nb.name);
            }
        }
    }
}

/// The pages' offline MathJax (2.7.9 from jupyter-server-mathjax, STIX-Web fonts only) fails on a
/// prime with "Math Processing Error" (`fontInherit` of undefined, seen in headless Chromium by
/// `make pages-check`): formulas write `\tilde{x}` or a subscript instead of `x'`.
#[test]
fn formulas_avoid_what_the_offline_mathjax_cannot_typeset() {
    for nb in notebooks() {
        for (i, cell) in nb.json["cells"].as_array().unwrap().iter().enumerate() {
            if cell["cell_type"] != "markdown" {
                continue;
            }
            let text = cell["source"].as_str().unwrap_or("");
            // display formulas lie between `$$`s (odd pieces), inline ones between `$`s in the rest
            let mut formulas = vec![];
            for (k, piece) in text.split("$$").enumerate() {
                if k % 2 == 1 {
                    formulas.push(piece);
                } else {
                    formulas.extend(piece.split('$').skip(1).step_by(2));
                }
            }
            for formula in formulas {
                if formula.contains('\'') || formula.contains("\\prime") {
                    panic!("{} cell {i}: the formula `{formula}` has a prime, which the pages' MathJax cannot typeset", nb.name);
                }
            }
        }
    }
}

#[test]
fn tags_are_well_formed_unique_and_in_lecture_order() {
    let nbs = notebooks();
    let tags = tags(&nbs);
    assert!(tags.len() > 100, "only {} tagged cells", tags.len());
    let mut seen = BTreeMap::new();
    let mut last: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (nb, cell, tag) in &tags {
        let (doc, n) =
            parse_tag(tag).unwrap_or_else(|| panic!("{nb} code cell {cell}: tag {tag:?} is not DOC#N with DOC one of {DOCUMENTS:?}"));
        if let Some(other) = seen.insert(tag.clone(), format!("{nb} code cell {cell}")) {
            panic!("{tag} is tagged twice: {other} and {nb} code cell {cell}");
        }
        if let Some(prev) = last.insert((nb.clone(), doc.to_string()), n) {
            assert!(n > prev, "{nb} code cell {cell}: {tag} comes after {doc}#{prev}; tags follow the lecture's order");
        }
    }
    for (nb, tag, why) in skips(&nbs) {
        assert!(parse_tag(&tag).is_some(), "{nb}: skipped {tag:?} is not DOC#N");
        assert!(!seen.contains_key(&tag), "{nb}: {tag} is both skipped and mirrored by {}", seen[&tag]);
        assert!(why.split_whitespace().count() >= 3, "{nb}: the reason for skipping {tag} is too short: {why:?}");
    }
}

#[test]
fn the_lecture_map_agrees_with_the_tags() {
    let nbs = notebooks();
    let mut rows: BTreeMap<String, String> = BTreeMap::new();
    for (tag, _, target) in map_rows() {
        assert!(parse_tag(&tag).is_some(), "lecture_map.md: row {tag}");
        assert!(rows.insert(tag.clone(), target).is_none(), "lecture_map.md lists {tag} twice");
    }
    for doc in DOCUMENTS {
        let count = rows.keys().filter(|t| t.starts_with(doc)).count();
        assert!(count > 0, "lecture_map.md lists no cell of {doc}");
        for n in 1..=count {
            assert!(rows.contains_key(&format!("{doc}#{n}")), "lecture_map.md skips {doc}#{n}");
        }
    }
    for (tag, target) in &rows {
        assert!(!target.contains("**nothing**"), "lecture_map.md: {tag} is neither mirrored nor skipped");
    }
    let tags = tags(&nbs);
    for (nb, cell, tag) in &tags {
        let want = format!("{nb} code cell {cell}");
        assert_eq!(
            rows.get(tag).map(String::as_str),
            Some(want.as_str()),
            "lecture_map.md is stale for {tag}: run .venv/bin/python tools/lecture_map.py"
        );
    }
    for (nb, tag, why) in skips(&nbs) {
        let want = format!("skipped ({nb}): {why}");
        assert_eq!(
            rows.get(&tag).map(String::as_str),
            Some(want.as_str()),
            "lecture_map.md is stale for {tag}: run .venv/bin/python tools/lecture_map.py"
        );
    }
    let mirrored = rows.values().filter(|t| t.contains(" code cell ")).count();
    assert_eq!(mirrored, tags.len(), "lecture_map.md names notebook cells that carry no tag: run .venv/bin/python tools/lecture_map.py");
}

/// Every code cell shows where it stands in the lecture, in the Lab and in the pages (metadata
/// shows in neither): its first line is `// lecture 000#37 · <the lecture cell's first line>`,
/// the tag and line agreeing with the metadata and `notebooks/lecture_map.md`, or `// ours, not in
/// the lecture` for an addition (00, the tour, mirrors no lecture cell and has none).
/// `.venv/bin/python tools/notebook_tidy.py` writes them.
#[test]
fn every_code_cell_opens_with_its_lecture_reference() {
    let lines: BTreeMap<String, String> = map_rows().into_iter().map(|(tag, line, _)| (tag, line)).collect();
    let (mut tagged, mut ours) = (0, 0);
    for nb in notebooks() {
        let code = nb.json["cells"].as_array().unwrap().iter().filter(|c| c["cell_type"] == "code");
        if !code.clone().any(|c| c["metadata"].get("lecture").is_some()) {
            continue;
        }
        for (i, cell) in code.enumerate() {
            let first = cell["source"].as_str().unwrap_or("").lines().next().unwrap_or("");
            let want = match cell["metadata"].get("lecture").and_then(Value::as_str) {
                Some(tag) => {
                    tagged += 1;
                    format!("// lecture {tag} · {}", lines.get(tag).unwrap_or_else(|| panic!("lecture_map.md has no row {tag}")))
                }
                None => {
                    ours += 1;
                    "// ours, not in the lecture".to_string()
                }
            };
            assert_eq!(first, want, "{} code cell {}: run .venv/bin/python tools/notebook_tidy.py", nb.name, i + 1);
        }
    }
    assert!(tagged > 100 && ours > 10, "{tagged} tagged cells, {ours} of ours");
}
