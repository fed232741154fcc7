//! The recurrent translators' side of the translation contract: [`RecurrentTranslate`]. A model
//! that encodes a batch of sources into a state, decodes a whole target from it (teacher forcing)
//! and steps its decoder one token at a time gets [`Translate`] from it; decoding carries the
//! decoder's state from one step to the next ([`RecurrentState`]), so a prefix one token longer
//! than the last costs one step.

use super::special_ids::PAD_ID;
use super::translate::{SeenIds, SentenceAttention, SentenceTerms, Translate, target_ids};
use crate::attention::ScoreTerms;
use crate::nn::Walk;
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{Within, invalid_shape};
use candle_core::{Result, Tensor};

/// A recurrent translator: its encoder, its teacher-forced decoder, and its decoder's step.
pub trait RecurrentTranslate: Walk {
    /// What the encoder leaves for the decoder.
    type State;
    /// The model's name, for errors.
    const NAME: &'static str;

    /// The target vocabulary size `V`.
    fn tgt_vocab(&self) -> usize;

    /// The source vocabulary size.
    fn src_vocab(&self) -> usize;

    /// Encodes a batch of sources padded with [`PAD_ID`].
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns the state of `N` sentences
    fn encode(&self, src: &Tensor) -> Result<Self::State>;

    /// Decodes the target ids `tgt` from `state`, teacher-forced.
    ///
    /// # Shapes
    /// - `tgt`: `(N, T)` starting with `<sos>`
    /// - returns the logits `(N, T, V)` and the weights over the source `(N, T, S)`
    fn decode(&mut self, state: &Self::State, tgt: &Tensor) -> Result<(Tensor, Tensor)>;

    /// The state of the sentences at `rows`, in that order, repeats allowed.
    fn select_rows(&self, state: &Self::State, rows: &Tensor) -> Result<Self::State>;

    /// What the decoder carries into its first step: the encoder's final state (the GRU's hidden
    /// state, the LSTM's `h` and `c`), each tensor with the sentences on dim 0.
    ///
    /// # Shapes
    /// - returns tensors `(N, ...)`
    fn start_carry(&self, state: &Self::State) -> Result<Vec<Tensor>>;

    /// One decoder step: reads `token` after `carry` (what the decoder carried out of the tokens
    /// before it) and gives the logits of the next token and the new carry. Stepping through a
    /// target from [`RecurrentTranslate::start_carry`] gives the logits of
    /// [`RecurrentTranslate::decode`] (up to float rounding).
    ///
    /// # Shapes
    /// - `carry`: as [`RecurrentTranslate::start_carry`]; `token`: ids `(N,)`
    /// - returns the logits `(N, V)` and the new carry
    fn step(&mut self, state: &Self::State, carry: &[Tensor], token: &Tensor) -> Result<(Tensor, Vec<Tensor>)>;

    /// The terms of [`RecurrentTranslate::decode`]'s scores over `tgt`, for the explorer's neuron
    /// view.
    ///
    /// # Shapes
    /// - `tgt`: `(N, T)` starting with `<sos>`; returns the terms of `(N, 1, T, S)` scores
    fn score_terms(&mut self, state: &Self::State, tgt: &Tensor) -> Result<ScoreTerms>;
}

/// A recurrent translator's decoding state: what the encoder left, and the decoder's carry after
/// the last prefixes decoded from it, with those prefixes' ids, so that the next prefixes, one
/// token longer, cost one step; prefixes that do not continue them are decoded from the start.
#[derive(Clone, Debug)]
pub struct RecurrentState<S> {
    /// What the encoder left for the decoder (private: the carry belongs to it).
    encoded: S,
    carried: Option<Carried>,
}

/// The decoder's carry after the target ids `seen`.
#[derive(Clone, Debug)]
struct Carried {
    carry: Vec<Tensor>,
    seen: SeenIds,
}

impl<S> RecurrentState<S> {
    /// What the encoder left for the decoder.
    pub fn encoded(&self) -> &S {
        &self.encoded
    }

    /// The target ids per sentence the decoder's carry has read (0 before the first step).
    pub fn steps_read(&self) -> usize {
        self.carried.as_ref().map_or(0, |c| c.seen.len())
    }
}

