//! Runs the code cells of a Jupyter notebook as one Rust program, with evcxr's meaning:
//! variables live on from cell to cell, an item in a later cell shadows an earlier one of the same
//! name, lines starting with `:` (evcxr commands such as `:dep`) are skipped, and a cell's trailing
//! expression is shown through its `evcxr_display` method, else through `Debug`.
//!
//! Each cell becomes a block nested inside the previous cell's block, so later items shadow
//! earlier ones and earlier variables stay in scope. The program is compiled with `rustc` against
//! the `attention_zoo` library this test binary was built with, so no second build of the
//! dependencies is needed (`rustc.rs`). Every failure names the notebook, the code cell and its
//! first line.
//!
//! evcxr keeps the variables a cell defines, and 0.22 refuses or mishandles some (probe notebooks
//! in tools/evcxr/README.md); after each cell the runner requires every variable the cell defines
//! to still be there and to own its data (`__nb_keep`), so these fail here as they fail there:
//! a displayed value whose expression moves one of them (evcxr shows it as `Debug` text), a
//! variable holding a reference into another, and a closure kept as a variable. A variable moved
//! before the displayed expression is simply no longer kept, as in evcxr.
//!
//! A trailing expression that fails through `?` ends its cell in an error and the later cells
//! still run, as under a Jupyter client that allows errors (nbgrader's autograding): the graded
//! check cells of the exercises' source end that way when a check is not Correct.
//! [`run_notebook`] fails on any such error; [`run_notebook_with_errors`] returns them. Such an
//! expression is evaluated in a closure, so it must give an owned value (as every displayed value
//! in the notebooks does): a reference into a temporary or into a variable does not compile there.

#![allow(dead_code)]

use super::rustc::{KEEP_MARK, compile};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use syn::spanned::Spanned;

/// One code cell: its 1-based number among the notebook's code cells and its source.
#[derive(Clone, Debug)]
pub struct CodeCell {
    pub number: usize,
    pub source: String,
}

impl CodeCell {
    pub fn first_line(&self) -> String {
        self.source.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(empty cell)").to_string()
    }
}

/// What a successful run printed.
#[derive(Debug)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// Code cells whose trailing value has no `evcxr_display` and was shown with `Debug`: evcxr
    /// compiles such a cell twice (once trying `evcxr_display`), so notebooks avoid them.
    pub debug_cells: Vec<String>,
    /// The cells whose trailing expression failed: the cell's number and the error.
    pub errors: Vec<(usize, String)>,
}

fn where_(nb: &str, cell: &CodeCell) -> String {
    format!("{nb}: code cell {} (`{}`)", cell.number, cell.first_line())
}

/// Reads the code cells of a notebook; bad JSON or missing fields give an error naming the file.
pub fn load_cells(path: &Path) -> Result<Vec<CodeCell>, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: cannot be read: {e}"))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{name}: not a readable notebook (invalid JSON): {e}"))?;
    let cells =
        json.get("cells").and_then(|c| c.as_array()).ok_or_else(|| format!("{name}: not a notebook: the top level has no 'cells' list"))?;
    let mut out = vec![];
    for (i, cell) in cells.iter().enumerate() {
        let kind = cell.get("cell_type").and_then(|k| k.as_str()).ok_or_else(|| format!("{name}: cell {} has no 'cell_type'", i + 1))?;
        let source = match cell.get("source") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(lines)) => lines.iter().map(|l| l.as_str().unwrap_or("")).collect(),
            _ => return Err(format!("{name}: cell {} has no 'source'", i + 1)),
        };
        if kind == "code" {
            out.push(CodeCell { number: out.len() + 1, source });
        }
    }
    Ok(out)
}

/// How a cell's trailing expression is shown.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Show {
    Nothing,
    Evcxr,
    Debug,
}

/// A cell ready to be emitted: its code without evcxr commands, and where its trailing
/// expression starts (a byte offset), if it has one worth showing.
struct Prepared {
    code: String,
    trailing: Option<usize>,
    /// Whether the trailing expression has a `?`: it is then evaluated in a closure, and its error
    /// ends the cell alone.
    fallible: bool,
    /// The variables the cell's top-level `let`s bind: evcxr keeps them for later cells.
    kept: Vec<String>,
}

