//! The knobs of the generated corpus, in one place.

use candle_core::{Result, bail};

/// How often the generator uses each construction. Every field is a probability in `[0, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct GrammarMix {
    /// A yes/no question rather than a statement. Default 0.15.
    pub question: f64,
    /// A clause negated with `nicht` (otherwise a noun phrase may still take `kein`). Default 0.2.
    pub negation: f64,
    /// A clause in the perfect. Default 0.25.
    pub perfect: f64,
    /// A clause with a modal verb (`perfect + modal` must not exceed 1). Default 0.2.
    pub modal: f64,
    /// A main clause with an adverbial clause (`weil`, `wenn`, `obwohl`). Default 0.25.
    pub subordinate: f64,
    /// That adverbial clause before the main clause (statements only). Default 0.3.
    pub subordinate_first: f64,
    /// A main clause whose verb takes a `dass`/`ob` clause (`sagen`, `wissen`). Default 0.1.
    pub clause_verb: f64,
    /// A pronoun rather than a noun phrase, for each subject, object and PP object. Default 0.2.
    pub pronoun: f64,
    /// An adjective in a noun phrase. Default 0.3.
    pub adjective: f64,
    /// A noun phrase in the plural. Default 0.3.
    pub plural: f64,
    /// A prepositional phrase in a clause whose verb takes one. Default 0.3.
    pub pp: f64,
    /// A time adverb in a clause. Default 0.2.
    pub adverb: f64,
    /// That adverb fronted in a statement (`heute sieht ...`). Default 0.5.
    pub front_adverb: f64,
}

impl Default for GrammarMix {
    fn default() -> Self {
        GrammarMix {
            question: 0.15,
            negation: 0.2,
            perfect: 0.25,
            modal: 0.2,
            subordinate: 0.25,
            subordinate_first: 0.3,
            clause_verb: 0.1,
            pronoun: 0.2,
            adjective: 0.3,
            plural: 0.3,
            pp: 0.3,
            adverb: 0.2,
            front_adverb: 0.5,
        }
    }
}

/// The size and shape of a generated German-English corpus. The defaults give 30,000 training,
/// 1,000 validation and 1,000 test pairs of 3 to 20 tokens from seed 0.
///
/// ```
/// use attention_zoo::data::corpus::{CorpusConfig, generate_corpus};
/// # fn main() -> candle_core::Result<()> {
/// let cfg = CorpusConfig { train: 200, valid: 20, test: 20, ..CorpusConfig::default() };
/// let corpus = generate_corpus(&cfg)?;
/// assert_eq!(corpus.train.len(), 200);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusConfig {
    /// Seed of the crate's own generator ([`Generator`](crate::repro::Generator), MT19937):
    /// the same seed gives the same corpus on every machine. Default 0.
    pub seed: u64,
    /// Training pairs. Default 30,000.
    pub train: usize,
    /// Validation pairs. Default 1,000.
    pub valid: usize,
    /// Test pairs. Default 1,000.
    pub test: usize,
    /// Fewest tokens in a sentence, punctuation included, on both sides. Default 3.
    pub min_len: usize,
    /// Most tokens in a sentence, on both sides. Default 20.
    pub max_len: usize,
    /// How often each construction appears.
    pub mix: GrammarMix,
}

impl Default for CorpusConfig {
    fn default() -> Self {
        CorpusConfig { seed: 0, train: 30_000, valid: 1_000, test: 1_000, min_len: 3, max_len: 20, mix: GrammarMix::default() }
    }
}

/// The most pairs one corpus may hold.
pub const MAX_PAIRS: usize = 10_000_000;

impl CorpusConfig {
    /// All pairs, the three splits together.
    pub fn total(&self) -> usize {
        self.train.saturating_add(self.valid).saturating_add(self.test)
    }

    /// Refuses sizes and probabilities the generator cannot honour.
    pub fn check_config(&self) -> Result<()> {
        if self.train == 0 {
            bail!("CorpusConfig: expected at least one training pair, got train = 0")
        }
        if self.total() > MAX_PAIRS {
            bail!("CorpusConfig: {} pairs are too many (at most {MAX_PAIRS})", self.total())
        }
        if self.min_len == 0 || self.min_len > self.max_len {
            bail!("CorpusConfig: expected 1 <= min_len <= max_len, got min_len = {}, max_len = {}", self.min_len, self.max_len)
        }
        let m = &self.mix;
        let named = [
            ("question", m.question),
            ("negation", m.negation),
            ("perfect", m.perfect),
            ("modal", m.modal),
            ("subordinate", m.subordinate),
            ("subordinate_first", m.subordinate_first),
            ("clause_verb", m.clause_verb),
            ("pronoun", m.pronoun),
            ("adjective", m.adjective),
            ("plural", m.plural),
            ("pp", m.pp),
            ("adverb", m.adverb),
            ("front_adverb", m.front_adverb),
        ];
        for (name, p) in named {
            if !(0.0..=1.0).contains(&p) {
                bail!("CorpusConfig: mix.{name} must be a probability in [0, 1], got {p}")
            }
        }
        if m.perfect + m.modal > 1.0 {
            bail!("CorpusConfig: mix.perfect + mix.modal must not exceed 1, got {} + {}", m.perfect, m.modal)
        }
        Ok(())
    }
}
