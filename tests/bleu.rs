//! BLEU against sacrebleu's own numbers (tests/fixtures/bleu.json, written by
//! `tools/fixtures/bleu.py`): corpus BLEU with every smoothing method, and every pair's sentence
//! BLEU, to 5e-5 (4 decimals); the 13a tokenizer exactly; the errors.

use crate::common;

use attention_zoo::train::{Bleu, BleuConfig, Smooth, Tokenizer};
use attention_zoo::train::{corpus_bleu, corpus_bleu_tokens, sentence_bleu, tokenize_13a};
use common::fixtures::load_as;
use serde::Deserialize;
use std::collections::BTreeMap;

const TOL: f64 = 5e-5;

/// `tests/fixtures/bleu.json` (tools/fixtures/bleu.py): sacrebleu's scores.
#[derive(Deserialize)]
struct BleuFx {
    /// Corpus scores by configuration name (`default`, `none`, `floor_0.3`, ...).
    corpus: BTreeMap<String, Score>,
    /// Smaller corpora (`no_4gram_match`, `short`): the pairs' indices and scores by smoothing.
    subsets: BTreeMap<String, Subset>,
    sentences: Vec<Sentence>,
    /// `(line, its 13a tokens)` for random strings.
    tokenize_13a: Vec<(String, String)>,
}

/// One score as sacrebleu reports it.
#[derive(Deserialize)]
struct Score {
    score: f64,
    bp: f64,
    precisions: Vec<f64>,
    counts: Vec<usize>,
    totals: Vec<usize>,
    sys_len: usize,
    ref_len: usize,
    str: String,
}

#[derive(Deserialize)]
struct Subset {
    indices: Vec<usize>,
    #[serde(flatten)]
    scores: BTreeMap<String, Score>,
}

/// One pair: the sentences, sacrebleu's sentence score and its scores under other settings.
#[derive(Deserialize)]
struct Sentence {
    hyp: String,
    #[serde(rename = "ref")]
    reference: String,
    ref2: String,
    hyp_13a: String,
    #[serde(flatten)]
    score: Score,
    none: f64,
    floor: f64,
    #[serde(rename = "add-k")]
    add_k: f64,
    two_references: f64,
}

/// The fixture, with the corpus entries that hold subsets moved to `subsets`.
fn fixture() -> BleuFx {
    let mut raw: serde_json::Value = load_as("bleu");
    let corpus = raw["corpus"].as_object_mut().expect("corpus");
    let subsets: serde_json::Map<String, serde_json::Value> =
        ["no_4gram_match", "short"].iter().filter_map(|k| corpus.remove(*k).map(|v| (k.to_string(), v))).collect();
    raw["subsets"] = serde_json::Value::Object(subsets);
    serde_json::from_value(raw).unwrap_or_else(|e| panic!("bleu.json: {e}"))
}

/// The largest difference of score, precisions and brevity penalty; lengths, counts (unless
/// `add-k` changed them) and the printed line must be equal.
fn compare(what: &str, ours: &Bleu, want: &Score, counts: bool) -> f64 {
    assert_eq!(ours.sys_len, want.sys_len, "{what}: hyp_len");
    assert_eq!(ours.ref_len, want.ref_len, "{what}: ref_len");
    if counts {
        assert_eq!(ours.counts.to_vec(), want.counts, "{what}: counts");
        assert_eq!(ours.totals.to_vec(), want.totals, "{what}: totals");
        assert_eq!(ours.to_string(), want.str, "{what}: printed");
    }
    let mut diff = (ours.score - want.score).abs().max((ours.bp - want.bp).abs());
    for (a, b) in ours.precisions.iter().zip(&want.precisions) {
        diff = diff.max((a - b).abs());
    }
    assert!(diff < TOL, "{what}: ours {ours} vs sacrebleu {} (max difference {diff:e})", want.str);
    diff
}