/// The names a `let` pattern binds.
fn bound_names(pat: &syn::Pat, out: &mut Vec<String>) {
    match pat {
        syn::Pat::Ident(i) => out.push(i.ident.to_string()),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::Type(t) => bound_names(&t.pat, out),
        syn::Pat::Reference(r) => bound_names(&r.pat, out),
        syn::Pat::Slice(sl) => sl.elems.iter().for_each(|p| bound_names(p, out)),
        syn::Pat::Struct(st) => st.fields.iter().for_each(|f| bound_names(&f.pat, out)),
        _ => {}
    }
}

fn prepare(nb: &str, cell: &CodeCell) -> Result<Prepared, String> {
    // evcxr commands (`:dep`, `:cache`, ...) become blank lines so line numbers are kept.
    let code: String = cell.source.lines().map(|l| if l.trim_start().starts_with(':') { "" } else { l }).collect::<Vec<_>>().join("\n");
    let wrapped = format!("{{\n{code}\n}}");
    let block: syn::Block = syn::parse_str(&wrapped).map_err(|e| {
        let line = e.span().start().line.saturating_sub(1);
        format!("{} does not parse (line {line} of the cell): {e}", where_(nb, cell))
    })?;
    let (trailing, fallible) = match block.stmts.last() {
        // A loop at the end is a value too: evcxr 0.22 shows its `()` (so cells end loops with `;`).
        Some(syn::Stmt::Expr(e, None)) => {
            let mut tries = Tries(false);
            syn::visit::Visit::visit_expr(&mut tries, e);
            (Some(e.span()), tries.0)
        }
        Some(syn::Stmt::Macro(m)) if m.semi_token.is_none() => (Some(m.span()), false),
        _ => (None, false),
    };
    let trailing = trailing.map(|span| {
        let start = span.start();
        // Lines are 1-based and the wrapper added one line; columns count characters.
        let line_start: usize = wrapped.split('\n').take(start.line - 1).map(|l| l.len() + 1).sum();
        let col: usize = wrapped[line_start..].chars().take(start.column).map(char::len_utf8).sum();
        line_start + col - 2
    });
    let mut kept = vec![];
    for stmt in &block.stmts {
        if let syn::Stmt::Local(local) = stmt {
            // evcxr keeps a cell's variables by naming their types, and a closure's has no name
            if let (Some(init), syn::Pat::Ident(name)) = (&local.init, &local.pat)
                && matches!(*init.expr, syn::Expr::Closure(_))
            {
                return Err(format!(
                    "{} defines the closure `{}`, which evcxr cannot keep between cells: write a `fn`, box it \
                     (`let f: Box<dyn Fn(..) -> ..> = Box::new(|..| ..)`), or put the cell in a block",
                    where_(nb, cell),
                    name.ident
                ));
            }
            bound_names(&local.pat, &mut kept);
        }
    }
    kept.retain(|n| n != "_");
    kept.sort();
    kept.dedup();
    Ok(Prepared { code, trailing, fallible, kept })
}

/// Whether an expression has a `?` in it.
struct Tries(bool);

impl<'a> syn::visit::Visit<'a> for Tries {
    fn visit_expr_try(&mut self, _: &'a syn::ExprTry) {
        self.0 = true;
    }

    // a `?` inside a closure or an item is that one's own
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}

    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The generated program: its text, the line where each cell starts and the line where each
/// displayed cell's last expression starts.
struct Generated {
    src: String,
    starts: Vec<usize>,
    exprs: Vec<Option<usize>>,
}

