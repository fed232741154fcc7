//! The contract of a translator: [`Translate`]. A model that implements it, in its own folder,
//! gets greedy decoding and beam search (`train::translation::decoding`), teacher-forced training
//! through `StepByStep` (a `Learner` of translation batches), `Translator` (sentences in,
//! sentences out, BLEU) and the attention of one sentence, with no other code.
//!
//! The Transformer, the GRU translator and the LSTM translator implement it.

use super::special_ids::PAD_ID;
use crate::attention::ScoreTerms;
use crate::attention::additive_mask::ids_values;
use crate::nn::Walk;
use crate::nn::shape::{MAX_ELEMENTS, Within, invalid, invalid_shape};
use candle_core::{DType, Result, Tensor};

/// The real lengths of a batch of source ids padded with [`PAD_ID`] at the end of each row.
/// `module` names the caller in the errors: a row of padding alone, or a padding id inside a
/// row (before a real token), which would make the row's length ambiguous.
///
/// # Shapes
/// - `src`: `(N, S)` with `N, S > 0`; returns `N` lengths, each in `1..=S`
pub fn source_lengths(module: &str, src: &Tensor) -> Result<Vec<usize>> {
    // `.within`: the label is the caller's, given at run time, which `#[errors_as]` cannot name.
    padded_lengths(src).within(module)
}

/// [`source_lengths`] with its errors unlabelled ([`invalid`]): the public caller labels them.
pub(crate) fn padded_lengths(src: &Tensor) -> Result<Vec<usize>> {
    let (n, s) = match src.dims() {
        &[n, s] if n > 0 && s > 0 => (n, s),
        d => return Err(invalid_shape("source ids (N, S) with N, S > 0", d)),
    };
    let ids = src.to_dtype(DType::U32)?.flatten_all()?.to_vec1::<u32>()?;
    let mut lengths = Vec::with_capacity(n);
    for (k, row) in ids.chunks(s).enumerate() {
        let len = row.iter().position(|&v| v == PAD_ID).unwrap_or(s);
        if len == 0 {
            return Err(invalid(format!("source {k} of {n} is all padding")));
        }
        if let Some(p) = row[len..].iter().position(|&v| v != PAD_ID) {
            return Err(invalid(format!("source {k} has the padding id {PAD_ID} at position {len} before a real token at {}", len + p)));
        }
        lengths.push(len);
    }
    Ok(lengths)
}

/// Checks the rows a decoder keeps of a state of `n` sentences ([`Translate::select_rows`]):
/// indices `(K,)` of an integer dtype, each in `0..n` (candle would say only "invalid index").
pub fn check_rows(rows: &Tensor, n: usize) -> Result<()> {
    if rows.rank() != 1 {
        return Err(invalid_shape("row indices (K,)", rows.dims()));
    }
    if !matches!(rows.dtype(), DType::U8 | DType::U32 | DType::I64) {
        return Err(invalid(format!("expected integer row indices (u8, u32, i64), got dtype {:?}", rows.dtype())));
    }
    let ids = rows.to_dtype(DType::I64)?.to_vec1::<i64>()?;
    if let Some((k, r)) = ids.iter().enumerate().find(|&(_, &r)| r < 0 || r as u64 >= n as u64) {
        return Err(invalid(format!("row {r} (index {k} of the rows) is not one of the state's {n} sentences")));
    }
    Ok(())
}

/// The ids of target prefixes `(N, t)` as `u32`, row-major, checked: whole numbers (integer ids,
/// or floats holding them) in `0..vocab`; unlabelled ([`invalid`]): the public caller labels them.
pub(crate) fn target_ids(prefix: &Tensor, vocab: usize) -> Result<Vec<u32>> {
    let values = ids_values(prefix)?;
    let t = prefix.dims().last().copied().unwrap_or(1).max(1);
    values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            if v.fract() == 0.0 && v >= 0.0 && v < vocab as f64 {
                Ok(v as u32)
            } else {
                Err(invalid(format!("prefix id {v} (row {}, position {}) is not a target id in 0..{vocab}", k / t, k % t)))
            }
        })
        .collect()
}

/// The target ids a decoder's kept state (the Transformer's key/value cache, a recurrent
/// decoder's carried state) was computed from: `len` ids of each prefix, row-major. Decoding reads
/// the kept state only for prefixes that continue these.
#[derive(Clone, Debug, Default)]
pub(crate) struct SeenIds {
    ids: Vec<u32>,
    len: usize,
}

impl SeenIds {
    /// `ids` of prefixes of `len` ids each, row-major.
    pub(crate) fn new(ids: Vec<u32>, len: usize) -> Self {
        SeenIds { ids, len }
    }

