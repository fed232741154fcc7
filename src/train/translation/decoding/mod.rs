//! Decoding for translators: from source ids to target ids, one token at a time.
//!
//! Any model that implements [`Translate`](crate::models::Translate) gets [`greedy_decode`] and
//! [`beam_search`]. Both encode the source once and reuse the encoder's state at every step, run
//! the model in evaluation mode (dropout off) and put back the mode they found.
//!
//! Decoding is incremental: each step hands the model every live prefix one token longer than at
//! the last step, and the model's state keeps what its decoder computed for the shorter ones (the
//! Transformer's keys and values, [`DecoderCache`](crate::models::DecoderCache); a recurrent
//! decoder's hidden state, [`RecurrentState`](crate::models::RecurrentState)), so each step runs
//! one new position through the decoder's projections and feed-forward layers instead of the
//! whole prefix (the Transformer's attention still reads every earlier position, and its cache
//! grows by a copy at each step). A step's logits are those of
//! [`Transformer::forward`](crate::models::Transformer::forward) for that prefix up to float32
//! rounding; the tests check that greedy decoding and beam search give the same tokens, token for
//! token, as decoding the whole prefix at every step. Beam search decodes the beams of every
//! sentence of the batch together, as the rows of one state.

pub(crate) mod beam;
pub(crate) mod greedy;
mod support;

pub use beam::{BeamConfig, Hypothesis, LengthPenalty, beam_search};
pub use greedy::greedy_decode;