/// `released[k]`: variables of cell `k` moved before its last expression, which evcxr simply
/// stops keeping (only a move inside the displayed expression spoils the display).
fn generate(nb: &str, cells: &[CodeCell], shows: &[Show], released: &[Vec<String>]) -> Result<Generated, String> {
    let mut src = String::from(
        "#![allow(unused, unused_mut, unused_variables, unused_imports, dead_code, non_snake_case, unused_must_use)]\n\
         fn __nb_debug<T: std::fmt::Debug + ?Sized>(v: &T) {\n\
         \x20   if std::any::type_name::<T>() != \"()\" { println!(\"{:?}\", v); }\n\
         }\n\
         fn __nb_cell(n: usize) { eprintln!(\"@@NB_CELL {n}\"); }\n\
         fn __nb_keep<T: 'static + ?Sized>(_: &T) {}\n\
         fn __nb_error(n: usize, e: &dyn std::error::Error) { eprintln!(\"@@NB_ERROR {n}\\n{e}\\n@@NB_ERROR_END\"); }\n\
         fn main() {\n\
         \x20   if let Err(e) = __nb_run() { eprintln!(\"Error: {e}\"); std::process::exit(1); }\n\
         }\n\
         fn __nb_run() -> Result<(), Box<dyn std::error::Error>> {\n",
    );
    let mut starts = vec![];
    let mut exprs = vec![];
    for (k, (cell, show)) in cells.iter().zip(shows).enumerate() {
        let p = prepare(nb, cell)?;
        let _ = writeln!(src, "__nb_cell({});\n{{", cell.number);
        starts.push(src.lines().count() + 1);
        exprs.push(None);
        match (p.trailing, show) {
            (Some(at), show @ (Show::Evcxr | Show::Debug)) => {
                let (body, expr) = p.code.split_at(at);
                let _ = write!(src, "{body}");
                if *show == Show::Evcxr {
                    exprs[k] = Some(src.lines().count() + usize::from(src.ends_with('\n')));
                }
                let shown = |value: &str| match show {
                    Show::Evcxr => format!("({value}).evcxr_display()"),
                    _ => format!("__nb_debug({value})"),
                };
                if p.fallible {
                    let _ = write!(src, "{}", fallible(expr, &shown("&__nb_v"), cell.number));
                } else {
                    let _ = writeln!(src, "{};", shown(&format!("&({expr}\n)")));
                }
            }
            _ => {
                src.push_str(&p.code);
                src.push('\n');
            }
        }
        // evcxr keeps the cell's variables: each must still be there, and own its data
        let gone = released.get(k).map(Vec::as_slice).unwrap_or_default();
        let keeps: Vec<String> = p.kept.iter().filter(|v| !gone.contains(v)).map(|v| format!("__nb_keep(&{v});")).collect();
        if !keeps.is_empty() {
            let _ = writeln!(src, "{} {KEEP_MARK}", keeps.join(" "));
        }
    }
    src.push_str(&"}\n".repeat(cells.len()));
    src.push_str("Ok(())\n}\n");
    Ok(Generated { src, starts, exprs })
}

/// A fallible trailing expression of cell `n`, evaluated in a closure: its value `__nb_v` is
/// `shown`, its error ends the cell alone.
fn fallible(expr: &str, shown: &str, n: usize) -> String {
    format!(
        "match (|| -> ::std::result::Result<_, Box<dyn std::error::Error>> {{ Ok({expr}\n) }})() {{ Ok(__nb_v) => {shown}, \
         Err(__nb_e) => __nb_error({n}, &*__nb_e) }}\n"
    )
}

fn cell_at_line(starts: &[usize], line: usize) -> Option<usize> {
    starts.iter().rposition(|&s| s <= line)
}

/// The Rust program a notebook becomes, without compiling it: reading, parsing and generating
/// (what the property tests feed corrupt notebooks to).
pub fn program(path: &Path) -> Result<String, String> {
    let nb = path.display().to_string();
    let cells = load_cells(path)?;
    let shows = first_shows(&nb, &cells)?;
    generate(&nb, &cells, &shows, &[]).map(|g| g.src)
}

/// How each cell's trailing value is shown at first: through `evcxr_display` when it has one.
fn first_shows(nb: &str, cells: &[CodeCell]) -> Result<Vec<Show>, String> {
    cells.iter().map(|c| prepare(nb, c).map(|p| if p.trailing.is_some() { Show::Evcxr } else { Show::Nothing })).collect()
}

/// Compiles and runs the code cells of the notebook at `path`. `work` is a scratch folder. A cell
/// that ends in an error fails the run.
pub fn run_notebook(path: &Path, work: &Path) -> Result<RunOutput, String> {
    let out = run_notebook_with_errors(path, work)?;
    match out.errors.first() {
        None => Ok(out),
        Some((n, e)) => {
            let cells = load_cells(path)?;
            let place = cells.iter().find(|c| c.number == *n).map(|c| where_(&path.display().to_string(), c)).unwrap_or_default();
            Err(format!("{place} ended in an error:\n{e}"))
        }
    }
}

