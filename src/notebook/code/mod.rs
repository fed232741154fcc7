//! The lecture's classes in Rust: `show_class(Architecture::Attention)` shows the struct, its
//! constructor and its forward as the crate compiles them, highlighted, beside the diagram. Each
//! item is shown as it is in its file, byte for byte: the text comes from excerpts.txt, which a
//! test generates from the crate's own files and keeps in step with them (see [`classes`]).

pub(crate) mod classes;
pub(crate) mod highlight;

use crate::notebook::figures::diagram::{Architecture, Diagram, draw};
use crate::notebook::page::output::emit;
use candle_core::{Result, bail};

/// Code from one source file.
#[derive(Clone, Debug)]
pub struct Excerpt {
    /// The file's path from the crate's root (`src/attention/head.rs`).
    pub path: &'static str,
    /// The items shown, each as it is in the file (methods under their `impl` line), a blank line
    /// between two.
    pub code: String,
}

/// What a lecture class cell shows: the Rust that runs, and its diagram.
#[derive(Clone, Debug)]
pub struct ClassView {
    /// Which class.
    pub architecture: Architecture,
    /// The code, one excerpt per file.
    pub excerpts: Vec<Excerpt>,
    /// Its picture.
    pub diagram: Diagram,
}

/// The code of a lecture class as the crate runs it, beside its diagram.
pub fn show_class(architecture: Architecture) -> Result<ClassView> {
    let excerpts = check_excerpts(architecture)?;
    Ok(ClassView { architecture, excerpts, diagram: draw(architecture) })
}

/// The excerpts of a lecture class, one per file: an error naming the class if excerpts.txt
/// lacks an item its cell shows (the file is then out of step with the crate).
fn check_excerpts(architecture: Architecture) -> Result<Vec<Excerpt>> {
    let mut excerpts = vec![];
    for source in classes::sources(architecture) {
        let mut parts = vec![];
        for pick in source.picks {
            match classes::excerpt(architecture, source.path, pick) {
                Some(text) => parts.push(text),
                None => bail!(
                    "show_class({architecture:?}): excerpts.txt has no `{pick}` from {}; \
                     regenerate it with `ZOO_BLESS=1 cargo test --test zoo class_excerpts`",
                    source.path
                ),
            }
        }
        excerpts.push(Excerpt { path: source.path, code: parts.join("\n\n") });
    }
    Ok(excerpts)
}

impl ClassView {
    /// The items each file shows in the class cell of `architecture`, named as excerpts.txt names
    /// them (`struct Attention`, `impl Attention: new, forward`, `impl Trait for Type`,
    /// `fn name`, `type Name`): what tests/class_excerpts.rs looks up in the sources to write it.
    #[doc(hidden)]
    pub fn picks(architecture: Architecture) -> Vec<(&'static str, Vec<String>)> {
        classes::sources(architecture).into_iter().map(|s| (s.path, s.picks.iter().map(ToString::to_string).collect())).collect()
    }

    /// The code as plain text, each excerpt under a `// src/...` line.
    pub fn code_text(&self) -> String {
        self.excerpts.iter().map(|e| format!("// {}\n{}", e.path, e.code)).collect::<Vec<_>>().join("\n\n")
    }

    /// The diagram, and the code beside it where the page is wide enough, below it otherwise (the
    /// code in a box of its own height, scrolling past 560 pixels).
    pub fn html(&self) -> Result<String> {
        let svg = self.diagram.figure()?.svg;
        let mut code = String::new();
        for e in &self.excerpts {
            code.push_str(&format!(
                "<div style=\"font:12px sans-serif;color:#57606a;margin:6px 0 2px\">{}</div>\
                 <pre style=\"margin:0;padding:8px 10px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;\
                 font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre;overflow-x:auto\">{}</pre>",
                e.path,
                highlight::highlight(&e.code)
            ));
        }
        Ok(format!(
            "<div class=\"zoo-class\" style=\"display:flex;flex-wrap:wrap;gap:12px 20px;align-items:flex-start\">\
             <div class=\"zoo-class-diagram\" style=\"flex:0 1 auto;max-width:100%;overflow-x:auto\">{svg}</div>\
             <div class=\"zoo-class-code\" style=\"flex:1 1 640px;min-width:0;max-width:980px;max-height:560px;overflow-y:auto\">{code}</div></div>"
        ))
    }

    /// What evcxr calls: the HTML, with the code as text for a plain view.
    pub fn evcxr_display(&self) {
        match self.html() {
            Ok(html) => emit(&[("text/plain", &self.code_text()), ("text/html", &html)]),
            Err(e) => emit(&[("text/plain", &format!("{}\n\n<diagram could not be drawn: {e}>", self.code_text()))]),
        }
    }
}

#[cfg(test)]
mod tests;
