//! The crate's layout rules, checked on its sources: layers import only layers below them, no
//! import cycle among files, no file over 400 lines, every public `forward`, `predict`,
//! `decode` and `encode` documents its shapes, and a model's contracts are implemented beside it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first. A file may use its own layer and those before it.
const LAYERS: [&str; 8] = ["repro", "nn", "attention", "models", "data", "train", "notebook", "practice"];

const MAX_LINES: usize = 400;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/`, with its module path (`nn::linear`, `notebook::plots`).
fn modules() -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("src/ is readable").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().and_then(|s| s.to_str()).expect("a file name").to_string();
            if p.is_dir() {
                let mut next = prefix.to_vec();
                next.push(name);
                walk(&p, &next, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let mut path = prefix.to_vec();
                if name != "mod" && name != "lib" {
                    path.push(name);
                }
                out.insert(path.join("::"), p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &[], &mut out);
    out
}

/// The code of a file without comments (doc links may point anywhere).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The modules a file refers to through `crate::` and `super::` paths, resolved to the longest
/// module path that exists.
fn references(module: &str, code: &str, known: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let here: Vec<&str> = if module.is_empty() { vec![] } else { module.split("::").collect() };
    // `super` in `a/b.rs` is `a`; in `a/b/mod.rs` (module a::b) it is `a` too.
    let parent: Vec<&str> = if here.is_empty() { vec![] } else { here[..here.len() - 1].to_vec() };
    let text = code;
    for (start, kw) in [("crate::", 0usize), ("super::", 1)] {
        let mut from = 0;
        while let Some(pos) = text[from..].find(start) {
            let at = from + pos;
            from = at + start.len();
            let before = text[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest: String = text[from..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            let mut path: Vec<String> = if kw == 0 { vec![] } else { parent.iter().map(|s| s.to_string()).collect() };
            path.extend(rest.split("::").filter(|s| !s.is_empty()).map(str::to_string));
            // Braced groups (`use crate::nn::{a, b}`) resolve to their prefix; that is enough for layers.
            while !path.is_empty() && !known.contains_key(&path.join("::")) {
                path.pop();
            }
            let target = path.join("::");
            if !target.is_empty() && target != module {
                out.insert(target);
            }
        }
    }
    out
}

fn layer_of(module: &str) -> Option<usize> {
    let top = module.split("::").next()?;
    LAYERS.iter().position(|l| *l == top)
}

#[test]
fn layers_point_down_and_files_form_no_cycle() {
    let known = modules();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut violations = vec![];
    for (module, path) in &known {
        let is_mod = path.file_name().is_some_and(|n| n == "mod.rs");
        let refs = references(module, &code(path), &known);
        if let Some(mine) = layer_of(module) {
            for r in &refs {
                if let Some(theirs) = layer_of(r)
                    && theirs > mine
                {
                    violations.push(format!("{module} ({}) uses {r} ({}), a layer above it", LAYERS[mine], LAYERS[theirs]));
                }
            }
        }
        // A folder's mod.rs re-exports its children; edges from it would make every child that
        // names a sibling through the folder look cyclic, so only leaf files enter the graph.
        if !is_mod && !module.is_empty() {
            let edges = refs.into_iter().filter(|r| known.get(r).is_some_and(|p| p.file_name().is_none_or(|n| n != "mod.rs"))).collect();
            graph.insert(module.clone(), edges);
        }
    }
    assert!(violations.is_empty(), "layer violations:\n{}", violations.join("\n"));
    // Depth-first search for a cycle among files.
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(1) => {
                let i = stack.iter().position(|s| s == n).unwrap_or(0);
                let mut cycle = stack[i..].to_vec();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            Some(_) => return None,
            None => {}
        }
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(cycle) = visit(n, &graph, &mut state, &mut vec![]) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
    assert!(graph.len() > 30, "the walk found only {} files", graph.len());
}

#[test]
fn no_source_file_is_over_400_lines() {
    let long: Vec<String> = modules()
        .values()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).expect("readable").lines().count();
            (n > MAX_LINES).then(|| format!("{} has {n} lines", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn every_public_forward_documents_its_shapes() {
    let names = ["forward", "forward_masked", "predict", "decode", "encode"];
    let mut missing = vec![];
    for path in modules().values() {
        let text = std::fs::read_to_string(path).expect("readable");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // Public inherent functions, and trait declarations (no body).
            let sig = t.strip_prefix("pub fn ").or_else(|| t.strip_prefix("fn ").filter(|_| t.trim_end().ends_with(';')));
            let Some(sig) = sig else { continue };
            let name: String = sig.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !names.contains(&name.as_str()) {
                continue;
            }
            // The doc comment above the function, past its attributes (`#[errors_as(..)]`).
            let doc: Vec<&str> = lines[..i]
                .iter()
                .rev()
                .skip_while(|l| l.trim_start().starts_with("#["))
                .take_while(|l| l.trim_start().starts_with("///"))
                .copied()
                .collect();
            if !doc.iter().any(|l| l.contains("# Shapes")) {
                missing.push(format!("{}:{}: {}", path.strip_prefix(src()).unwrap_or(path).display(), i + 1, t));
            }
        }
    }
    assert!(missing.is_empty(), "public functions without a `# Shapes` doc section:\n{}", missing.join("\n"));
}

