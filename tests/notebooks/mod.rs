//! `cargo test` runs the code cells of every `notebooks/*.ipynb`, in order, with evcxr's meaning
//! (see `nbrun.rs`); a new notebook needs no registration. The runner's own behaviour on
//! failing cells and broken notebooks is tested here too.

mod exercises;
mod nbrun;
mod rustc;

use nbrun::run_notebook;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn work() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("notebooks")
}

/// The notebooks of a folder of the clone (`notebooks`, `notebooks/exercises`,
/// `notebooks/exercises-source`), sorted. While
/// editing one: `ZOO_NOTEBOOK=02_ cargo test --test zoo notebooks::` runs only the notebooks whose
/// file name contains that text.
fn notebooks_in(folder: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(folder))
        .unwrap_or_else(|e| panic!("{folder}/: {e}"))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ipynb"))
        .collect();
    if let Ok(only) = std::env::var("ZOO_NOTEBOOK") {
        paths.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains(&only)));
    }
    paths.sort();
    paths
}

#[test]
fn every_notebook_runs() {
    let paths = notebooks_in("notebooks");
    assert!(!paths.is_empty(), "no notebooks found in notebooks/");
    let mut failures = vec![];
    for p in &paths {
        let rel = p.strip_prefix(root()).unwrap_or(p).to_path_buf();
        match run_notebook(&rel, &work()) {
            Ok(out) if !out.debug_cells.is_empty() => failures.push(format!(
                "{}: these cells end in a value without `evcxr_display` (evcxr compiles them twice); end them with `;` or a displayable value:\n{}",
                rel.display(),
                out.debug_cells.join("\n")
            )),
            Ok(out) => eprintln!("ok {} ({} bytes of output)", rel.display(), out.stdout.len()),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{} notebook(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Writes a scratch notebook with these code cells (or this raw text) and runs it.
fn run_cells(name: &str, cells: &[&str]) -> Result<String, String> {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": c}))
        .collect();
    let nb = serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    run_raw(name, &serde_json::to_string_pretty(&nb).expect("json"))
}

fn run_raw(name: &str, text: &str) -> Result<String, String> {
    let dir = work().join("cases");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write notebook");
    run_notebook(&path, &dir).map(|o| o.stdout)
}

/// A trailing expression that fails through `?` ends its cell in an error, and the later cells
/// run, as under a Jupyter client that allows errors (nbgrader's autograding); `run_notebook`
/// fails on it, naming the cell.
#[test]
fn a_failing_trailing_expression_ends_its_cell_alone() {
    let cells = [
        "use attention_zoo::prelude::*;\nlet t = Tensor::new(&[1f32, 2.0], &Device::Cpu)?;",
        "t.reshape((3, 1))?",
        "let total = t.sum_all()?.to_scalar::<f32>()?;\nshow(&t)",
        "{ Tensor::new(&[7u32, total as u32], &Device::Cpu)?.to_vec1::<u32>()? }",
    ];
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": c}))
        .collect();
    let dir = work().join("cases");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("trailing_errors.ipynb");
    let nb = serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    std::fs::write(&path, serde_json::to_string_pretty(&nb).expect("json")).expect("write notebook");
    let out = nbrun::run_notebook_with_errors(&path, &dir).expect("the notebook runs");
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].0, 2, "{:?}", out.errors);
    assert!(out.errors[0].1.contains("Shape mismatch"), "{:?}", out.errors);
    assert!(out.stdout.contains("tensor([1., 2.])") && out.stdout.contains("[7, 3]"), "the later cells ran: {}", out.stdout);
    let err = run_notebook(&path, &dir).unwrap_err();
    assert!(err.contains("trailing_errors.ipynb: code cell 2 (`t.reshape((3, 1))?`) ended in an error:\nShape mismatch"), "{err}");
}

#[test]
fn variables_persist_items_shadow_and_commands_are_skipped() {
    let out = run_cells(
        "semantics.ipynb",
        &[
            ":dep attention_zoo = { path = \"..\" }\nuse attention_zoo::prelude::*;\nfn f() -> i32 { 1 }",
            "let a = f();\nlet mut v = vec![a];",
            "fn f() -> i32 { 2 }\nv.push(f());",
            "assert_eq!(v, vec![1, 2]);\nv",
        ],
    )
    .expect("the notebook runs");
    assert!(out.contains("[1, 2]"), "the last cell's value is shown with Debug: {out}");
}

#[test]
fn trailing_expressions_use_evcxr_display() {
    let out = run_cells(
        "display.ipynb",
        &["use attention_zoo::prelude::*;\nlet t = Tensor::new(&[[1f32, 2.5], [3.0, 4.0]], &Device::Cpu)?;", "show(&t)"],
    )
    .expect("the notebook runs");
    assert!(out.contains("EVCXR_BEGIN_CONTENT text/html"), "{out}");
    assert!(out.contains("EVCXR_BEGIN_CONTENT text/plain"), "{out}");
    assert!(out.contains("tensor([[1.0000, 2.5000],"), "{out}");
}

/// The probe measured under evcxr 0.22 (tools/evcxr/README.md): a last expression that moves a
/// variable the cell defines is shown as Debug text there, so it fails here; a clone or a block
/// is shown through `evcxr_display` in both.
#[test]
fn a_last_expression_moving_a_kept_variable_fails_as_in_evcxr() {
    let err = run_cells("moved.ipynb", &["use attention_zoo::prelude::*;", "let tbl = Table::new(&[\"a\"]);\ntbl.titled(\"moved\")"])
        .unwrap_err();
    assert!(err.contains("moved.ipynb: code cell 2 (`let tbl = Table::new(&[\"a\"]);`): its last expression moves a variable"), "{err}");
    assert!(err.contains("Clone the variable there, or put the cell in a block"), "{err}");
    let out = run_cells(
        "kept.ipynb",
        &[
            "use attention_zoo::prelude::*;",
            "let tbl2 = Table::new(&[\"a\"]);\ntbl2.clone().titled(\"cloned\")",
            "{\n    let tbl3 = Table::new(&[\"a\"]);\n    tbl3.titled(\"in a block\")\n}",
            "let (x, mut y) = (1, vec![2]);\ny.push(x);\nshow(&Tensor::new(y.as_slice(), &Device::Cpu)?)",
        ],
    )
    .expect("clones, blocks and borrowed variables are fine");
    assert!(out.contains("cloned") && out.contains("in a block"), "{out}");
}

/// evcxr 0.22 refuses to keep a closure ("The variable `f` is a closure, which cannot be
/// persisted"); a `fn` or a block is fine.
#[test]
fn a_closure_kept_as_a_variable_fails_as_in_evcxr() {
    let err = run_cells("closure.ipynb", &["let f = |x: i32| x + 1;\nlet y = f(2);"]).unwrap_err();
    assert!(err.contains("closure.ipynb: code cell 1 (`let f = |x: i32| x + 1;`) defines the closure `f`"), "{err}");
    run_cells("fn.ipynb", &["fn f(x: i32) -> i32 { x + 1 }\nlet y = f(2);", "{\n    let g = |x: i32| x * 2;\n    assert_eq!(g(y), 6);\n}"])
        .expect("a fn, and a closure inside a block, are fine");
}

/// evcxr 0.22 refuses to keep a variable holding a reference into another ("contains a reference
/// with a non-static lifetime so can't be persisted"); owned data or a block is fine.
#[test]
fn a_kept_reference_fails_as_in_evcxr() {
    let err = run_cells("borrow.ipynb", &["let v = vec![1, 2, 3];", "let head = &v[..2];\nlet n = head.len();"]).unwrap_err();
    assert!(err.contains("borrow.ipynb: code cell 2 (`let head = &v[..2];`): a variable this cell defines holds a reference"), "{err}");
    run_cells("owned.ipynb", &["let v = vec![1, 2, 3];", "let head = v[..2].to_vec();\nlet n = { let h = &v[..2]; h.len() };\nv.len()"])
        .expect("owned copies and references inside a block are fine");
}

#[test]
fn a_panicking_cell_fails_naming_notebook_and_cell() {
    let err = run_cells("panics.ipynb", &["let x = 1;", "let y = x + 1;\npanic!(\"boom {y}\");"]).unwrap_err();
    assert!(err.contains("panics.ipynb: code cell 2 (`let y = x + 1;`)"), "{err}");
    assert!(err.contains("boom 2"), "{err}");
}

#[test]
fn an_error_returned_by_a_cell_fails_naming_the_cell() {
    let err = run_cells(
        "errors.ipynb",
        &["use attention_zoo::prelude::*;", "let t = Tensor::zeros((2, 3), DType::F32, &Device::Cpu)?;\nlet u = t.matmul(&t)?;"],
    )
    .unwrap_err();
    assert!(err.contains("errors.ipynb: code cell 2 (`let t = Tensor::zeros"), "{err}");
}

#[test]
fn a_cell_that_does_not_compile_fails_naming_the_cell() {
    let err = run_cells("compile.ipynb", &["let x = 1;", "let ok = 2;", "let s: u32 = \"not a number\";"]).unwrap_err();
    assert!(err.contains("compile.ipynb: code cell 3 (`let s: u32 = \"not a number\";`) does not compile"), "{err}");
    assert!(err.contains("mismatched types"), "{err}");
}

#[test]
fn a_cell_that_does_not_parse_fails_naming_the_cell() {
    let err = run_cells("parse.ipynb", &["let x = 1;", "let y = (x + ;"]).unwrap_err();
    assert!(err.contains("parse.ipynb: code cell 2 (`let y = (x + ;`) does not parse"), "{err}");
}

#[test]
fn broken_notebooks_give_clear_errors() {
    let err = run_raw("broken.ipynb", "{\"cells\": [").unwrap_err();
    assert!(err.contains("broken.ipynb: not a readable notebook (invalid JSON)"), "{err}");
    let err = run_raw("nocells.ipynb", "{\"metadata\": {}}").unwrap_err();
    assert!(err.contains("nocells.ipynb: not a notebook: the top level has no 'cells' list"), "{err}");
    let err = run_raw("nosource.ipynb", "{\"cells\": [{\"cell_type\": \"code\"}]}").unwrap_err();
    assert!(err.contains("nosource.ipynb: cell 1 has no 'source'"), "{err}");
}

mod corruption {
    //! Random corruptions of a real notebook and random cell sources: the runner returns a
    //! program or an error naming the notebook, never a panic.
    use super::nbrun::program;
    use proptest::prelude::*;
    use proptest::test_runner::Config;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = super::work().join("corrupt");
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("written");
        path
    }

    /// Pieces of Rust and of notebook JSON that random cells are made of.
    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "let x = 1;",
            "x",
            "(",
            ")",
            "{",
            "}",
            "?",
            ";",
            "\n",
            ":dep",
            "\"",
            "'",
            "fn f() {}",
            "//",
            "/*",
            "*/",
            "r#\"",
            "\\",
            "é",
            "show(&t)",
            "use attention_zoo::prelude::*;",
            "#",
            "!",
            "[",
            "]",
        ])
    }

    proptest! {
        #![proptest_config(Config { failure_persistence: None, ..Config::default() })]

        #[test]
        fn corrupt_notebooks_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6), cut in any::<prop::sample::Index>(), truncate: bool) {
            let good = std::fs::read(super::root().join("notebooks/00_tour.ipynb")).expect("the tour notebook");
            let mut bytes = good;
            for (at, x) in &flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x | 1;
            }
            if truncate {
                bytes.truncate(cut.index(bytes.len()));
            }
            if let Err(e) = program(&scratch("flipped.ipynb", &bytes)) {
                prop_assert!(e.contains("flipped.ipynb"), "{}", e);
            }
        }

        #[test]
        fn random_cells_never_panic(cells in prop::collection::vec(prop::collection::vec(token(), 0..8), 0..5)) {
            let cells: Vec<serde_json::Value> = cells
                .iter()
                .map(|c| serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": c.concat()}))
                .collect();
            let nb = serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
            let _ = program(&scratch("random.ipynb", nb.to_string().as_bytes()));
        }
    }
}

