//! `TranslationBatch`: encoded sentence pairs padded into two id tensors, with their lengths,
//! their masks and the shifted targets of teacher forcing.

use super::tokenizer::tokenize;
use super::vocab::{EOS_ID, PAD_ID, SOS_ID, Vocab};
use crate::nn::errors_as;
use crate::nn::shape::{Within, check_size, error, invalid, shape_error};
use candle_core::{Device, Result, Tensor};

/// A pair of encoded sentences: source ids, target ids (`<sos>` ... `<eos>`).
pub type EncodedPair = (Vec<u32>, Vec<u32>);

/// Tokenizes and encodes sentence pairs: the source with [`Vocab::encode`] (wrapped in
/// `<sos>` ... `<eos>` when `src_sos_eos`), the target always wrapped in `<sos>` ... `<eos>`.
pub fn encode_pairs<S: AsRef<str>, T: AsRef<str>>(
    pairs: &[(S, T)],
    src_vocab: &Vocab,
    tgt_vocab: &Vocab,
    src_sos_eos: bool,
) -> Vec<EncodedPair> {
    pairs
        .iter()
        .map(|(s, t)| (src_vocab.encode(&tokenize(s.as_ref()), src_sos_eos), tgt_vocab.encode(&tokenize(t.as_ref()), true)))
        .collect()
}

/// Checks encoded pairs before batching: every source has at least one id, every target starts
/// with `<sos>`, ends with `<eos>` and has at least those two, no id is the padding id 0, and,
/// with `max_len`, no source or target (specials included) is longer than `max_len` (the
/// Transformer's positional table). Errors name `module`, the 0-based pair index and the sizes.
pub fn check_pairs(module: &str, pairs: &[EncodedPair], max_len: Option<usize>) -> Result<()> {
    check_encoded(pairs, max_len).within(module)
}

/// [`check_pairs`], unlabelled: the door that calls it labels it.
pub(crate) fn check_encoded(pairs: &[EncodedPair], max_len: Option<usize>) -> Result<()> {
    if pairs.is_empty() {
        return Err(invalid("no sentence pairs (empty corpus)"));
    }
    pairs.iter().enumerate().try_for_each(|(i, p)| check_pair(i, p, max_len))
}

/// Checks one pair, `i` being its index in the caller's list.
fn check_pair(i: usize, (src, tgt): &EncodedPair, max_len: Option<usize>) -> Result<()> {
    if src.is_empty() {
        return Err(invalid(format!("pair {i}: the source is empty")));
    }
    if tgt.len() < 2 || tgt[0] != SOS_ID || tgt[tgt.len() - 1] != EOS_ID {
        return Err(invalid(format!("pair {i}: the target must be <sos> ... <eos> (ids {SOS_ID} ... {EOS_ID}), got {tgt:?}")));
    }
    for (side, ids) in [("source", src), ("target", tgt)] {
        if let Some(p) = ids.iter().position(|&id| id == PAD_ID) {
            return Err(invalid(format!("pair {i}: the {side} holds the padding id {PAD_ID} at position {p}")));
        }
        if let Some(m) = max_len
            && ids.len() > m
        {
            return Err(invalid(format!("pair {i}: the {side} has {} tokens, more than max_len = {m}", ids.len())));
        }
    }
    Ok(())
}

/// The rows of ids of one side of a batch, borrowed from the pairs.
type Rows<'a> = Vec<&'a [u32]>;

/// Checks the pairs at `indices` of `pairs` for [`TranslationBatch::new`]: at least one index,
/// each in range, each pair as [`check_pairs`] checks it (without `max_len`). Returns the chosen
/// sources and targets.
fn check_indices<'a>(pairs: &'a [EncodedPair], indices: &[usize]) -> Result<(Rows<'a>, Rows<'a>)> {
    if indices.is_empty() {
        return Err(invalid("no pair to batch (empty index list)"));
    }
    let (mut src, mut tgt) = (Vec::with_capacity(indices.len()), Vec::with_capacity(indices.len()));
    for &i in indices {
        let pair = pairs.get(i).ok_or_else(|| invalid(format!("pair index {i} is out of range for {} pairs", pairs.len())))?;
        check_pair(i, pair, None)?;
        src.push(pair.0.as_slice());
        tgt.push(pair.1.as_slice());
    }
    Ok((src, tgt))
}

/// Source and target ids of a few sentence pairs, padded with `<pad>` (0) to the longest of
/// the batch.
#[derive(Clone, Debug)]
pub struct TranslationBatch {
    /// Source ids `(N, S)`, u32, padded with 0.
    pub src: Tensor,
    /// Target ids `(N, T)`, u32, `<sos>` ... `<eos>` then 0s.
    pub tgt: Tensor,
    /// The length of every source, padding left out.
    pub src_lengths: Vec<usize>,
    /// The length of every target, `<sos>` and `<eos>` included.
    pub tgt_lengths: Vec<usize>,
    /// The index of every pair in the list it was batched from.
    pub indices: Vec<usize>,
}

