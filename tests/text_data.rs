//! Text to tensors: corpus files, the tokenizer, `Vocab`, padded batches and the bucketing
//! iterator, with the error of each bad input.

use attention_zoo::attention::{padding_mask, target_mask};
use attention_zoo::data::text::*;
use candle_core::{Result, Tensor};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh folder under the system's temp dir, unique per process and call, removed when the
/// test ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

fn temp_dir() -> TempDir {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("attention-zoo-text-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
    std::fs::create_dir_all(&dir).expect("a writable temp dir");
    TempDir(dir)
}

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("a writable temp file");
    p
}

fn err_of<T: std::fmt::Debug>(r: Result<T>) -> String {
    r.expect_err("an error").to_string()
}

fn strings(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|s| s.to_string()).collect()
}

// ---- loaders ----

#[test]
fn tsv_pairs_are_read_with_blank_lines_crlf_and_extra_columns() -> Result<()> {
    let dir = temp_dir();
    let p = write(&dir, "ok.tsv", "\u{feff}Hallo!\tHello!\r\n\n  \nDer Hund.\tThe dog.\tCC-BY 2.0 (France)\nÜber\tover".as_bytes());
    let pairs = read_tsv_pairs(&p)?;
    let want = [("Hallo!", "Hello!"), ("Der Hund.", "The dog."), ("Über", "over")];
    assert_eq!(pairs, want.map(|(a, b)| (a.to_string(), b.to_string())));
    Ok(())
}

#[test]
fn tsv_errors_name_the_file_and_line() {
    let dir = temp_dir();
    let no_tab = write(&dir, "no_tab.tsv", b"a\tb\n\nc d\n");
    let e = err_of(read_tsv_pairs(&no_tab));
    assert!(e.contains("read_tsv_pairs") && e.contains("no_tab.tsv line 3") && e.contains("no tab"), "{e}");

    let empty_target = write(&dir, "empty_target.tsv", b"a\tb\nc\t \n");
    let e = err_of(read_tsv_pairs(&empty_target));
    assert!(e.contains("empty_target.tsv line 2") && e.contains("target") && e.contains("empty"), "{e}");

    let bad = write(&dir, "bad_utf8.tsv", b"a\tb\nc\td\ne\t\xff\xfe\n");
    let e = err_of(read_tsv_pairs(&bad));
    assert!(e.contains("bad_utf8.tsv line 3") && e.contains("invalid UTF-8") && e.contains("byte 3"), "{e}");

    let empty = write(&dir, "empty.tsv", b"\n \n");
    let e = err_of(read_tsv_pairs(&empty));
    assert!(e.contains("empty.tsv") && e.contains("empty corpus"), "{e}");
    let nothing = write(&dir, "nothing.tsv", b"");
    assert!(err_of(read_tsv_pairs(&nothing)).contains("empty corpus"));

    let missing = dir.join("missing.tsv");
    let e = err_of(read_tsv_pairs(&missing));
    assert!(e.contains("read_tsv_pairs") && e.contains("cannot read") && e.contains("missing.tsv"), "{e}");
    let e = err_of(read_tsv_pairs(&*dir));
    assert!(e.contains("cannot read"), "{e}");
}

#[test]
fn aligned_files_are_read_line_by_line() -> Result<()> {
    let dir = temp_dir();
    let de = write(&dir, "train.de", "Der Hund schläft.\r\n\nDie Katze.\n".as_bytes());
    let en = write(&dir, "train.en", b"The dog sleeps.\n\nThe cat.");
    let pairs = read_aligned_pairs(&de, &en)?;
    let want = [("Der Hund schläft.", "The dog sleeps."), ("Die Katze.", "The cat.")];
    assert_eq!(pairs, want.map(|(a, b)| (a.to_string(), b.to_string())));
    Ok(())
}