/// Like [`run_notebook`], but the cells whose trailing expression failed through `?` are returned
/// in [`RunOutput::errors`] (the later cells ran), not as a failure of the run.
pub fn run_notebook_with_errors(path: &Path, work: &Path) -> Result<RunOutput, String> {
    let nb = path.display().to_string();
    let cells = load_cells(path)?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("notebook").replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    std::fs::create_dir_all(work).map_err(|e| format!("notebook runner: cannot create {}: {e}", work.display()))?;
    let src_path = work.join(format!("{stem}.rs"));
    let exe = work.join(format!("{stem}.bin"));
    let mut shows = first_shows(&nb, &cells)?;
    let mut released: Vec<Vec<String>> = vec![vec![]; cells.len()];
    loop {
        let Generated { src, starts, exprs } = generate(&nb, &cells, &shows, &released)?;
        std::fs::write(&src_path, &src).map_err(|e| format!("notebook runner: cannot write {}: {e}", src_path.display()))?;
        let errors = compile(&src_path, &exe)?;
        if errors.is_empty() {
            break;
        }
        // Values without an `evcxr_display` method are shown with Debug instead, as evcxr does.
        let mut switched = false;
        for e in &errors {
            if let (true, Some(k)) = (e.missing_evcxr_display, e.cell.and_then(|l| cell_at_line(&starts, l)))
                && shows[k] == Show::Evcxr
            {
                shows[k] = Show::Debug;
                switched = true;
            }
        }
        if switched {
            continue;
        }
        // A variable moved before the displayed expression: evcxr stops keeping it, and so do we.
        let mut spoiled = None;
        for e in &errors {
            if let (Some((var, at)), Some(k)) = (&e.moved_kept, e.cell.and_then(|l| cell_at_line(&starts, l))) {
                if exprs[k].is_none_or(|x| *at < x) {
                    released[k].push(var.clone());
                    switched = true;
                } else {
                    spoiled.get_or_insert(e);
                }
            }
        }
        if switched {
            continue;
        }
        let first = spoiled.or_else(|| errors.iter().find(|e| e.borrows)).unwrap_or(&errors[0]);
        let place = match first.cell.and_then(|l| cell_at_line(&starts, l)) {
            Some(k) => where_(&nb, &cells[k]),
            None => format!("{nb}: (outside any cell)"),
        };
        if let Some(e) = errors.iter().find(|e| e.borrows) {
            return Err(format!(
                "{place}: a variable this cell defines holds a reference into another one, which evcxr cannot keep between \
                 cells (\"contains a reference with a non-static lifetime so can't be persisted\"); own the data \
                 (`.to_vec()`, `.clone()`) or compute it inside a block:\n{}",
                e.rendered
            ));
        }
        if let Some(moved) = spoiled {
            return Err(format!(
                "{place}: its last expression moves a variable the cell defines, which evcxr keeps for later cells; evcxr then \
                 shows the value as Debug text instead of through evcxr_display. Clone the variable there, or put the cell in a block:\n{}",
                moved.rendered
            ));
        }
        let all: Vec<&str> = errors.iter().map(|e| e.rendered.as_str()).collect();
        return Err(format!("{place} does not compile:\n{}", all.join("\n")));
    }
    let out = Command::new(&exe)
        .env("RAYON_NUM_THREADS", "1")
        // The crate is built without optimisation here: long trainings run a few batches an epoch
        // (the one switch that shortens them; `make notebooks` runs them in full).
        .env(attention_zoo::train::QUICK_ENV, "1")
        .current_dir(path.parent().unwrap_or(Path::new(".")))
        .output()
        .map_err(|e| format!("notebook runner: cannot run {}: {e}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    // What the cells printed, kept beside the program for reading while editing a notebook.
    let _ = std::fs::write(work.join(format!("{stem}.stdout.txt")), &stdout);
    if !out.status.success() || stderr.contains("panicked at") {
        let last = stderr.lines().filter_map(|l| l.strip_prefix("@@NB_CELL ")).next_back().and_then(|n| n.trim().parse::<usize>().ok());
        let place = match last.and_then(|n| cells.iter().find(|c| c.number == n)) {
            Some(c) => where_(&nb, c),
            None => format!("{nb}: before the first cell"),
        };
        let detail: String = stderr.lines().filter(|l| !l.starts_with("@@NB_CELL")).collect::<Vec<_>>().join("\n");
        return Err(format!("{place} failed at run time ({}):\n{detail}", out.status));
    }
    let debug_cells = cells.iter().zip(&shows).filter(|(_, s)| **s == Show::Debug).map(|(c, _)| where_(&nb, c)).collect();
    let mut errors = vec![];
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        if let Some(n) = line.strip_prefix("@@NB_ERROR ").and_then(|n| n.trim().parse::<usize>().ok()) {
            let message: Vec<&str> = lines.by_ref().take_while(|l| *l != "@@NB_ERROR_END").collect();
            errors.push((n, message.join("\n")));
        }
    }
    Ok(RunOutput { stdout, stderr, debug_cells, errors })
}
