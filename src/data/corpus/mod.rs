//! A German-English parallel corpus of our own, generated from a seed by a small grammar written
//! for this crate: no downloads, no sentences copied from anywhere.
//!
//! The generator draws an abstract [`Sentence`] and renders it twice, so every German sentence
//! has exactly one English translation, consistent by construction. Translating it takes real
//! reordering and agreement:
//!
//! - nouns with gender and number; articles and adjective endings by case (`der kleine Hund`,
//!   `den kleinen Hund`, `dem kleinen Hund` -> `the small dog`; `ein kleiner Hund`, `einen
//!   kleinen Hund` -> `a small dog`; `kleine Hunde` -> `small dogs`); weak nouns (`den Jungen`);
//! - verb second, with a fronted time adverb (`heute sieht der Mann den Hund` -> `today the man
//!   sees the dog`); the perfect with the participle last (`hat ... gesehen` -> `has seen`,
//!   `ist ... gegangen` -> `has gone`); modals with the infinitive last (`will ... lesen` ->
//!   `wants to read`, `kann ... sehen` -> `can see`, `wird ... sehen` -> `will see`); separable
//!   verbs (`steht ... auf` -> `gets up`);
//! - subordinate clauses with the verb last (`weil`, `wenn`, `obwohl`, and `dass`/`ob` after verbs
//!   such as `sagen` and `wissen`); an adverbial clause may come first, and the main clause then
//!   starts with its verb (`wenn der Hund schläft , liest der Mann` -> `if the dog sleeps , the
//!   man reads`);
//! - negation with `nicht` (`does not`) and `kein` (`no`); yes/no questions, verb first
//!   (`sieht der Mann den Hund ?` -> `does the man see the dog ?`); English `do`-support and
//!   third-person `-s`; prepositions with the dative (`mit dem Hund` -> `with the dog`, `im Haus`
//!   -> `in the house`, `zur Schule` -> `to the school`).
//!
//! **Text conventions.** Tokens are separated by single spaces, punctuation (`.`, `,`, `?`)
//! included, so [`tokens`] (a split at spaces) gives them back. Spelling is the languages' own
//! inside a sentence: German nouns capitalised, English `I` and weekdays capitalised; the first
//! word of a sentence is not capitalised, so a word is spelled the same wherever it stands. The
//! tokenizer lower-cases; [`CorpusStats`] counts types lower-cased for that reason.
//!
//! **Same seed, same corpus.** Every choice comes from the crate's own MT19937
//! [`Generator`](crate::repro::Generator) over tables in a fixed order; no hash-map order, no
//! thread-local randomness.
//!
//! ```
//! use attention_zoo::data::corpus::{CorpusConfig, generate_corpus, tokens};
//! # fn main() -> candle_core::Result<()> {
//! let corpus = generate_corpus(&CorpusConfig { train: 100, valid: 10, test: 10, ..CorpusConfig::default() })?;
//! let (de, en) = &corpus.train[0];
//! assert!((3..=20).contains(&tokens(de).len()) && (3..=20).contains(&tokens(en).len()));
//! # Ok(())
//! # }
//! ```

pub(crate) mod build;
pub(crate) mod clause;
pub(crate) mod config;
pub(crate) mod generate;
pub(crate) mod lexicon;
pub(crate) mod phrase;
pub(crate) mod render;

pub use build::{Corpus, CorpusStats, Pair, STALL_DRAWS, generate_corpus, tokens};
pub use clause::{Clause, Conj, Pp, Sentence, Subordinate, Tense};
pub use config::{CorpusConfig, GrammarMix};
pub use phrase::{Case, Det, Nominal, NounPhrase, Possessive, Pronoun};