#[test]
fn aligned_errors_name_both_files_counts_and_lines() {
    let dir = temp_dir();
    let de = write(&dir, "a.de", b"eins\nzwei\ndrei\n");
    let en = write(&dir, "a.en", b"one\ntwo\n");
    let e = err_of(read_aligned_pairs(&de, &en));
    assert!(e.contains("read_aligned_pairs") && e.contains("unequal line counts"), "{e}");
    assert!(e.contains("a.de has 3 lines") && e.contains("a.en has 2 lines"), "{e}");

    let gap = write(&dir, "gap.en", b"one\n\nthree\n");
    let e = err_of(read_aligned_pairs(&de, &gap));
    assert!(e.contains("gap.en line 2") && e.contains("blank") && e.contains("a.de"), "{e}");

    let bad = write(&dir, "bad.de", b"eins\nzw\xc3i\ndrei\n");
    let e = err_of(read_aligned_pairs(&bad, &de));
    assert!(e.contains("bad.de line 2") && e.contains("invalid UTF-8"), "{e}");

    let (b1, b2) = (write(&dir, "blank.de", b"\n\n"), write(&dir, "blank.en", b"\n \n"));
    let e = err_of(read_aligned_pairs(&b1, &b2));
    assert!(e.contains("empty corpus") && e.contains("blank.de") && e.contains("blank.en"), "{e}");

    let e = err_of(read_aligned_pairs(dir.join("nope.de"), &de));
    assert!(e.contains("cannot read") && e.contains("nope.de"), "{e}");
}

// ---- tokenizer ----

#[test]
fn tokenize_lower_cases_and_splits_punctuation() {
    let cases: [(&str, &[&str]); 8] = [
        ("Der Hund, die Katze.", &["der", "hund", ",", "die", "katze", "."]),
        ("Sieht ÜBER den Hund?!", &["sieht", "über", "den", "hund", "?", "!"]),
        ("He said: \"Don't go\" (now);", &["he", "said", ":", "\"", "don't", "go", "\"", "(", "now", ")", ";"]),
        ("It’s 3.5 or 1,000, ok.", &["it's", "3.5", "or", "1,000", ",", "ok", "."]),
        ("'quoted' dogs' bone", &["'", "quoted", "'", "dogs", "'", "bone"]),
        ("„Ja“, sagt er.", &["„", "ja", "“", ",", "sagt", "er", "."]),
        ("  well-known   <unk>\ttab\n", &["well-known", "<unk>", "tab"]),
        ("...", &[".", ".", "."]),
    ];
    for (text, want) in cases {
        assert_eq!(tokenize(text), strings(want), "tokenize({text:?})");
    }
    assert!(tokenize("").is_empty() && tokenize(" \t\n").is_empty());
}

#[test]
fn tokenize_is_the_identity_on_split_lower_case_text() {
    for s in ["der kleine hund hat den ball gesehen .", "does the dog see the cat ?", "weil er nicht kommt , bleibt sie .", "don't stop"] {
        assert_eq!(tokenize(s).join(" "), s);
    }
    // Case kept: the generated corpus capitalises German nouns.
    let s = "gestern hat der Hund den Ball nicht gesehen , weil er schlief .";
    assert_eq!(tokenize_cased(s).join(" "), s);
    assert_eq!(tokenize(s).join(" "), s.to_lowercase());
    assert_eq!(tokenize_cased("Don’t (Stop)!"), strings(&["Don't", "(", "Stop", ")", "!"]));
}

#[test]
fn detokenize_attaches_punctuation_back() {
    let cases: [(&[&str], &str); 5] = [
        (&["der", "hund", ",", "die", "katze", "."], "der hund, die katze."),
        (&["he", "said", ":", "\"", "go", "\"", "(", "now", ")", "!"], "he said: \"go\" (now)!"),
        (&["„", "ja", "“", ",", "sagt", "er", "."], "„ja“, sagt er."),
        (&[".", "a"], ". a"),
        (&[], ""),
    ];
    for (tokens, want) in cases {
        assert_eq!(detokenize(tokens), want, "detokenize({tokens:?})");
    }
    for s in ["the dog, the cat.", "does it (really) work?", "she said \"no\"."] {
        assert_eq!(detokenize(&tokenize(s)), s);
    }
}

// ---- vocab ----

fn toy_vocab(min_freq: usize, max_size: Option<usize>) -> Result<Vocab> {
    let sentences = ["the dog sees the cat .", "the cat sees a dog .", "a bird ."];
    Vocab::build(sentences.iter().map(|s| tokenize(s)), min_freq, max_size)
}

#[test]
fn vocab_has_specials_then_tokens_by_frequency_then_alphabet() -> Result<()> {
    let v = toy_vocab(1, None)?;
    // the 3, . 3, a 2, cat 2, dog 2, sees 2, bird 1
    let want = ["<pad>", "<sos>", "<eos>", "<unk>", ".", "the", "a", "cat", "dog", "sees", "bird"];
    assert_eq!(v.tokens(), strings(&want));
    assert_eq!((v.len(), v.id("<pad>"), v.id("<sos>"), v.id("<eos>"), v.id("<unk>")), (11, 0, 1, 2, 3));
    assert_eq!((PAD_ID, SOS_ID, EOS_ID, UNK_ID), (0, 1, 2, 3));
    assert_eq!(v.id("giraffe"), UNK_ID);
    assert_eq!(v.token(5)?, "the");
    // Same data, same ids: built again, and from the sentences in another order.
    assert_eq!(toy_vocab(1, None)?, v);
    let reversed = ["a bird .", "the cat sees a dog .", "the dog sees the cat ."];
    assert_eq!(Vocab::build(reversed.iter().map(|s| tokenize(s)), 1, None)?, v);
    Ok(())
}

