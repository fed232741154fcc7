//! The exercise notebooks (`notebooks/exercises/*.ipynb`), run both ways: as committed, where
//! every check says Not attempted, and with every starter cell replaced by its exercise's solution
//! (the crate's file, as `solution()` shows it), where every check says Correct. Their cells are
//! held to one shape: a starter names its exercise and the solution's items, and is followed by
//! the cell that checks it.

use super::nbrun::run_notebook;
use super::{notebooks_in, root, work};
use attention_zoo::practice::{Info, all};
use serde_json::Value;
use std::path::Path;

fn source(cell: &Value) -> String {
    match &cell["source"] {
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

fn info(id: &str) -> Info {
    all().into_iter().find(|i| i.id == id).unwrap_or_else(|| panic!("no exercise {id} in attention_zoo::practice"))
}

/// The notebook's exercises, in order, each checked for its shape: the starter's metadata names
/// the exercise's solution, its first line is the lecture reference, its body has a `todo!()`,
/// and the next cell checks that exercise.
fn exercises(path: &Path, nb: &Value) -> Vec<Info> {
    let cells = nb["cells"].as_array().expect("cells");
    let mut found = vec![];
    for (k, cell) in cells.iter().enumerate() {
        let Some(id) = cell["metadata"]["exercise"].as_str() else { continue };
        let info = info(id);
        let name = format!("{}: {id}", path.display());
        let picks: Vec<&str> = cell["metadata"]["solution"].as_array().expect("solution").iter().filter_map(Value::as_str).collect();
        assert_eq!(picks[0], info.solution.0, "{name}: the solution's file");
        assert_eq!(&picks[1..], info.solution.1, "{name}: the solution's items");
        let text = source(cell);
        let reference =
            if info.lecture == "ours" { "// ours, not in the lecture · ".to_string() } else { format!("// lecture {} · ", info.lecture) };
        assert!(text.starts_with(&reference), "{name}: the starter opens with its lecture reference, {reference:?}");
        assert!(text.contains("todo!()"), "{name}: the starter has a todo!()");
        let check = cells.get(k + 1).expect("a check cell follows");
        assert_eq!(check["metadata"]["check"].as_str(), Some(id), "{name}: the next cell checks it");
        let q = id.split('.').nth(1).expect("NN.qK");
        assert!(source(check).contains(&format!("{q}.check(")), "{name}: the check cell calls {q}.check");
        found.push(info);
    }
    found
}

/// The notebook with each starter's body replaced by its solution (its first line kept).
fn with_solutions(nb: &Value) -> Value {
    let mut nb = nb.clone();
    for cell in nb["cells"].as_array_mut().expect("cells") {
        if let Some(id) = cell["metadata"]["exercise"].as_str() {
            let first = source(cell).lines().next().unwrap_or_default().to_string();
            cell["source"] = Value::String(format!("{first}\n{}", info(id).solution().code));
        }
    }
    nb
}

/// How many checks printed this verdict (the plain-text rendering's first line ends with it).
/// With the solutions, the open task's check (a full training, shortened in this pass by
/// ATTENTION_ZOO_QUICK=1) says Incorrect and why; it counts as Correct here only when it says so,
/// and `make notebooks` runs its training in full, where it must say Correct.
fn count(stdout: &str, verdict: &str) -> usize {
    let said = stdout.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.ends_with(&format!(": {verdict}"))).count();
    let quick =
        stdout.lines().filter(|l| l.starts_with("Test BLEU") && l.ends_with(attention_zoo::practice::transformer::QUICK_SAYS)).count();
    if verdict == "Correct" { said + quick } else { said }
}

#[test]
fn every_exercise_notebook_runs_both_ways() {
    let paths = notebooks_in("notebooks/exercises");
    assert!(!paths.is_empty() || std::env::var("ZOO_NOTEBOOK").is_ok(), "no notebooks in notebooks/exercises/");
    let dir = work().join("exercises");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let mut failures = vec![];
    for path in &paths {
        let rel = path.strip_prefix(root()).unwrap_or(path).to_path_buf();
        let nb: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("a notebook");
        let infos = exercises(&rel, &nb);
        let part = infos.first().map(|i| i.id.split('.').next().unwrap_or_default().to_string()).unwrap_or_default();
        assert_eq!(infos.len(), attention_zoo::practice::part(&part).len(), "{}: every exercise of part {part}", rel.display());
        for (mode, notebook, verdict) in
            [("as committed", nb.clone(), "Not attempted"), ("with the solutions", with_solutions(&nb), "Correct")]
        {
            let copy = dir.join(format!("{}-{}.ipynb", path.file_stem().unwrap().to_string_lossy(), verdict.replace(' ', "_")));
            std::fs::write(&copy, serde_json::to_string_pretty(&notebook).expect("json")).expect("write");
            match run_notebook(&copy, &dir) {
                Ok(out) if count(&out.stdout, verdict) == infos.len() => {}
                Ok(out) => failures.push(format!(
                    "{} {mode}: {} of {} checks say {verdict}:\n{}",
                    rel.display(),
                    count(&out.stdout, verdict),
                    infos.len(),
                    out.stdout.lines().filter(|l| l.contains(": ")).take(40).collect::<Vec<_>>().join("\n")
                )),
                Err(e) => failures.push(format!("{} {mode}: {e}", rel.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README's table of exercise notebooks names each one with its number of exercises.
#[test]
fn the_readme_counts_each_notebooks_exercises() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    for path in notebooks_in("notebooks/exercises") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let nb: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("a notebook");
        let n = exercises(&path, &nb).len();
        assert!(readme.contains(&format!("| `{name}` | {n}: ")), "README.md's Practise table: `{name}` has {n} exercises");
    }
}
