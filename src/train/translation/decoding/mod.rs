//! Decoding for translators: from source ids to target ids, one token at a time.
//!
//! Any model that implements [`Translate`](crate::models::Translate) gets [`greedy_decode`] and
//! [`beam_search`]. Both encode the source once and reuse the encoder's state at every step, run
//! the model in evaluation mode (dropout off) and put back the mode they found.
//!
//! There is no key/value cache: every step runs the decoder over the whole prefix again and keeps
//! the last position's logits, so decoding `T` tokens costs `O(T^2)` decoder positions. For the
//! short sentences of the lectures this is plenty; it also means a step's logits are exactly
//! what [`Transformer::forward`](crate::models::Transformer::forward) gives for that prefix.

pub(crate) mod beam;
pub(crate) mod greedy;
mod support;

pub use beam::{BeamConfig, Hypothesis, LengthPenalty, beam_search};
pub use greedy::greedy_decode;