    /// The ids of each prefix.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether these are `rows` prefixes (or none at all).
    pub(crate) fn holds(&self, rows: usize) -> bool {
        self.ids.len() == rows * self.len
    }

    /// Whether every row of the prefixes `ids` (`(N, t)`, row-major) continues its prefix here by
    /// at least one id.
    pub(crate) fn continued_by(&self, ids: &[u32], t: usize) -> bool {
        let len = self.len;
        len > 0
            && len < t
            && self.ids.len() * t == ids.len() * len
            && ids.chunks(t).zip(self.ids.chunks(len)).all(|(row, kept)| row[..len] == *kept)
    }

    /// The prefixes at `rows`, in that order, repeats allowed, for rows the caller has checked
    /// against the sentences these prefixes belong to ([`check_rows`]); a row beyond them is
    /// still an error rather than a panic.
    pub(crate) fn pick(&self, rows: &Tensor) -> Result<Self> {
        if self.len == 0 {
            return Ok(SeenIds::default());
        }
        let picked = rows.to_dtype(DType::I64)?.to_vec1::<i64>()?;
        let ids = picked
            .iter()
            .map(|&r| {
                let from = usize::try_from(r).ok().and_then(|r| r.checked_mul(self.len));
                let kept = from.and_then(|f| self.ids.get(f..f.checked_add(self.len)?));
                kept.ok_or_else(|| invalid(format!("row {r} is not one of the kept prefixes")))
            })
            .collect::<Result<Vec<_>>>()?
            .concat();
        Ok(SeenIds { ids, len: self.len })
    }
}

/// Every attention map of a layered attention model's forward pass (the Transformer's), one
/// tensor per layer, for plots.
#[derive(Clone, Debug)]
pub struct AttentionMaps {
    /// Encoder self-attention, per layer `(N, n_heads, S, S)`.
    pub encoder_self: Vec<Tensor>,
    /// Decoder masked self-attention, per layer `(N, n_heads, T, T)`.
    pub decoder_self: Vec<Tensor>,
    /// Decoder cross-attention over the source, per layer `(N, n_heads, T, S)`.
    pub cross: Vec<Tensor>,
}

/// What a translator shows of its attention over one sentence.
#[derive(Clone, Debug)]
pub enum SentenceAttention {
    /// One distribution over the source tokens at each target step, `(N, T, S)` (the recurrent
    /// translators: their decoder attends once a step).
    Source(Tensor),
    /// Every layer's and head's maps: encoder self-attention, decoder self-attention and
    /// cross-attention (the Transformer).
    Maps(AttentionMaps),
}

/// Every layer's [`ScoreTerms`] of a Transformer's three attentions over one pass.
#[derive(Clone, Debug)]
pub struct TermMaps {
    /// Encoder self-attention: queries and keys from the source, per layer.
    pub encoder_self: Vec<ScoreTerms>,
    /// Masked decoder self-attention: queries and keys from the target, per layer.
    pub decoder_self: Vec<ScoreTerms>,
    /// Cross-attention: queries from the target, keys from the encoder's memory, per layer.
    pub cross: Vec<ScoreTerms>,
}

/// What a translator shows of its scores' terms over one sentence (the explorer's neuron view).
#[derive(Clone, Debug)]
pub enum SentenceTerms {
    /// The recurrent decoder's one attention over the source at every target step: terms of
    /// `(N, 1, T, S)` scores.
    Source(ScoreTerms),
    /// Every layer's terms of the Transformer's three attentions.
    Maps(TermMaps),
}

impl SentenceTerms {
    /// The terms of the attention over the source, per layer: the recurrent decoder's one, or the
    /// Transformer's cross-attention in every layer.
    pub fn cross(&self) -> &[ScoreTerms] {
        match self {
            SentenceTerms::Source(t) => std::slice::from_ref(t),
            SentenceTerms::Maps(m) => &m.cross,
        }
    }
}

/// A translation model: it encodes a batch of source sentences once, then gives the logits of the
/// next target token for target prefixes (decoding), or of every position of a whole target at
/// once (teacher forcing, for training).
pub trait Translate: Walk {
    /// What the encoder leaves for the decoder (for the Transformer the memory and the source
    /// mask; for the recurrent translators the encoder's states and final state).
    type State;

    /// The target vocabulary size `V`: the width of the logits; target ids lie in `0..V`.
    fn tgt_vocab(&self) -> usize;

    /// The source vocabulary size the model embeds (source ids lie in `0..size`), where it says;
    /// `None` (the default) for a model that does not tell.
    fn src_vocab(&self) -> Option<usize> {
        None
    }

    /// The longest source and the longest target prefix the model takes (e.g. what its
    /// positional encoding covers); `None` for no limit.
    fn max_len(&self) -> Option<usize> {
        None
    }

