use super::classes::{self, Pick, RECORD};
use super::{ClassView, show_class};
use crate::notebook::figures::diagram::Architecture;

fn file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// Every class shows code, each excerpt's lines are lines of its file, untrimmed; the whole check
/// (every item is its file's bytes, excerpts.txt is up to date) is tests/class_excerpts.rs.
#[test]
fn every_class_shows_lines_of_its_own_source() {
    for arch in Architecture::ALL {
        let view = show_class(arch).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(view.excerpts.len(), classes::sources(arch).len());
        for (e, source) in view.excerpts.iter().zip(classes::sources(arch)) {
            assert_eq!(e.path, source.path);
            assert!(e.code.contains("fn ") || e.code.contains("struct "), "{arch:?}: {}", e.code);
            let text = file(e.path);
            let lines: std::collections::HashSet<&str> = text.lines().collect();
            for line in e.code.lines().filter(|l| !l.trim().is_empty()) {
                assert!(lines.contains(line), "{arch:?}: `{line}` is not a line of {}", e.path);
            }
            assert!(e.code.ends_with('}') || e.code.ends_with(';'), "{arch:?}");
        }
        let html = view.html().unwrap();
        assert!(html.contains("<svg") && html.contains(view.excerpts[0].path), "{arch:?}");
    }
}

#[test]
fn the_attention_class_shows_the_lecture_steps_as_written() {
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
    let forward = &forward[..forward.find("\n    }\n").unwrap() + "\n    }".len()];
    assert!(file("src/attention/head.rs").contains(forward), "{forward}");
}

#[test]
fn picks_are_named_as_excerpts_txt_names_them() {
    let names: Vec<String> = [
        Pick::Struct("Encoder"),
        Pick::Methods("Encoder", &["new", "forward"]),
        Pick::TraitImpl("StepDecoder", "DecoderAttn"),
        Pick::Fn("teacher_forcing"),
        Pick::Alias("EncoderPe"),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    assert_eq!(
        names,
        ["struct Encoder", "impl Encoder: new, forward", "impl StepDecoder for DecoderAttn", "fn teacher_forcing", "type EncoderPe"]
    );
    let picks = ClassView::picks(Architecture::EncoderDecoderAttn);
    assert_eq!(picks[1], ("src/models/seq2seq.rs", vec!["impl EncoderDecoder: forward".to_string()]));
    let text = classes::excerpt(Architecture::Encoder, "src/models/seq2seq.rs", &Pick::Struct("Encoder")).unwrap();
    assert!(text.contains("pub struct Encoder") && !text.ends_with('\n') && !text.contains(RECORD), "{text}");
    assert!(classes::excerpt(Architecture::Encoder, "src/models/seq2seq.rs", &Pick::Struct("Decoder")).is_none());
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