fn pairs(fx: &BleuFx) -> (Vec<String>, Vec<String>, Vec<String>) {
    let s = &fx.sentences;
    (s.iter().map(|e| e.hyp.clone()).collect(), s.iter().map(|e| e.reference.clone()).collect(), s.iter().map(|e| e.ref2.clone()).collect())
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
    let fx = fixture();
    let (hyps, refs, refs2) = pairs(&fx);
    assert!(hyps.len() >= 200, "{} pairs", hyps.len());
    let corpus = &fx.corpus;
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
        let indices = &fx.subsets[subset].indices;
        let h: Vec<&str> = indices.iter().map(|&i| hyps[i].as_str()).collect();
        let r: Vec<[&str; 1]> = indices.iter().map(|&i| [refs[i].as_str()]).collect();
        for name in ["none", "floor", "add-k", "exp"] {
            for eff in [false, true] {
                let key = if eff { format!("{name}_effective_order") } else { name.to_string() };
                let config = BleuConfig { smooth: smooth(name), effective_order: eff, ..BleuConfig::corpus() };
                let ours = config.corpus_score(&h, &r).expect("subset");
                max = max.max(compare(&format!("{subset} {key}"), &ours, &fx.subsets[subset].scores[&key], name != "add-k"));
            }
        }
    }
    println!("corpus BLEU: max |difference| from sacrebleu {max:e}");
}

#[test]
fn every_sentence_bleu_equals_sacrebleu() {
    let fx = fixture();
    let mut max: f64 = 0.0;
    for (i, e) in fx.sentences.iter().enumerate() {
        let (hyp, reference, ref2) = (e.hyp.as_str(), e.reference.as_str(), e.ref2.as_str());
        assert_eq!(tokenize_13a(hyp.trim_end()), e.hyp_13a, "pair {i}: 13a tokens of {hyp:?}");
        max = max.max(compare(&format!("pair {i} {hyp:?}"), &sentence_bleu(hyp, reference).expect("sentence_bleu"), &e.score, true));
        for (name, want) in [("none", e.none), ("floor", e.floor), ("add-k", e.add_k)] {
            let config = BleuConfig { smooth: smooth(name), ..BleuConfig::sentence() };
            let ours = config.sentence_score(hyp, &[reference]).expect("sentence_score").score;
            let diff = (ours - want).abs();
            assert!(diff < TOL, "pair {i} {hyp:?} smoothing {name}: {ours} vs {want}");
            max = max.max(diff);
        }
        let ours = BleuConfig::sentence().sentence_score(hyp, &[reference, ref2]).expect("two references").score;
        let diff = (ours - e.two_references).abs();
        assert!(diff < TOL, "pair {i} {hyp:?} two references: {ours} vs {}", e.two_references);
        max = max.max(diff);
    }
    println!("sentence BLEU: max |difference| from sacrebleu {max:e}");
}

#[test]
fn tokens_variant_equals_the_strings_on_their_13a_tokens() {
    let fx = fixture();
    let (hyps, refs, _) = pairs(&fx);
    let split = |v: &[String]| {
        v.iter().map(|s| tokenize_13a(s.trim_end()).split(' ').filter(|w| !w.is_empty()).map(String::from).collect()).collect()
    };
    let (h, r): (Vec<Vec<String>>, Vec<Vec<String>>) = (split(&hyps), split(&refs));
    let ours = corpus_bleu_tokens(&h, &r).expect("corpus_bleu_tokens");
    compare("corpus_bleu_tokens", &ours, &fx.corpus["default"], true);
    let perfect = corpus_bleu_tokens(&[["a", "b", "c", "d"]], &[vec!["a", "b", "c", "d"]]).expect("perfect");
    // exp(ln 100) is 100.00000000000004, as in sacrebleu.
    assert!((perfect.score - 100.0).abs() < 1e-12 && perfect.bp == 1.0, "{perfect}");
}

#[test]
fn tokenizer_13a_equals_sacrebleus_on_random_strings() {
    let cases = fixture().tokenize_13a;
    assert!(cases.len() >= 300);
    for (line, want) in &cases {
        assert_eq!(&tokenize_13a(line), want, "13a tokens of {line:?}");
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