    /// The padding id the model masks out of its sources (and the loss ignores), if any:
    /// `<sos>` must differ from it.
    fn pad_id(&self) -> Option<u32> {
        None
    }

    /// Runs the encoder over a batch of source sentences, once per decoding call.
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`
    /// - returns the state of `N` sentences
    fn encode_src(&mut self, src: &Tensor) -> Result<Self::State>;

    /// The state of the sentences at `rows`, in that order, repeats allowed (beam search gives
    /// every live beam of a sentence its own copy). The picked state is detached from the graph
    /// (decoding does not back-propagate, and a state keeping its graph would keep every earlier
    /// step's alive): gradients do not flow through it to the encoder or to earlier steps.
    ///
    /// # Shapes
    /// - `rows`: `u32` row indices `(K,)`; returns the state of `K` sentences
    fn select_rows(&self, state: &Self::State, rows: &Tensor) -> Result<Self::State>;

    /// The logits of the token that follows each prefix (the last position's logits). The state
    /// may keep what the decoder computed (a key/value cache), so that the next call, with every
    /// prefix one token longer, decodes only the new position; a prefix that does not continue the
    /// last one must give the same logits as from a fresh state.
    ///
    /// # Shapes
    /// - `state`: the state of `N` sentences; `prefix`: target ids `(N, t)`, starting with `<sos>`
    /// - returns the logits `(N, V)`
    fn next_logits(&mut self, state: &mut Self::State, prefix: &Tensor) -> Result<Tensor>;

    /// Teacher forcing: the logits of the token after every position of `tgt_input`, the whole
    /// target at once (what training scores against the target shifted by one).
    ///
    /// # Shapes
    /// - `src`: `(N, S)` padded with the pad id; `tgt_input`: `(N, T)` starting with `<sos>`
    /// - returns the logits `(N, T, V)`
    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor>;

    /// The attention of a teacher-forced pass over `tgt_input`, for drawing what each target
    /// token read. Called in evaluation mode.
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; `tgt_input`: `(N, T)` starting with `<sos>`
    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceAttention>;

    /// The terms of the scores of [`Translate::sentence_attention`]'s pass, for the explorer's
    /// neuron view. Called in evaluation mode. By default (a model of your own), an error: the
    /// model does not give them.
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; `tgt_input`: `(N, T)` starting with `<sos>`
    fn sentence_terms(&mut self, _src: &Tensor, _tgt_input: &Tensor) -> Result<SentenceTerms> {
        Err(invalid("this model does not give the terms of its attention scores"))
    }

    /// Whether a batch may be trained as independent runs of rows on several threads with the
    /// same result for the same seed: `false` while the model draws random numbers (dropout in
    /// training mode), whose order would then depend on the threads. Default `true`.
    fn splits_rows(&self) -> bool {
        true
    }
}

/// Runs `f` with the model in evaluation mode and puts back the mode it was in, whatever `f`
/// returns.
pub(crate) fn in_eval<M: Walk, T>(model: &mut M, f: impl FnOnce(&mut M) -> Result<T>) -> Result<T> {
    let was_training = model.is_training();
    model.set_training(false);
    let out = f(model);
    model.set_training(was_training);
    out
}

/// Checks a recurrent translator's sizes, naming the field in the error ([`invalid`]: the public
/// constructor called labels it): each at least 1, and each embedding and layer small enough to
/// make.
pub(crate) fn check_translator_sizes(src_vocab: usize, tgt_vocab: usize, embed_dim: usize, hidden_dim: usize) -> Result<()> {
    let fields = [("src_vocab", src_vocab), ("tgt_vocab", tgt_vocab), ("embed_dim", embed_dim), ("hidden_dim", hidden_dim)];
    if let Some((name, _)) = fields.iter().find(|(_, v)| *v == 0) {
        return Err(invalid(format!("{name} must be at least 1, got 0")));
    }
    for (a, x, b, y) in [
        ("src_vocab", src_vocab, "embed_dim", embed_dim),
        ("tgt_vocab", tgt_vocab, "embed_dim", embed_dim),
        ("tgt_vocab", tgt_vocab, "hidden_dim", hidden_dim),
        ("embed_dim", embed_dim, "hidden_dim", hidden_dim),
        ("hidden_dim", hidden_dim, "hidden_dim", hidden_dim),
    ] {
        if x.checked_mul(y).and_then(|p| p.checked_mul(8)).is_none_or(|p| p > MAX_ELEMENTS) {
            return Err(invalid(format!("{a} {x} and {b} {y} make a layer too large (at most {MAX_ELEMENTS} parameters a tensor)")));
        }
    }
    Ok(())
}
