//! BLEU against sacrebleu's own numbers (tests/fixtures/bleu.json, written by
//! `tools/fixtures/bleu.py`): corpus BLEU with every smoothing method, and every pair's sentence
//! BLEU, to 5e-5 (4 decimals); the 13a tokenizer exactly; the errors.

use crate::common;

use attention_zoo::train::{Bleu, BleuConfig, Smooth, Tokenizer};
use attention_zoo::train::{corpus_bleu, corpus_bleu_tokens, sentence_bleu, tokenize_13a};
use common::fixtures::{f64s, load, usizes};
use serde_json::Value;

const TOL: f64 = 5e-5;

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("expected a string, got {v}"))
}

/// The largest difference of score, precisions and brevity penalty; lengths, counts (unless
/// `add-k` changed them) and the printed line must be equal.
fn compare(what: &str, ours: &Bleu, want: &Value, counts: bool) -> f64 {
    assert_eq!(ours.sys_len, want["sys_len"].as_u64().expect("sys_len") as usize, "{what}: hyp_len");
    assert_eq!(ours.ref_len, want["ref_len"].as_u64().expect("ref_len") as usize, "{what}: ref_len");
    if counts {
        assert_eq!(ours.counts.to_vec(), usizes(&want["counts"]), "{what}: counts");
        assert_eq!(ours.totals.to_vec(), usizes(&want["totals"]), "{what}: totals");
        assert_eq!(ours.to_string(), text(&want["str"]), "{what}: printed");
    }
    let mut diff = (ours.score - want["score"].as_f64().expect("score")).abs().max((ours.bp - want["bp"].as_f64().expect("bp")).abs());
    for (a, b) in ours.precisions.iter().zip(f64s(&want["precisions"])) {
        diff = diff.max((a - b).abs());
    }
    assert!(diff < TOL, "{what}: ours {ours} vs sacrebleu {} (max difference {diff:e})", text(&want["str"]));
    diff
}

fn pairs(fx: &Value) -> (Vec<String>, Vec<String>, Vec<String>) {
    let s = fx["sentences"].as_array().expect("sentences");
    let field = |k: &str| s.iter().map(|e| text(&e[k]).to_string()).collect::<Vec<_>>();
    (field("hyp"), field("ref"), field("ref2"))
}

fn smooth(name: &str) -> Smooth {
    match name {
        "none" => Smooth::None,
        "floor" => Smooth::Floor(0.1),
        "add-k" => Smooth::AddK(1.0),
        "exp" => Smooth::Exp,
        _ => panic!("unknown smoothing {name}"),
    }
}

#[test]
fn corpus_bleu_equals_sacrebleu() {
    let fx = load("bleu");
    let (hyps, refs, refs2) = pairs(&fx);
    assert!(hyps.len() >= 200, "{} pairs", hyps.len());
    let corpus = &fx["corpus"];
    let mut max = compare("corpus_bleu", &corpus_bleu(&hyps, &refs).expect("corpus_bleu"), &corpus["default"], true);
    let with = |config: BleuConfig| config.corpus_score(&hyps, &refs.iter().map(|r| [r]).collect::<Vec<_>>()).expect("corpus_score");
    for name in ["none", "floor", "add-k", "exp"] {
        let config = BleuConfig { smooth: smooth(name), ..BleuConfig::corpus() };
        max = max.max(compare(name, &with(config), &corpus[name], name != "add-k"));
    }
    let cases = [
        ("floor_0.3", BleuConfig { smooth: Smooth::Floor(0.3), ..BleuConfig::corpus() }),
        ("add-k_0.5", BleuConfig { smooth: Smooth::AddK(0.5), ..BleuConfig::corpus() }),
        ("effective_order", BleuConfig { effective_order: true, ..BleuConfig::corpus() }),
        ("lowercase", BleuConfig { lowercase: true, ..BleuConfig::corpus() }),
        ("tokenize_none", BleuConfig { tokenizer: Tokenizer::None, ..BleuConfig::corpus() }),
    ];
    for (name, config) in cases {
        max = max.max(compare(name, &with(config), &corpus[name], !name.starts_with("add-k")));
    }
    let two: Vec<[&String; 2]> = refs.iter().zip(&refs2).map(|(a, b)| [a, b]).collect();
    max =
        max.max(compare("two references", &BleuConfig::corpus().corpus_score(&hyps, &two).expect("two"), &corpus["two_references"], true));
    // Smaller corpora where orders without a match (or without n-grams) make smoothing matter.
    for subset in ["no_4gram_match", "short"] {
        let indices = usizes(&corpus[subset]["indices"]);
        let h: Vec<&str> = indices.iter().map(|&i| hyps[i].as_str()).collect();
        let r: Vec<[&str; 1]> = indices.iter().map(|&i| [refs[i].as_str()]).collect();
        for name in ["none", "floor", "add-k", "exp"] {
            for eff in [false, true] {
                let key = if eff { format!("{name}_effective_order") } else { name.to_string() };
                let config = BleuConfig { smooth: smooth(name), effective_order: eff, ..BleuConfig::corpus() };
                let ours = config.corpus_score(&h, &r).expect("subset");
                max = max.max(compare(&format!("{subset} {key}"), &ours, &corpus[subset][key.as_str()], name != "add-k"));
            }
        }
    }
    println!("corpus BLEU: max |difference| from sacrebleu {max:e}");
}