#[test]
fn vocab_min_freq_max_size_and_specials_in_text() -> Result<()> {
    let v = toy_vocab(2, None)?;
    assert_eq!(v.len(), 10);
    assert!(!v.contains("bird") && v.id("bird") == UNK_ID);
    let v = toy_vocab(3, None)?;
    assert_eq!(v.tokens()[4..], strings(&[".", "the"]));
    let v = toy_vocab(1, Some(7))?;
    assert_eq!(v.tokens()[4..], strings(&[".", "the", "a"]));
    assert_eq!(toy_vocab(0, None)?, toy_vocab(1, None)?);
    let e = err_of(toy_vocab(1, Some(3)));
    assert!(e.contains("Vocab::build") && e.contains("max_size"), "{e}");
    // Specials written in a sentence are not counted again.
    let v = Vocab::build([vec!["<unk>", "x", "<pad>"]], 1, None)?;
    assert_eq!(v.tokens(), strings(&["<pad>", "<sos>", "<eos>", "<unk>", "x"]));
    let e = err_of(Vocab::build(Vec::<Vec<String>>::new(), 1, None));
    assert!(e.contains("Vocab::build") && e.contains("no token"), "{e}");
    let e = err_of(Vocab::from_tokens(["a", "b"]));
    assert!(e.contains("Vocab::from_tokens") && e.contains("<pad>"), "{e}");
    let e = err_of(Vocab::from_tokens(["<pad>", "<sos>", "<eos>", "<unk>", "x", "x"]));
    assert!(e.contains("appears twice"), "{e}");
    Ok(())
}

#[test]
fn vocab_encodes_and_decodes() -> Result<()> {
    let v = toy_vocab(1, None)?;
    let ids = v.encode(&tokenize("The giraffe sees the dog."), true);
    assert_eq!(ids, vec![1, 5, 3, 9, 5, 8, 4, 2]);
    assert_eq!(v.encode(&["a", "bird"], false), vec![6, 10]);
    assert_eq!(v.encode_str("The giraffe sees the dog.", true), ids);
    assert_eq!(v.decode(&ids)?, strings(&["the", "<unk>", "sees", "the", "dog", "."]));
    // Stops at the first <eos>, skips <pad> and <sos>.
    assert_eq!(v.decode(&[1, 5, 0, 8, 2, 7, 99])?, strings(&["the", "dog"]));
    assert_eq!(v.decode_str(&[1, 5, 8, 9, 6, 10, 4, 2, 0, 0])?, "the dog sees a bird.");
    let e = err_of(v.decode(&[1, 5, 11, 2]));
    assert!(e.contains("Vocab::decode") && e.contains("unknown id 11") && e.contains("position 2") && e.contains("11 tokens"), "{e}");
    let e = err_of(v.token(42));
    assert!(e.contains("Vocab::token") && e.contains("id 42") && e.contains("11 tokens"), "{e}");
    assert!(v.decode_str(&[4000]).is_err());
    Ok(())
}

// ---- batches ----

fn pair(src: &[u32], tgt: &[u32]) -> EncodedPair {
    let mut t = vec![SOS_ID];
    t.extend_from_slice(tgt);
    t.push(EOS_ID);
    (src.to_vec(), t)
}

