use super::extract::{CHECKS_ELIDED, Pick, drop_labels, pick};
use super::{classes, show_class};
use crate::notebook::diagram::Architecture;

const SAMPLE: &str = r##"//! A file.
use x::y;

/// A tuple struct.
#[derive(Clone)]
pub struct Pair(pub u8, pub u8);

/// The layer.
pub struct Layer<T> {
    pub w: T, // { not a brace
}

impl<T: Clone> Layer<T> {
    /// Makes one.
    pub fn new(w: T) -> Result<Self> {
        let s = r#"}"#;
        let c = '{';
        Ok(Layer { w })
    }

    fn helper<'a>(&'a self) -> &'a T {
        &self.w
    }

    pub fn apply(&self, x: &Tensor) -> Result<Tensor> {
        check_batch("Layer::apply", x, 3)?;
        if x.rank() != 3 {
            bail!("Layer: rank {}", x.rank())
        }
        // the product
        let y = x.matmul(&self.w).within("Layer")?;
        let z = if y.rank() == 3 { y } else { bail!("no") };
        match y.dims() {
            &[_, _, 3] => {}
            d => bail!("bad {d:?}"),
        }
        Ok(z
            .relu()?)
    }
}

impl Walk for Layer<u8> {
    fn walk(&self) {}
}

pub type Small = Layer<u8>;

pub fn free(a: u8) -> u8 {
    a
}

pub struct After;
"##;

#[test]
fn picks_items_past_braces_in_strings_chars_and_comments() {
    assert_eq!(pick(SAMPLE, Pick::Struct("Pair")).unwrap(), "/// A tuple struct.\n#[derive(Clone)]\npub struct Pair(pub u8, pub u8);");
    assert_eq!(pick(SAMPLE, Pick::Struct("Layer")).unwrap(), "/// The layer.\npub struct Layer<T> {\n    pub w: T, // { not a brace\n}");
    let new = pick(SAMPLE, Pick::Methods("Layer", &["new"])).unwrap();
    assert!(new.starts_with("impl<T: Clone> Layer<T> {\n    /// Makes one.\n    pub fn new(w: T)"), "{new}");
    assert!(new.ends_with("        Ok(Layer { w })\n    }\n}"), "{new}");
    assert_eq!(pick(SAMPLE, Pick::Alias("Small")).unwrap(), "pub type Small = Layer<u8>;");
    assert_eq!(pick(SAMPLE, Pick::Fn("free")).unwrap(), "pub fn free(a: u8) -> u8 {\n    a\n}");
    assert_eq!(pick(SAMPLE, Pick::TraitImpl("Walk", "Layer<u8>")).unwrap(), "impl Walk for Layer<u8> {\n    fn walk(&self) {}\n}");
    let two = pick(SAMPLE, Pick::Methods("Layer", &["helper", "new"])).unwrap();
    assert!(two.find("fn helper").unwrap() < two.find("fn new").unwrap() && two.matches("impl<T: Clone>").count() == 1, "{two}");
    for missing in [Pick::Struct("Nope"), Pick::Methods("Layer", &["nope"]), Pick::Methods("Nope", &["new"]), Pick::Fn("nope")] {
        assert!(pick(SAMPLE, missing).unwrap_err().contains("not found"), "{missing:?}");
    }
}

#[test]
fn trims_input_checks_and_error_labels_only() {
    let applied = pick(SAMPLE, Pick::Methods("Layer", &["apply"])).unwrap();
    let want = format!(
        "impl<T: Clone> Layer<T> {{\n    pub fn apply(&self, x: &Tensor) -> Result<Tensor> {{\n        {CHECKS_ELIDED}\n        // the product\n        let y = x.matmul(&self.w)?;\n        let z = if y.rank() == 3 {{ y }} else {{ bail!(\"no\") }};\n        {CHECKS_ELIDED}\n        Ok(z\n            .relu()?)\n    }}\n}}"
    );
    assert_eq!(applied, want);
}

/// Every line shown is a line of the file (error labels aside), and every class shows code.
#[test]
fn every_class_shows_lines_of_its_own_source() {
    for arch in Architecture::ALL {
        let view = show_class(arch).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(view.excerpts.len(), classes::sources(arch).len());
        for (e, source) in view.excerpts.iter().zip(classes::sources(arch)) {
            assert!(e.code.contains("fn ") || e.code.contains("struct "), "{arch:?}: {}", e.code);
            assert!(!e.code.contains(".within("), "{arch:?}");
            let unlabelled = drop_labels(source.text);
            let file: std::collections::HashSet<&str> = unlabelled.lines().collect();
            for line in e.code.lines().filter(|l| !l.trim().is_empty() && l.trim() != CHECKS_ELIDED) {
                assert!(file.contains(line), "{arch:?}: `{line}` is not a line of {}", e.path);
            }
        }
        for e in &view.excerpts {
            let opens = e.code.matches('{').count();
            assert_eq!(opens, e.code.matches('}').count(), "{arch:?}: unbalanced braces in\n{}", e.code);
            assert!(e.code.trim_end().ends_with('}') || e.code.trim_end().ends_with(';'), "{arch:?}");
        }
        let html = view.html().unwrap();
        assert!(html.contains("<svg") && html.contains(view.excerpts[0].path), "{arch:?}");
    }
}

#[test]
fn the_attention_class_shows_the_lecture_steps() {
    let code = show_class(Architecture::Attention).unwrap().code_text();
    for step in [
        "pub struct Attention",
        "pub fn init_keys",
        "pub fn score_function",
        "masked_fill(&scores, m, MASK_FILL)?",
        "softmax(&scores)?",
        "pub fn scaled_dot_products",
    ] {
        assert!(code.contains(step), "{step} missing from\n{code}");
    }
    let forward = &code[code.find("pub fn forward").unwrap()..];
    let forward = &forward[..forward.find("\n    }\n").unwrap()];
    assert!(forward.contains(CHECKS_ELIDED) && !forward.contains("bail!"), "{forward}");
}

/// `ZOO_CLASSES_OUT=dir cargo test --lib notebook::code` writes each class view as an HTML page
/// there, to look at.
#[test]
fn writes_the_views_when_asked() {
    let Some(dir) = std::env::var_os("ZOO_CLASSES_OUT") else { return };
    std::fs::create_dir_all(&dir).unwrap();
    for arch in Architecture::ALL {
        let view = show_class(arch).unwrap();
        let page = format!("<!doctype html><meta charset=utf-8><body style=\"margin:16px\">{}</body>", view.html().unwrap());
        std::fs::write(std::path::Path::new(&dir).join(format!("{arch:?}.html")), page).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(format!("{arch:?}.rs")), view.code_text()).unwrap();
    }
}

/// A label's name that only the dropped labels read goes without a trace; a value that only a
/// check and the function's last expression read stays.
#[test]
fn drops_unread_label_names_and_keeps_what_the_tail_reads() {
    let src = "pub fn f(x: &Tensor, k: usize) -> Result<Tensor> {\n    let module = \"F\";\n    let l = x.dim(1).within(module)?;\n    if k >= l {\n        bail!(\"k\")\n    }\n    x.narrow(1, k, l - k).within(module)\n}\n";
    let want = format!(
        "pub fn f(x: &Tensor, k: usize) -> Result<Tensor> {{\n    let l = x.dim(1)?;\n    {CHECKS_ELIDED}\n    x.narrow(1, k, l - k)\n}}"
    );
    assert_eq!(pick(src, Pick::Fn("f")).unwrap(), want);
}