impl<M: RecurrentTranslate> Translate for M {
    type State = RecurrentState<M::State>;

    fn tgt_vocab(&self) -> usize {
        RecurrentTranslate::tgt_vocab(self)
    }

    fn src_vocab(&self) -> Option<usize> {
        Some(RecurrentTranslate::src_vocab(self))
    }

    fn pad_id(&self) -> Option<u32> {
        Some(PAD_ID)
    }

    fn encode_src(&mut self, src: &Tensor) -> Result<RecurrentState<M::State>> {
        Ok(RecurrentState { encoded: self.encode(src)?, carried: None })
    }

    fn select_rows(&self, state: &RecurrentState<M::State>, rows: &Tensor) -> Result<RecurrentState<M::State>> {
        // The model's own `select_rows` checks `rows` against its sentences, under its label.
        let encoded = RecurrentTranslate::select_rows(self, &state.encoded, rows)?;
        // `.within`: the label is the model's name, `M::NAME`, which `#[errors_as]` cannot name.
        let carried = state.carried.as_ref().map(|c| select_carried(c, rows)).transpose().within(&format!("{}::select_rows", M::NAME))?;
        Ok(RecurrentState { encoded, carried })
    }

    /// Steps the decoder through the ids of `prefix` its carry has not read: the last one when
    /// `prefix` continues the prefixes decoded before from this state, else all of them from the
    /// encoder's final state.
    fn next_logits(&mut self, state: &mut RecurrentState<M::State>, prefix: &Tensor) -> Result<Tensor> {
        // `.within`: the label is the model's name, `M::NAME`, which `#[errors_as]` cannot name.
        step_through(self, state, prefix).within(M::NAME)
    }

    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let state = self.encode(src)?;
        // `.within`: the label is the model's name, `M::NAME`, which `#[errors_as]` cannot name.
        Ok(self.decode(&state, tgt_input).within(M::NAME)?.0)
    }

    /// The decoder's weights over the source at every target step, `(N, T, S)`.
    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceAttention> {
        let state = self.encode(src)?;
        // `.within`: the label is the model's name, `M::NAME`, which `#[errors_as]` cannot name.
        Ok(SentenceAttention::Source(self.decode(&state, tgt_input).within(M::NAME)?.1))
    }

    fn sentence_terms(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceTerms> {
        let state = self.encode(src)?;
        // `.within`: the label is the model's name, `M::NAME`, which `#[errors_as]` cannot name.
        Ok(SentenceTerms::Source(self.score_terms(&state, tgt_input).within(M::NAME)?))
    }
}

/// [`Translate::next_logits`] of a recurrent translator, its errors unlabelled.
fn step_through<M: RecurrentTranslate>(model: &mut M, state: &mut RecurrentState<M::State>, prefix: &Tensor) -> Result<Tensor> {
    let t = match prefix.dims() {
        &[_, t] if t > 0 => t,
        d => return Err(invalid_shape("target prefixes (N, T) with T > 0", d)),
    };
    let ids = target_ids(prefix, RecurrentTranslate::tgt_vocab(model))?;
    // Taken out while stepping: a step that fails leaves no carry that read part of a prefix.
    let (mut carry, read) = match state.carried.take() {
        Some(c) if c.seen.continued_by(&ids, t) => (c.carry, c.seen.len()),
        _ => (model.start_carry(&state.encoded)?, 0),
    };
    let mut logits = None;
    for k in read..t {
        let token = prefix.narrow(1, k, 1)?.squeeze(1)?;
        let (next, new_carry) = model.step(&state.encoded, &carry, &token)?;
        (logits, carry) = (Some(next), new_carry);
    }
    state.carried = Some(Carried { carry, seen: SeenIds::new(ids, t) });
    logits.ok_or_else(|| candle_core::Error::Msg("no decoding step".into()))
}

/// The carry and ids of the sentences at `rows`.
fn select_carried(c: &Carried, rows: &Tensor) -> Result<Carried> {
    // The model's `select_rows` has checked `rows` against the sentences.
    let seen = c.seen.pick(rows)?;
    let carry = c.carry.iter().map(|t| index_rows(t, rows)).collect::<Result<_>>()?;
    Ok(Carried { carry, seen })
}
