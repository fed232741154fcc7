//! The exercise notebooks and their one source. `notebooks/exercises-source/` holds each in
//! nbgrader's form (the crate's solutions between solution markers, each check cell graded by a
//! hidden line); `notebooks/exercises/` is what nbgrader's `generate_assignment` makes of it
//! (`make exercises`). Checked here without Python: the students' version is the source cleared,
//! the source holds the crate's solutions and the grading lines, and both run: the students'
//! version with every check Not attempted, the source with every check cell graded its points,
//! Correct. Their cells are held to one shape: a starter names its exercise and the solution's
//! items, and is followed by the cell that checks it.

use super::nbrun::{run_notebook, run_notebook_with_errors};
use super::{notebooks_in, root, work};
use attention_zoo::practice::{Info, all};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The points of each graded check cell in the source (nbgrader's metadata says the same).
const POINTS: f64 = 1.0;

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

/// The source of a students' notebook: notebooks/exercises-source/ holds it in nbgrader's form.
fn source_of(path: &Path) -> PathBuf {
    root().join("notebooks/exercises-source").join(path.file_name().expect("a file"))
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{}: not a notebook: {e}", path.display()))
}

/// How many checks printed this verdict (the plain-text rendering's first line ends with it).
fn count(stdout: &str, verdict: &str) -> usize {
    stdout.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.ends_with(&format!(": {verdict}"))).count()
}

/// How many graded check cells gave `points` with a Correct box: the grading form's result
/// (`Graded`), as nbgrader reads it.
fn graded(stdout: &str, points: f64) -> usize {
    stdout
        .matches(&format!(
            "EVCXR_BEGIN_CONTENT text/plain\n{points}\nEVCXR_END_CONTENT\nEVCXR_BEGIN_CONTENT text/html\n\
             <div class=\"zoo-outcome\" data-verdict=\"Correct\""
        ))
        .count()
}

/// The check cells' errors that a quick run explains: the open task's, whose training this pass
/// shortens (ATTENTION_ZOO_QUICK=1), so that no solution reaches the bar; `make notebooks` runs
/// its training in full, where it must be graded like every other check.
fn quick(errors: &[(usize, String)]) -> usize {
    errors.iter().filter(|(_, e)| e.contains(attention_zoo::practice::transformer::QUICK_SAYS)).count()
}

const BEGIN: &str = "// BEGIN SOLUTION";
const END: &str = "// END SOLUTION";
const HIDDEN_BEGIN: &str = "// BEGIN HIDDEN TESTS";
const HIDDEN_END: &str = "// END HIDDEN TESTS";

/// What nbgrader's `generate_assignment` makes of a source cell's code: each solution region a
/// `todo!()` (the course's stub) at its marker's indent, each hidden-test region gone.
fn cleared(code: &str) -> String {
    let mut out = vec![];
    let mut skipping = None;
    for line in code.split('\n') {
        match (skipping, line.trim()) {
            (None, BEGIN) => {
                out.push(format!("{}todo!()", &line[..line.len() - line.trim_start().len()]));
                skipping = Some(END);
            }
            (None, HIDDEN_BEGIN) => skipping = Some(HIDDEN_END),
            (None, _) => out.push(line.to_string()),
            (Some(end), t) if t == end => skipping = None,
            (Some(_), _) => {}
        }
    }
    out.join("\n")
}

/// A line's words: its runs of letters, digits and underscores (as Python's `\w+`).
fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty()).collect()
}

/// The lines of the body of `fn name` in `text`, between its opening brace and the closing one.
fn fn_body<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let start = lines.iter().position(|l| words(l).windows(2).any(|w| w == ["fn", name]))?;
    let opened = (start..lines.len()).find(|&i| lines[i].trim_end().ends_with('{'))?;
    let mut depth = 0i64;
    for (i, line) in lines.iter().enumerate().skip(opened) {
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        if depth == 0 {
            return Some(lines[opened + 1..i].to_vec());
        }
    }
    None
}

/// A source cell's code with each solution region's lines replaced by the body, in `solution`,
/// of the function the region sits in (tools/course/exercises.py writes the same).
fn with_solution(code: &str, solution: &str) -> Result<String, String> {
    let (mut out, mut current, mut inside) = (vec![], None, false);
    for line in code.split('\n') {
        let words = words(line);
        if !inside && let Some(at) = words.iter().position(|w| *w == "fn") {
            current = words.get(at + 1).map(|w| w.to_string());
        }
        match line.trim() {
            BEGIN => {
                let name = current.clone().unwrap_or_default();
                let body = fn_body(solution, &name).ok_or_else(|| format!("no body of fn {name} in the solution"))?;
                out.push(line.to_string());
                out.extend(body.iter().map(|l| l.to_string()));
                inside = true;
            }
            END => {
                out.push(line.to_string());
                inside = false;
            }
            _ if !inside => out.push(line.to_string()),
            _ => {}
        }
    }
    if inside {
        return Err(format!("a `{BEGIN}` without its `{END}`"));
    }
    Ok(out.join("\n"))
}

/// The source of a check cell whose students' version is `students` (its first line, then
/// `qN.check(ARGS)`): when graded, the students' line is not run (each check would otherwise run
/// twice, the open task's training too) and the grading form, by its full path, is the value.
fn graded_source(students: &str, part: &str) -> String {
    let (head, line) = students.split_once('\n').unwrap_or(("", students));
    let (q, args) = line.split_once(".check(").unwrap_or_default();
    [
        head,
        HIDDEN_BEGIN,
        "if false { // graded: the line below is not run, the grading line after it is",
        HIDDEN_END,
        line,
        HIDDEN_BEGIN,
        "; }",
        &format!("{{ ::attention_zoo::practice::{part}::{q}.check({args}.grade({POINTS:?})? }}"),
        HIDDEN_END,
    ]
    .join("\n")
}