#[test]
fn every_sentence_bleu_equals_sacrebleu() {
    let fx = load("bleu");
    let mut max: f64 = 0.0;
    for (i, e) in fx["sentences"].as_array().expect("sentences").iter().enumerate() {
        let (hyp, reference, ref2) = (text(&e["hyp"]), text(&e["ref"]), text(&e["ref2"]));
        assert_eq!(tokenize_13a(hyp.trim_end()), text(&e["hyp_13a"]), "pair {i}: 13a tokens of {hyp:?}");
        max = max.max(compare(&format!("pair {i} {hyp:?}"), &sentence_bleu(hyp, reference).expect("sentence_bleu"), e, true));
        for name in ["none", "floor", "add-k"] {
            let config = BleuConfig { smooth: smooth(name), ..BleuConfig::sentence() };
            let ours = config.sentence_score(hyp, &[reference]).expect("sentence_score").score;
            let diff = (ours - e[name].as_f64().expect("score")).abs();
            assert!(diff < TOL, "pair {i} {hyp:?} smoothing {name}: {ours} vs {}", e[name]);
            max = max.max(diff);
        }
        let ours = BleuConfig::sentence().sentence_score(hyp, &[reference, ref2]).expect("two references").score;
        let diff = (ours - e["two_references"].as_f64().expect("score")).abs();
        assert!(diff < TOL, "pair {i} {hyp:?} two references: {ours} vs {}", e["two_references"]);
        max = max.max(diff);
    }
    println!("sentence BLEU: max |difference| from sacrebleu {max:e}");
}

#[test]
fn tokens_variant_equals_the_strings_on_their_13a_tokens() {
    let fx = load("bleu");
    let (hyps, refs, _) = pairs(&fx);
    let split = |v: &[String]| {
        v.iter().map(|s| tokenize_13a(s.trim_end()).split(' ').filter(|w| !w.is_empty()).map(String::from).collect()).collect()
    };
    let (h, r): (Vec<Vec<String>>, Vec<Vec<String>>) = (split(&hyps), split(&refs));
    let ours = corpus_bleu_tokens(&h, &r).expect("corpus_bleu_tokens");
    compare("corpus_bleu_tokens", &ours, &fx["corpus"]["default"], true);
    let perfect = corpus_bleu_tokens(&[["a", "b", "c", "d"]], &[vec!["a", "b", "c", "d"]]).expect("perfect");
    // exp(ln 100) is 100.00000000000004, as in sacrebleu.
    assert!((perfect.score - 100.0).abs() < 1e-12 && perfect.bp == 1.0, "{perfect}");
}

#[test]
fn tokenizer_13a_equals_sacrebleus_on_random_strings() {
    let fx = load("bleu");
    let cases = fx["tokenize_13a"].as_array().expect("tokenize_13a");
    assert!(cases.len() >= 300);
    for case in cases {
        let (line, want) = (text(&case[0]), text(&case[1]));
        assert_eq!(tokenize_13a(line), want, "13a tokens of {line:?}");
    }
}

#[test]
fn tokenizer_13a_cases() {
    assert_eq!(tokenize_13a("Hello, world!"), "Hello , world !");
    assert_eq!(tokenize_13a("It costs 1,000.50 (approx.)"), "It costs 1,000.50 ( approx . )");
    assert_eq!(tokenize_13a("a 5-6 well-known"), "a 5 - 6 well-known");
    assert_eq!(tokenize_13a("&quot;x&quot; &amp;lt; <skipped>y"), "\" x \" < y");
    assert_eq!(tokenize_13a("   "), "");
}

#[test]
fn errors_name_the_function_and_the_counts() {
    let err = corpus_bleu(&["a b", "c"], &["a b"]).expect_err("2 vs 1").to_string();
    assert!(err.contains("corpus_bleu") && err.contains("2 hypotheses") && err.contains("1 references"), "{err}");
    let none: [&str; 0] = [];
    let err = corpus_bleu(&none, &none).expect_err("empty").to_string();
    assert!(err.contains("corpus_bleu") && err.contains("empty"), "{err}");
    let err = corpus_bleu_tokens(&[vec!["a"]], &[vec!["a"], vec!["b"]]).expect_err("1 vs 2").to_string();
    assert!(err.contains("corpus_bleu_tokens") && err.contains("1 hypotheses but 2 references"), "{err}");
    let no_refs: [&str; 0] = [];
    let err = BleuConfig::sentence().sentence_score("a", &no_refs).expect_err("no reference").to_string();
    assert!(err.contains("sentence_score") && err.contains("no reference"), "{err}");
    let bad = BleuConfig { smooth: Smooth::AddK(f64::NAN), ..BleuConfig::corpus() };
    let err = bad.corpus_score(&["a"], &[["a"]]).expect_err("NaN k").to_string();
    assert!(err.contains("smoothing value"), "{err}");
}