/// The traits that make a model a model: its module tree, its forward for the trainer, its
/// translation contract, and the trainer's view of it.
const CONTRACTS: [&str; 5] = ["Walk", "Model", "Translate", "RecurrentTranslate", "Learner"];

#[test]
fn contracts_are_implemented_in_the_models_own_folder() {
    let known = modules();
    // Where each public struct or enum is defined.
    let mut defined: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in known.values() {
        for line in code(path).lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("pub struct ").or_else(|| t.strip_prefix("pub enum ")) {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                defined.insert(name, path.clone());
            }
        }
    }
    let mut seen = 0;
    let mut misplaced = vec![];
    for path in known.values() {
        for line in code(path).lines() {
            let t = line.trim_start();
            // A derived walk (`#[derive(.., Walk)]`) is written on the struct itself: at home.
            if t.starts_with("#[derive(") && t.split(|c: char| !c.is_alphanumeric()).any(|w| w == "Walk") {
                seen += 1;
                continue;
            }
            if !t.starts_with("impl") {
                continue;
            }
            let Some((head, ty)) = t.split_once(" for ") else { continue };
            let Some(contract) = CONTRACTS.iter().find(|c| head.contains(&format!(" {c}")) || head.contains(&format!(">{c}"))) else {
                continue;
            };
            let name: String = ty.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            // Blanket impls (`for M`) are generic code, not a model's.
            let Some(home) = defined.get(&name) else { continue };
            seen += 1;
            if home.parent() != path.parent() {
                misplaced.push(format!("{}: `{contract}` for {name}, defined in {}", path.display(), home.display()));
            }
        }
    }
    assert!(seen > 30, "found only {seen} contract impls");
    assert!(misplaced.is_empty(), "contracts implemented away from their model's folder:\n{}", misplaced.join("\n"));
}

/// The public modules: the layers, the prelude, the process settings (`tuning`) and four concept groups. Everything else is a
/// private file whose items the layer re-exports (`pub use`), so the public surface is what a
/// user calls, not the crate's file tree; the fused kernels and the AVX port stay private.
const PUBLIC_MODULES: [&str; 29] = [
    "attention",
    "data",
    "data::corpus",
    "data::text",
    "models",
    "nn",
    "notebook",
    "practice",
    "practice::attention",
    "practice::blog",
    "practice::gps",
    "practice::progress",
    "practice::self_attention",
    "practice::seq2seq",
    "practice::solutions",
    "practice::solutions::attention",
    "practice::solutions::blog",
    "practice::solutions::gps",
    "practice::solutions::self_attention",
    "practice::solutions::seq2seq",
    "practice::solutions::transformer",
    "practice::transformer",
    "prelude",
    "repro",
    "train",
    "train::quick",
    "train::stats",
    "train::translation",
    "tuning",
];

#[test]
fn only_the_layers_and_concept_groups_are_public_modules() {
    let mut public = vec![];
    for (module, path) in modules() {
        for line in code(&path).lines() {
            let t = line.trim_start();
            let Some(rest) = t.strip_prefix("pub mod ") else { continue };
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let full = if module.is_empty() { name } else { format!("{module}::{name}") };
            // Inline modules inside a private file (`lexicon::class`) are not reachable.
            if !full.starts_with("data::corpus::lexicon") {
                public.push(full);
            }
        }
    }
    public.sort();
    assert_eq!(public, PUBLIC_MODULES, "public modules");
}