fn nbgrader(cell: &Value) -> &Value {
    &cell["metadata"]["nbgrader"]
}

/// Each exercise notebook is its source as nbgrader's `generate_assignment` writes it (`make
/// exercises`), cell by cell; the source's answer cells hold the crate's solutions, its check cells
/// the grading form with the full path. tools/course/exercises.py --check, under `make
/// grade-check`, checks the same with nbgrader itself.
#[test]
fn each_exercise_notebook_is_its_source_for_students() {
    let paths = notebooks_in("notebooks/exercises");
    let sources = notebooks_in("notebooks/exercises-source");
    let names = |ps: &[PathBuf]| ps.iter().map(|p| p.file_name().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(&paths), names(&sources), "notebooks/exercises/ and notebooks/exercises-source/ hold the same notebooks");
    let mut failures = vec![];
    for path in &paths {
        let (students, source) = (read(path), read(&source_of(path)));
        let (theirs, ours) = (students["cells"].as_array().expect("cells"), source["cells"].as_array().expect("cells"));
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(theirs.len(), ours.len(), "{name}: the students' version and the source have as many cells");
        assert_eq!(students["metadata"], source["metadata"], "{name}: the notebook's metadata");
        let part = self::part(&source);
        for (k, (s, o)) in theirs.iter().zip(ours).enumerate() {
            let at = format!("{name}, cell {} ({})", k + 1, o["id"]);
            if (&s["cell_type"], &s["id"]) != (&o["cell_type"], &o["id"]) {
                failures.push(format!("{at}: its type and id differ from the source's"));
            }
            if self::source(s) != cleared(&self::source(o)) {
                failures.push(format!("{at}: not the source's cell cleared:\n{}\n---\n{}", self::source(s), cleared(&self::source(o))));
            }
            for key in ["grade", "grade_id", "locked", "points", "solution"] {
                if nbgrader(s)[key] != nbgrader(o)[key] {
                    failures.push(format!("{at}: nbgrader's {key} differs from the source's"));
                }
            }
            let code = self::source(o);
            if let Some(id) = o["metadata"]["exercise"].as_str() {
                let solved = with_solution(&code, &info(id).solution().code);
                if nbgrader(o)["solution"] != true || solved.as_ref() != Ok(&code) {
                    failures.push(format!(
                        "{at}: the answer cell of {id} holds the crate's solution between `{BEGIN}` and `{END}` \
                         (`make exercises` puts it there):\n{}",
                        solved.unwrap_or_else(|e| e)
                    ));
                }
            }
            if let Some(id) = o["metadata"]["check"].as_str() {
                let grading = graded_source(&self::source(s), &part);
                if nbgrader(o)["grade"] != true || nbgrader(o)["points"].as_f64() != Some(POINTS) || code != grading {
                    failures.push(format!("{at}: the test cell of {id} is worth {POINTS}, graded by its hidden lines:\n{grading}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The practice module a notebook's first code cell imports (`seq2seq`, `transformer`, ...).
fn part(nb: &Value) -> String {
    let first = nb["cells"].as_array().expect("cells").iter().find(|c| c["cell_type"] == "code").map(source).unwrap_or_default();
    first.split("attention_zoo::practice::").nth(1).and_then(|r| r.split("::").next()).unwrap_or_default().to_string()
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
        let infos = exercises(&rel, &read(path));
        let part = infos.first().map(|i| i.id.split('.').next().unwrap_or_default().to_string()).unwrap_or_default();
        assert_eq!(infos.len(), attention_zoo::practice::part(&part).len(), "{}: every exercise of part {part}", rel.display());
        // Each runs from a copy in the scratch folder, where its progress file goes.
        let copy = |from: &Path, to: &str| {
            let copy = dir.join(to).join(from.file_name().expect("a file"));
            std::fs::create_dir_all(copy.parent().expect("a folder")).expect("scratch dir");
            std::fs::copy(from, &copy).expect("copied");
            let _ = std::fs::remove_file(copy.with_file_name(".zoo-progress.json"));
            copy
        };
        // The students' version: every check Not attempted.
        match run_notebook(&copy(path, "students"), &dir.join("students")) {
            Ok(out) if count(&out.stdout, "Not attempted") == infos.len() => {}
            Ok(out) => failures.push(format!(
                "{}: {} of {} checks say Not attempted:\n{}",
                rel.display(),
                count(&out.stdout, "Not attempted"),
                infos.len(),
                out.stdout.lines().filter(|l| l.contains(": ")).take(40).collect::<Vec<_>>().join("\n")
            )),
            Err(e) => failures.push(format!("{}: {e}", rel.display())),
        }
        // The source: the crate's solutions, every check cell graded as nbgrader grades it.
        let source = source_of(path);
        match run_notebook_with_errors(&copy(&source, "source"), &dir.join("source")) {
            Ok(out) if graded(&out.stdout, POINTS) + quick(&out.errors) == infos.len() && quick(&out.errors) == out.errors.len() => {}
            Ok(out) => failures.push(format!(
                "{}: {} of {} check cells graded {POINTS} points, Correct; errors:\n{}",
                source.display(),
                graded(&out.stdout, POINTS),
                infos.len(),
                out.errors.iter().map(|(n, e)| format!("code cell {n}: {e}")).collect::<Vec<_>>().join("\n")
            )),
            Err(e) => failures.push(format!("{}: {e}", source.display())),
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
        let n = exercises(&path, &read(&path)).len();
        assert!(readme.contains(&format!("| `{name}` | {n}: ")), "README.md's Practise table: `{name}` has {n} exercises");
    }
}