#[test]
fn batch_pads_with_zero_and_keeps_lengths() -> Result<()> {
    let pairs = vec![pair(&[5, 6, 7], &[8]), pair(&[9], &[10, 11, 12]), pair(&[4, 4], &[])];
    let b = TranslationBatch::new(&pairs, &[1, 0, 2])?;
    assert_eq!(b.src.dtype(), candle_core::DType::U32);
    assert_eq!(b.src.to_vec2::<u32>()?, vec![vec![9, 0, 0], vec![5, 6, 7], vec![4, 4, 0]]);
    assert_eq!(b.tgt.to_vec2::<u32>()?, vec![vec![1, 10, 11, 12, 2], vec![1, 8, 2, 0, 0], vec![1, 2, 0, 0, 0]]);
    assert_eq!((b.src_lengths.clone(), b.tgt_lengths.clone(), b.indices.clone()), (vec![1, 3, 2], vec![5, 3, 2], vec![1, 0, 2]));
    assert_eq!((b.len(), b.target_tokens()), (3, 4 + 2 + 1));
    assert_eq!(b.tgt_input()?.to_vec2::<u32>()?, vec![vec![1, 10, 11, 12], vec![1, 8, 2, 0], vec![1, 2, 0, 0]]);
    assert_eq!(b.tgt_output()?.to_vec2::<u32>()?, vec![vec![10, 11, 12, 2], vec![8, 2, 0, 0], vec![2, 0, 0, 0]]);
    // the masks a model makes of the batch: keep/drop, then the Transformer's additive ones
    let keep = |t: &Tensor| t.ne(PAD_ID).unwrap().to_dtype(candle_core::DType::U8).unwrap();
    assert_eq!(keep(&b.src).to_vec2::<u8>()?, vec![vec![1, 0, 0], vec![1, 1, 1], vec![1, 1, 0]]);
    assert_eq!(keep(&b.tgt).to_vec2::<u8>()?[1], vec![1, 1, 1, 0, 0]);
    let inf = f32::NEG_INFINITY;
    let src_mask = padding_mask(&b.src, PAD_ID)?;
    assert_eq!(src_mask.dims(), &[3, 1, 3]);
    assert_eq!(src_mask.to_vec3::<f32>()?[0], vec![vec![0., inf, inf]]);
    let tm = target_mask(&b.tgt_input()?, Some(PAD_ID))?.to_vec3::<f32>()?;
    assert_eq!(tm.len(), 3);
    assert_eq!(tm[0][3], vec![0., 0., 0., 0.]);
    assert_eq!(tm[1][3], vec![0., 0., 0., inf]);
    assert_eq!(tm[1][0], vec![0., inf, inf, inf]);
    Ok(())
}

#[test]
fn batch_and_shift_errors() {
    let good = vec![pair(&[5], &[6])];
    let e = err_of(TranslationBatch::new(&good, &[3]));
    assert!(e.contains("TranslationBatch::new") && e.contains("index 3") && e.contains("1 pairs"), "{e}");
    let e = err_of(TranslationBatch::new(&[(vec![5], vec![6, 2])], &[0]));
    assert!(e.contains("<sos>"), "{e}");
    let e = err_of(TranslationBatch::new(&[(vec![5, 0, 6], vec![1, 2])], &[0]));
    assert!(e.contains("padding id 0 at position 1"), "{e}");
    let e = err_of(tgt_input(&Tensor::new(&[[1u32]], &candle_core::Device::Cpu).unwrap()));
    assert!(e.contains("tgt_input") && e.contains("[1, 1]"), "{e}");
    let e = err_of(tgt_output(&Tensor::new(&[1u32, 2], &candle_core::Device::Cpu).unwrap()));
    assert!(e.contains("tgt_output") && e.contains("(N, T)"), "{e}");
}

/// 160 pairs: source lengths 1..=40, four of each, in a scrambled order; targets of length
/// `src_len % 7 + 1` (plus <sos> and <eos>).
fn many_pairs() -> Vec<EncodedPair> {
    (0..160usize)
        .map(|k| {
            let len = (k * 37) % 40 + 1;
            let src: Vec<u32> = (0..len).map(|j| 4 + ((k + j) % 20) as u32).collect();
            pair(&src, &vec![5; len % 7 + 1])
        })
        .collect()
}

fn all_indices(batches: &[Vec<usize>]) -> Vec<usize> {
    let mut all: Vec<usize> = batches.iter().flatten().copied().collect();
    all.sort();
    all
}

#[test]
fn bucket_groups_similar_lengths_and_covers_every_pair_once() -> Result<()> {
    let pairs = many_pairs();
    let mut it = BucketIterator::new(pairs.clone(), 8, None, 7)?.with_pool(1000)?;
    for _ in 0..3 {
        let batches = it.epoch()?;
        assert_eq!(batches.len(), 20);
        let idx: Vec<Vec<usize>> = batches.iter().map(|b| b.indices.clone()).collect();
        assert_eq!(all_indices(&idx), (0..160).collect::<Vec<_>>());
        for b in &batches {
            let (lo, hi) = (b.src_lengths.iter().min().unwrap(), b.src_lengths.iter().max().unwrap());
            assert!(hi - lo <= 1, "lengths {:?}", b.src_lengths);
            assert_eq!(b.src.dims(), &[8, *hi]);
            for (row, &i) in b.indices.iter().enumerate() {
                assert_eq!(b.src_lengths[row], pairs[i].0.len());
            }
        }
    }
    // A small pool still covers every pair once, with batches shuffled across chunks.
    let mut it = BucketIterator::new(pairs, 8, None, 7)?.with_pool(2)?;
    assert_eq!(all_indices(&it.epoch_indices()), (0..160).collect::<Vec<_>>());
    Ok(())
}

