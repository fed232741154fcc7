//! The corpus itself: distinct sentences drawn until the three splits are full, and their
//! statistics.

use super::config::CorpusConfig;
use super::generate::Sampler;
use crate::nn::shape::error;
use candle_core::Result;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// When this many draws in a row bring no new sentence of an allowed length, the grammar is
/// taken to have no more to give.
pub const STALL_DRAWS: usize = 20_000;

/// A German-English pair: `(german, english)`.
pub type Pair = (String, String);

/// Train, validation and test pairs. No German sentence appears twice, within a split or across
/// splits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    pub train: Vec<Pair>,
    pub valid: Vec<Pair>,
    pub test: Vec<Pair>,
}

/// The tokens of a corpus sentence: its words and punctuation, split at spaces.
pub fn tokens(sentence: &str) -> Vec<&str> {
    sentence.split_whitespace().collect()
}

/// A generated German-English corpus. Sentences are drawn one by one from the grammar with
/// `cfg.seed`; those with fewer than `min_len` or more than `max_len` tokens on either side, and
/// those whose German was drawn before, are skipped; the first `train` kept go to training, the
/// next `valid` to validation, the next `test` to testing. Asking for more distinct sentences than
/// the grammar can give within the length bounds is an error, raised once [`STALL_DRAWS`] draws
/// in a row bring nothing new.
pub fn generate_corpus(cfg: &CorpusConfig) -> Result<Corpus> {
    cfg.check_config()?;
    let mut pairs = draw_pairs(cfg)?;
    let test = pairs.split_off(cfg.train + cfg.valid);
    let valid = pairs.split_off(cfg.train);
    Ok(Corpus { train: pairs, valid, test })
}

/// The `cfg.total()` distinct pairs of [`generate_corpus`], in the order drawn; an error naming
/// `generate_corpus` once [`STALL_DRAWS`] draws in a row bring nothing new, or should the grammar
/// ever draw a sentence it refuses to render.
fn draw_pairs(cfg: &CorpusConfig) -> Result<Vec<Pair>> {
    let total = cfg.total();
    let mut sampler = Sampler::new(cfg.seed, &cfg.mix);
    let mut seen: HashSet<String> = HashSet::with_capacity(total);
    let mut pairs: Vec<Pair> = Vec::with_capacity(total);
    let (mut draws, mut stalled) = (0usize, 0usize);
    while pairs.len() < total {
        if stalled >= STALL_DRAWS {
            return Err(error(
                "generate_corpus",
                format!(
                    "asked for {total} distinct sentences of {} to {} tokens, but the grammar gave only {} in {draws} draws \
                     (the last {STALL_DRAWS} brought nothing new); ask for fewer pairs or widen min_len..max_len",
                    cfg.min_len,
                    cfg.max_len,
                    pairs.len()
                ),
            ));
        }
        draws += 1;
        stalled += 1;
        let sentence = sampler.sentence();
        let (de, en) = match sentence.render() {
            Ok(p) => p,
            Err(e) => {
                return Err(error("generate_corpus", format!("draw {draws} built a sentence the grammar refuses ({e}): {sentence:?}")));
            }
        };
        let fits = |s: &str| (cfg.min_len..=cfg.max_len).contains(&s.split_whitespace().count());
        if fits(&de) && fits(&en) && !seen.contains(&de) {
            seen.insert(de.clone());
            pairs.push((de, en));
            stalled = 0;
        }
    }
    Ok(pairs)
}

/// Counts over a corpus: word types as the tokenizer will see them (lower-cased), and sentence
/// lengths in tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusStats {
    pub pairs: usize,
    pub german_types: usize,
    pub english_types: usize,
    /// Sentences by token count, German side.
    pub german_lengths: BTreeMap<usize, usize>,
    /// Sentences by token count, English side.
    pub english_lengths: BTreeMap<usize, usize>,
}

impl Corpus {
    /// Every pair: train, then validation, then test.
    pub fn pairs(&self) -> impl Iterator<Item = &Pair> {
        self.train.iter().chain(&self.valid).chain(&self.test)
    }

    /// Type and length counts over all three splits.
    pub fn stats(&self) -> CorpusStats {
        let (mut de_types, mut en_types) = (BTreeSet::new(), BTreeSet::new());
        let (mut de_lengths, mut en_lengths) = (BTreeMap::new(), BTreeMap::new());
        for (de, en) in self.pairs() {
            for (s, types, lengths) in [(de, &mut de_types, &mut de_lengths), (en, &mut en_types, &mut en_lengths)] {
                let t = tokens(s);
                *lengths.entry(t.len()).or_insert(0) += 1;
                types.extend(t.into_iter().map(str::to_lowercase));
            }
        }
        CorpusStats {
            pairs: self.pairs().count(),
            german_types: de_types.len(),
            english_types: en_types.len(),
            german_lengths: de_lengths,
            english_lengths: en_lengths,
        }
    }
}
