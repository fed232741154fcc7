//! The door rule, for every folder of `src/`: a public function checks its inputs once, in its
//! first statements (the door), and labels its errors once (`#[errors_as]`, or one `.within(..)`
//! where the label is only known at run time); below the door, the body is the lecture's
//! arithmetic with plain `?`: no `check_*` call, no `bail!`, no `invalid(..)`, no
//! `let module = "..."`. `bail!` lives only in doors and check functions. Read with `syn`, so
//! comments and strings do not count.

use quote::ToTokens;
use std::path::{Path, PathBuf};
use syn::visit::Visit;
use syn::{Block, ImplItemFn, ItemFn, Stmt, Visibility};

/// Every folder of src/ (tests/layout.rs keeps the list of layers).
const ROOMS: [&str; 8] = ["repro", "nn", "attention", "models", "data", "train", "notebook", "practice"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The tokens of a statement as one string without spaces (`check_batch(x,self.d_model)?;`).
fn squeezed(stmt: &Stmt) -> String {
    stmt.to_token_stream().to_string().split_whitespace().collect()
}

/// What only a door may do: check an input, refuse it.
fn checks(text: &str) -> bool {
    let called =
        |name: &str| text.match_indices(name).any(|(i, _)| i == 0 || !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
    // a call of a check function or method: `check_batch(..)`, `self.check_step(..)`
    text.match_indices("check_").any(|(i, _)| {
        (i == 0 || !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            && text[i..].find('(').is_some_and(|p| text[i..i + p].chars().all(|c| c.is_alphanumeric() || c == '_'))
    }) || called("bail!")
        || called("invalid(")
        || called("invalid_shape(")
        || called("error(")
        || called("shape_error(")
}

/// The problems of one public function's body: a check below its door, more than one label.
fn problems(name: &str, labels: usize, body: &Block) -> Vec<String> {
    let mut found = vec![];
    let door = body.stmts.iter().take_while(|s| checks(&squeezed(s))).count();
    for stmt in &body.stmts[door..] {
        let text = squeezed(stmt);
        if checks(&text) {
            found.push(format!("{name}: a check below the door: {}", &text[..text.len().min(100)]));
        }
        if text.contains("letmodule=\"") {
            found.push(format!("{name}: let module = \"...\""));
        }
    }
    let withins = body.stmts.iter().map(|s| squeezed(s).matches(".within(").count()).sum::<usize>();
    if labels + withins > 1 {
        found.push(format!("{name}: {} labels (#[errors_as] and .within)", labels + withins));
    }
    found
}

/// The problems of a function that is not public: it raises no error of its own with `bail!`
/// or a `let module`, below the checks it starts with.
fn hidden_problems(name: &str, body: &Block) -> Vec<String> {
    let door = body.stmts.iter().take_while(|s| checks(&squeezed(s))).count();
    let mut found = vec![];
    for stmt in &body.stmts[door..] {
        let text = squeezed(stmt);
        if text.contains("bail!") {
            found.push(format!("{name}: bail! below the checks: {}", &text[..text.len().min(100)]));
        }
        if text.contains("letmodule=\"") {
            found.push(format!("{name}: let module = \"...\""));
        }
    }
    found
}

struct Doors<'a> {
    file: &'a str,
    found: Vec<String>,
    public: usize,
}

impl Doors<'_> {
    fn function(&mut self, vis: &Visibility, attrs: &[syn::Attribute], name: &syn::Ident, body: &Block) {
        // A check (`check_rows`) is a door of its own, for its callers.
        if name.to_string().starts_with("check_") {
            return;
        }
        if !matches!(vis, Visibility::Public(_)) {
            for p in hidden_problems(&format!("{}: {name}", self.file), body) {
                self.found.push(p);
            }
            return;
        }
        self.public += 1;
        let labels = attrs.iter().filter(|a| a.path().is_ident("errors_as")).count();
        for p in problems(&format!("{}: {name}", self.file), labels, body) {
            self.found.push(p);
        }
    }
}

impl<'ast> Visit<'ast> for Doors<'_> {
    fn visit_item_fn(&mut self, f: &'ast ItemFn) {
        self.function(&f.vis, &f.attrs, &f.sig.ident, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast ImplItemFn) {
        self.function(&f.vis, &f.attrs, &f.sig.ident, &f.block);
    }
}

#[test]
fn every_public_function_checks_at_the_door_and_labels_once() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders: Vec<String> = std::fs::read_dir(&src)
        .expect("src/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    folders.sort();
    let mut rooms = ROOMS.map(String::from).to_vec();
    rooms.sort();
    assert_eq!(folders, rooms, "the rule reads every folder of src/");
    let (mut found, mut public) = (vec![], 0);
    for room in ROOMS {
        let mut paths = vec![];
        files(&src.join(room), &mut paths);
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("readable");
            if text.contains('\u{2060}') {
                found.push(format!("{}: a U+2060 character", path.display()));
            }
            let file = syn::parse_file(&text).expect("a Rust file");
            let name = path.strip_prefix(&src).unwrap_or(&path).display().to_string();
            // a kernel's guard on the crate's own values (nn/fused/node.rs) is not an input check
            if text.contains("unexpected(") && !name.starts_with("nn/fused/") {
                found.push(format!("{name}: unexpected(..) outside the kernels"));
            }
            let mut doors = Doors { file: &name, found: vec![], public: 0 };
            doors.visit_file(&file);
            found.extend(doors.found);
            public += doors.public;
        }
    }
    assert!(public > 100, "the rule reads the rooms' public functions ({public} found)");
    assert!(found.is_empty(), "public functions that break the door rule:\n{}", found.join("\n"));
}

#[test]
fn the_rule_sees_a_check_below_the_door_and_a_second_label() {
    let body: Block = syn::parse_quote!({
        check_batch(x, self.d_model)?;
        let y = self.layer.forward(x).within("Layer")?;
        check_float(&y)?;
        Ok(y)
    });
    let found = problems("f", 1, &body);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("a check below the door: check_float"));
    assert!(found[1].contains("2 labels"));
    let door: Block = syn::parse_quote!({
        check_batch(x, self.d_model)?;
        if x.dim(0)? == 0 {
            return Err(invalid("an empty batch"));
        }
        let y = self.layer.forward(x)?;
        Ok(y.checked_len())
    });
    assert!(problems("g", 1, &door).is_empty());
    // a function that is not public raises no error with bail! below its checks
    let hidden: Block = syn::parse_quote!({
        if n == 0 {
            bail!("empty");
        }
        let rows = x.dim(0)?;
        if rows > n {
            bail!("too many rows");
        }
        Ok(rows)
    });
    let found = hidden_problems("h", &hidden);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("bail! below the checks"));
}