#[test]
fn the_quick_switch_reaches_a_notebooks_trainer() {
    // This process's default generator is in use: the notebook's program, a child process that
    // inherits our environment, must make its own (it used to read our address and crash).
    let _serial = crate::common::serial();
    attention_zoo::prelude::manual_seed(1).expect("a seed");
    // The runner sets ATTENTION_ZOO_QUICK=1, as the README says of the `cargo test` pass.
    let out = run_cells(
        "quick.ipynb",
        &[
            ":dep attention_zoo = { path = \"..\" }\nuse attention_zoo::prelude::*;",
            "manual_seed(0)?;\nlet model = EncoderDecoder::new(Encoder::new(2, 2)?, Decoder::new(2, 2)?, 2, 2, 0.5)?;\nlet adam = Adam::new(model.parameters(), 0.01)?;\nlet mut sbs = StepByStep::new(model, MSELoss::new(), adam);",
            "let full = generate_sequences(160, false, 13)?.to_tensor()?;\nlet train = TensorDataset::new(&full, &full.narrow(1, 2, 2)?)?;\nlet valid = TensorDataset::new(&full, &full.narrow(1, 2, 2)?)?;\nsbs.set_loaders(DataLoader::new(train, 16)?, Some(DataLoader::new(valid, 16)?));\nsbs.progress_every = 0;\nsbs.train(1)?;",
            "println!(\"max_batches {:?}, trained on {} of 10 batches\", sbs.max_batches, sbs.epoch_stats[0].batches);",
        ],
    )
    .expect("the notebook runs");
    assert!(out.contains("StepByStep::train: at most 3 training and 3 validation batches an epoch (max_batches)"), "{out}");
    assert!(out.contains("max_batches Some(3), trained on 3 of 10 batches"), "{out}");
}