/// What only the kernel wing (`nn::fused`) may name: candle's custom-op machinery, its CPU storage,
/// raw float32 slices and `unsafe`. The rooms a student reads beside the lecture (`nn`,
/// `attention`, `models`) reach a kernel through one call into the wing.
/// The one place outside the kernel wing that may write `unsafe`: the default generator shared by
/// evcxr's per-cell copies of the crate through an address in the environment (each block's
/// `// SAFETY:` comment says why it is sound).
const UNSAFE_OUTSIDE_THE_WING: &str = "repro::default";

const KERNEL_WORDS: [&str; 6] = ["CustomOp", "CpuStorage", "apply_op", "unsafe", "[f32]", "as_slice::<f32>"];

#[test]
fn only_the_kernel_wing_names_custom_ops_raw_slices_or_unsafe() {
    let mut found = vec![];
    for (module, path) in modules() {
        let front = ["nn", "attention", "models"].contains(&module.split("::").next().unwrap_or(""));
        if !front || module == "nn::fused" || module.starts_with("nn::fused::") {
            continue;
        }
        for (k, line) in code(&path).lines().enumerate() {
            for word in KERNEL_WORDS.iter().filter(|w| line.contains(*w)) {
                found.push(format!("{}:{}: {word}", path.display(), k + 1));
            }
        }
    }
    assert!(found.is_empty(), "kernel words outside nn::fused:\n{}", found.join("\n"));
    // `unsafe` in every layer, not only the front rooms: the wing, and one named place.
    let mut unsafe_found = vec![];
    for (module, path) in modules() {
        if module == "nn::fused" || module.starts_with("nn::fused::") || module == UNSAFE_OUTSIDE_THE_WING {
            continue;
        }
        for (k, line) in code(&path).lines().enumerate() {
            if line.contains("unsafe") {
                unsafe_found.push(format!("{}:{}", path.display(), k + 1));
            }
        }
    }
    assert!(unsafe_found.is_empty(), "`unsafe` outside nn::fused and {UNSAFE_OUTSIDE_THE_WING}:\n{}", unsafe_found.join("\n"));
    // The one named place does need it, and says why at each block.
    let shared = std::fs::read_to_string(src().join("repro/default.rs")).expect("readable");
    assert!(code(&src().join("repro/default.rs")).contains("unsafe"));
    assert_eq!(
        shared.matches("    // SAFETY:").count(),
        shared.matches("unsafe {").count(),
        "a `// SAFETY:` comment for every unsafe block"
    );
    // One generic adapter each makes every one- and three-input kernel a candle node.
    for op in ["CustomOp1 for", "CustomOp3 for"] {
        let impls: Vec<String> = modules()
            .into_iter()
            .filter(|(_, p)| code(p).contains(op))
            .map(|(m, p)| format!("{m}: {}", code(&p).matches(op).count()))
            .collect();
        assert_eq!(impls, ["nn::fused::node: 1"], "impl {op} outside the adapters (Node1, Node3)");
    }
    // The rule has something to hold: the wing does name them.
    let wing = src().join("nn/fused/kernels.rs");
    assert!(code(&wing).contains("CustomOp") && code(&wing).contains("[f32]"));
}

/// The notebook layer's rooms: its files live in folders by what they are, each folder's
/// `mod.rs` opening with a line that says what it holds; nothing but `mod.rs` at its top.
const NOTEBOOK_ROOMS: [&str; 5] = ["code", "display", "explorer", "figures", "page"];

#[test]
fn the_notebook_layer_keeps_its_files_in_rooms() {
    let dir = src().join("notebook");
    let mut rooms = vec![];
    let mut loose = vec![];
    for entry in std::fs::read_dir(&dir).expect("src/notebook is readable") {
        let p = entry.expect("entry").path();
        let name = p.file_name().and_then(|s| s.to_str()).expect("a name").to_string();
        if p.is_dir() {
            let doc = std::fs::read_to_string(p.join("mod.rs")).expect("a room has a mod.rs");
            assert!(doc.starts_with("//! "), "src/notebook/{name}/mod.rs opens with a line saying what the room holds");
            rooms.push(name);
        } else if name != "mod.rs" {
            loose.push(name);
        }
    }
    rooms.sort();
    assert!(loose.is_empty(), "files loose at the top of src/notebook (put each in a room): {loose:?}");
    assert_eq!(rooms, NOTEBOOK_ROOMS, "src/notebook's rooms");
}