#[test]
fn bucket_is_deterministic_per_seed_and_plain_without_shuffle() -> Result<()> {
    let mut a = BucketIterator::new(many_pairs(), 8, None, 3)?;
    let mut b = BucketIterator::new(many_pairs(), 8, None, 3)?;
    let mut c = BucketIterator::new(many_pairs(), 8, None, 4)?;
    let (a1, a2) = (a.epoch_indices(), a.epoch_indices());
    assert_eq!((b.epoch_indices(), b.epoch_indices()), (a1.clone(), a2.clone()));
    assert_ne!(a1, a2, "a new pass, a new order");
    assert_ne!(c.epoch_indices(), a1);
    a.manual_seed(3);
    assert_eq!(a.epoch_indices(), a1);
    a.set_shuffle(false);
    let plain = a.epoch_indices();
    assert_eq!(plain, a.epoch_indices());
    let lengths: Vec<usize> = plain.iter().flatten().map(|&i| a.pairs()[i].0.len()).collect();
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "one chunk, sorted: {lengths:?}");
    Ok(())
}

#[test]
fn bucket_max_tokens_caps_padded_tokens() -> Result<()> {
    let mut it = BucketIterator::new(many_pairs(), 100, None, 1)?.with_max_tokens(60)?;
    let batches = it.epoch()?;
    assert_eq!(all_indices(&batches.iter().map(|b| b.indices.clone()).collect::<Vec<_>>()), (0..160).collect::<Vec<_>>());
    for b in &batches {
        let (n, s) = b.src.dims2()?;
        let t = b.tgt.dims2()?.1;
        assert!(n * s.max(t) <= 60 || n == 1, "{n} x {}", s.max(t));
    }
    // One pair longer than max_tokens gets a batch of its own.
    let mut it = BucketIterator::new(many_pairs(), 100, None, 1)?.with_max_tokens(9)?;
    let batches = it.epoch()?;
    assert_eq!(batches.iter().map(|b| b.len()).sum::<usize>(), 160);
    assert!(batches.iter().any(|b| b.len() == 1) && batches.iter().any(|b| b.len() > 1));
    for b in &batches {
        let longest = b.src.dims2()?.1.max(b.tgt.dims2()?.1);
        assert!(b.len() == 1 || b.len() * longest <= 9, "{} x {longest}", b.len());
    }
    Ok(())
}

#[test]
fn bucket_errors_name_pair_and_sizes() {
    let e = err_of(BucketIterator::new(many_pairs(), 8, Some(39), 0));
    assert!(e.contains("BucketIterator::new: pair 27: the source has 40 tokens, more than max_len = 39"), "{e}");
    let long_target = vec![pair(&[4], &[5]), pair(&[4], &[5; 9])];
    let e = err_of(BucketIterator::new(long_target, 8, Some(10), 0));
    assert!(e.contains("pair 1: the target has 11 tokens, more than max_len = 10"), "{e}");
    assert!(err_of(BucketIterator::new(vec![], 8, None, 0)).contains("empty corpus"));
    assert!(err_of(BucketIterator::new(many_pairs(), 0, None, 0)).contains("batch_size"));
    assert!(BucketIterator::new(many_pairs(), 8, Some(42), 0).is_ok());
}

#[test]
fn text_to_batches_end_to_end() -> Result<()> {
    let pairs = [("Der Hund schläft.", "The dog sleeps."), ("Die Katze sieht den Hund!", "The cat sees the dog!")];
    let src_vocab = Vocab::build(pairs.iter().map(|(s, _)| tokenize(s)), 1, None)?;
    let tgt_vocab = Vocab::build(pairs.iter().map(|(_, t)| tokenize(t)), 1, None)?;
    let encoded = encode_pairs(&pairs, &src_vocab, &tgt_vocab, false);
    assert_eq!(encoded[0].0.len(), 4);
    assert_eq!(encoded[0].1.len(), 6);
    let b = TranslationBatch::from_pairs(&encoded)?;
    let row: Vec<u32> = b.tgt_output()?.to_vec2::<u32>()?[0].clone();
    assert_eq!(tgt_vocab.decode_str(&row)?, "the dog sleeps.");
    Ok(())
}