impl TranslationBatch {
    /// Pads the pairs at `indices` of `pairs` into one batch, in the order of `indices`.
    /// The pairs are checked as [`check_pairs`] checks them (without `max_len`).
    #[errors_as("TranslationBatch::new")]
    pub fn new(pairs: &[EncodedPair], indices: &[usize]) -> Result<Self> {
        let (src_rows, tgt_rows) = check_indices(pairs, indices)?;
        let src_width = check_rows(&src_rows)?;
        let tgt_width = check_rows(&tgt_rows)?;
        let src_lengths: Vec<usize> = src_rows.iter().map(|s| s.len()).collect();
        let tgt_lengths: Vec<usize> = tgt_rows.iter().map(|t| t.len()).collect();
        let src = padded(&src_rows, src_width)?;
        let tgt = padded(&tgt_rows, tgt_width)?;
        Ok(TranslationBatch { src, tgt, src_lengths, tgt_lengths, indices: indices.to_vec() })
    }

    /// Pads every pair of `pairs`, in order, into one batch.
    pub fn from_pairs(pairs: &[EncodedPair]) -> Result<Self> {
        Self::new(pairs, &(0..pairs.len()).collect::<Vec<_>>())
    }

    /// Number of sentence pairs `N`.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Never true: a batch holds at least one pair.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The decoder's input for teacher forcing: the target without its last step.
    ///
    /// # Shapes
    /// - returns `(N, T - 1)`, u32, starting with `<sos>`
    pub fn tgt_input(&self) -> Result<Tensor> {
        tgt_input(&self.tgt)
    }

    /// What the decoder should predict: the target without `<sos>`.
    ///
    /// # Shapes
    /// - returns `(N, T - 1)`, u32, ending with `<eos>` then `<pad>`s
    pub fn tgt_output(&self) -> Result<Tensor> {
        tgt_output(&self.tgt)
    }

    /// The rows `range` of the batch, as a batch of their own (padding kept as wide as the whole
    /// batch's). An empty or out-of-range `range` is an error naming the batch size.
    pub fn rows(&self, range: std::ops::Range<usize>) -> Result<Self> {
        if range.is_empty() || range.end > self.len() {
            return Err(error("TranslationBatch::rows", format!("rows {range:?} of a batch of {} pairs", self.len())));
        }
        let n = range.len();
        Ok(TranslationBatch {
            src: self.src.narrow(0, range.start, n)?,
            tgt: self.tgt.narrow(0, range.start, n)?,
            src_lengths: self.src_lengths[range.clone()].to_vec(),
            tgt_lengths: self.tgt_lengths[range.clone()].to_vec(),
            indices: self.indices[range].to_vec(),
        })
    }

    /// Number of target tokens the decoder predicts (non-padding positions of
    /// [`TranslationBatch::tgt_output`]): what tokens per second count.
    pub fn target_tokens(&self) -> usize {
        self.tgt_lengths.iter().map(|l| l - 1).sum()
    }

    /// The same batch with its tensors on `device`.
    pub fn to_device(&self, device: &Device) -> Result<Self> {
        Ok(TranslationBatch { src: self.src.to_device(device)?, tgt: self.tgt.to_device(device)?, ..self.clone() })
    }
}

/// Rows of ids padded at their ends with [`PAD_ID`] to the longest, as one tensor; `module` names
/// the caller in the error for a batch too large to make.
///
/// # Shapes
/// - `rows`: `N` rows of ids; returns `(N, longest)` `u32` on the CPU
pub fn pad_rows<R: AsRef<[u32]>>(module: &str, rows: &[R]) -> Result<Tensor> {
    let width = check_rows(rows).within(module)?;
    padded(rows, width)
}

/// Checks that rows of ids padded to the longest make a tensor small enough to make; returns the
/// longest row's length.
fn check_rows<R: AsRef<[u32]>>(rows: &[R]) -> Result<usize> {
    let width = rows.iter().map(|r| r.as_ref().len()).max().unwrap_or(0);
    check_size(&[rows.len(), width])?;
    Ok(width)
}

/// [`pad_rows`] on rows [`check_rows`] has checked, `width` their longest length.
fn padded<R: AsRef<[u32]>>(rows: &[R], width: usize) -> Result<Tensor> {
    let mut data = vec![PAD_ID; rows.len() * width];
    for (r, row) in rows.iter().enumerate() {
        data[r * width..r * width + row.as_ref().len()].copy_from_slice(row.as_ref());
    }
    Tensor::from_vec(data, (rows.len(), width), &Device::Cpu)
}

fn check_target(module: &str, tgt: &Tensor) -> Result<(usize, usize)> {
    let (n, t) = tgt.dims2().map_err(|_| shape_error(module, "target ids of shape (N, T)", tgt.dims()))?;
    if t < 2 {
        return Err(shape_error(module, "a target of at least 2 steps (<sos> ... <eos>)", tgt.dims()));
    }
    Ok((n, t))
}

/// The target without its last step: the decoder's input under teacher forcing.
///
/// # Shapes
/// - `tgt`: `(N, T)` with `T >= 2`
/// - returns `(N, T - 1)`
pub fn tgt_input(tgt: &Tensor) -> Result<Tensor> {
    let (_, t) = check_target("tgt_input", tgt)?;
    tgt.narrow(1, 0, t - 1)
}

/// The target without its first step (`<sos>`): what the decoder learns to predict.
///
/// # Shapes
/// - `tgt`: `(N, T)` with `T >= 2`
/// - returns `(N, T - 1)`
pub fn tgt_output(tgt: &Tensor) -> Result<Tensor> {
    let (_, t) = check_target("tgt_output", tgt)?;
    tgt.narrow(1, 1, t - 1)
}
