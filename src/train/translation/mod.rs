//! Translation on top of the trainer: every [`Translate`](crate::models::Translate) model is a
//! `Learner` of translation batches (`learner.rs`), [`translation_trainer`] sets up its training,
//! decoding ([`greedy_decode`], [`beam_search`]) turns source ids into target ids (greedy, beam search), [`Translator`] turns
//! sentences into sentences, and [`corpus_bleu`] scores them as sacrebleu does.

pub(crate) mod bleu;
pub(crate) mod decoding;
mod learner;
pub(crate) mod tokenize_13a;
pub(crate) mod trainer;
pub(crate) mod translator;

pub use bleu::{Bleu, BleuConfig, Smooth, Tokenizer, corpus_bleu, corpus_bleu_tokens, sentence_bleu};
pub use decoding::{BeamConfig, Hypothesis, LengthPenalty, beam_search, greedy_decode};
pub use tokenize_13a::tokenize_13a;
pub use trainer::translation_trainer;
pub use translator::Translator;
