//! An LSTM over padded batches of sequences of different lengths: what PyTorch gets from
//! `pack_padded_sequence`, the LSTM and `pad_packed_sequence`, without packing.
//!
//! Each sequence advances only while `t < length`: past its end its state is carried unchanged
//! and its outputs are zero. The backward direction reads each sequence reversed within its own
//! length, so it starts at that sequence's last real token, not at the padding. The final states
//! are therefore those at each sequence's true length.

use super::errors_as;
use super::fused::lstm_sequence::lstm_sequence;
use super::lstm::{Lstm, lstm_cell};
use super::rnn::{CellKind, Recurrent, RnnWeights};
use super::shape::{Within, error, invalid};
use candle_core::{DType, Device, Result, Tensor};

const MODULE: &str = "LSTM (padded batch)";

/// Checks `lengths` against a batch of `n` sequences padded to `l` steps.
pub fn check_lengths(lengths: &[usize], n: usize, l: usize) -> Result<()> {
    if lengths.len() != n {
        return Err(invalid(format!("{} lengths for a batch of {n} sequences", lengths.len())));
    }
    if let Some(k) = lengths.iter().position(|&len| len == 0 || len > l) {
        let why = if lengths[k] == 0 {
            "is 0 (every sequence needs a token)".to_string()
        } else {
            format!("is longer than the padded batch's {l} steps")
        };
        return Err(invalid(format!("length {} of sequence {k} {why}", lengths[k])));
    }
    Ok(())
}

/// The time index each row reads when reversed within its own length: `len - 1 - t` for
/// `t < len`, `t` itself in the padding.
pub fn reversed_positions(lengths: &[usize], l: usize) -> Vec<u32> {
    lengths.iter().flat_map(|&len| (0..l).map(move |t| if t < len { (len - 1 - t) as u32 } else { t as u32 })).collect()
}

/// `x (N, L, F)` with each row's first `lengths[i]` steps reversed, the padding left in place.
pub fn reverse_within(x: &Tensor, lengths: &[usize]) -> Result<Tensor> {
    let (n, l, f) = x.dims3()?;
    let index = Tensor::from_vec(reversed_positions(lengths, l), (n, l, 1), x.device())?.broadcast_as((n, l, f))?.contiguous()?;
    x.gather(&index, 1)
}

impl<C: CellKind> Recurrent<C> {
    /// Checks a padded batch as its pass reads it: the input as the layer's forward checks it
    /// (an empty batch allowed when `any_batch`), the lengths, and the given initial states. The
    /// layer's own checks keep its name beneath the pass's (`GRU (padded batch): GRU: ...`).
    /// Returns `N`.
    pub(crate) fn check_padded(&self, x: &Tensor, any_batch: bool, lengths: &[usize], states: &[Option<&Tensor>]) -> Result<usize> {
        let input = if any_batch { self.check_input_any_batch(x) } else { self.check_input(x) };
        let n = input.within(C::NAME).map_err(invalid)?;
        check_lengths(lengths, n, x.dim(1)?)?;
        for &given in states {
            self.check_state(n, given).within(C::NAME).map_err(invalid)?;
        }
        Ok(n)
    }
}

/// `1` where `t < lengths[i]`, else `0`: `(N, L)` in `dtype`.
pub(crate) fn keep_mask(lengths: &[usize], l: usize, dtype: DType, device: &Device) -> Result<Tensor> {
    let keep: Vec<f32> = lengths.iter().flat_map(|&len| (0..l).map(move |t| if t < len { 1.0 } else { 0.0 })).collect();
    Tensor::from_vec(keep, (lengths.len(), l), device)?.to_dtype(dtype)
}

/// One direction of one layer over a padded batch read front to back: the kernel wing's single
/// node where it applies, otherwise step by step, each step's state kept where `keep` is 1.
fn run_direction(
    w: &RnnWeights,
    x: &Tensor,
    lengths: &[usize],
    keep: &Tensor,
    h0: Tensor,
    c0: Tensor,
) -> Result<(Tensor, (Tensor, Tensor))> {
    let l = x.dim(1)?;
    let gi = w.input_gates(x)?;
    if let Some(done) = lstm_sequence(&gi, &w.weight_hh.tensor(), &w.bias_hh.tensor(), Some(lengths), &h0, &c0)? {
        return Ok(done);
    }
    let (mut h, mut c) = (h0, c0);
    let mut outs = Vec::with_capacity(l);
    for t in 0..l {
        let k = keep.narrow(1, t, 1)?; // (N, 1)
        let (h_new, c_new) = lstm_cell(w, &gi.narrow(1, t, 1)?.squeeze(1)?, &h, &c)?;
        let blend = |new: &Tensor, old: &Tensor| -> Result<Tensor> { new.broadcast_mul(&k)? + old.broadcast_mul(&k.affine(-1.0, 1.0)?)? };
        h = blend(&h_new, &h)?;
        c = blend(&c_new, &c)?;
        outs.push(h_new.broadcast_mul(&k)?);
    }
    Ok((Tensor::stack(&outs, 1)?, (h, c)))
}

impl Lstm {
    /// Runs every layer and direction over a padded batch whose sequence `i` has `lengths[i]`
    /// real steps (in any order: the batch need not be sorted by length).
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)`, padded after each sequence's end; `lengths`: `N` values in `1..=L`
    /// - `state`: optional `(h0, c0)`, each `(layers*dirs, N, H)` (zeros when `None`)
    /// - returns the outputs `(N, L, dirs*H)`, zero at padded steps, and the final `(h_n, c_n)`,
    ///   each `(layers*dirs, N, H)`, taken at each sequence's last real step
    #[errors_as("LSTM (padded batch)")]
    pub fn forward_padded(&self, x: &Tensor, lengths: &[usize], state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, (Tensor, Tensor))> {
        let n = self.check_padded(x, false, lengths, &[state.map(|s| s.0), state.map(|s| s.1)])?;
        let h0 = self.initial_state(x, n, state.map(|s| s.0))?;
        let c0 = self.initial_state(x, n, state.map(|s| s.1))?;
        let keep = keep_mask(lengths, x.dim(1)?, x.dtype(), x.device())?;
        self.padded_layers(x, lengths, &keep, &h0, &c0)
    }

    /// The layers and directions of [`Lstm::forward_padded`] from the initial states `h0`, `c0`;
    /// an error in them reads as the padded pass's on one line.
    fn padded_layers(&self, x: &Tensor, lengths: &[usize], keep: &Tensor, h0: &Tensor, c0: &Tensor) -> Result<(Tensor, (Tensor, Tensor))> {
        let run = || -> Result<(Tensor, (Tensor, Tensor))> {
            let dirs = self.directions();
            let mut input = x.clone();
            let (mut hs, mut cs) = (vec![], vec![]);
            for (layer, weights) in self.weights.chunks(dirs).enumerate() {
                let mut outs = vec![];
                for (dir, w) in weights.iter().enumerate() {
                    let k = layer * dirs + dir;
                    let seq = if dir == 1 { reverse_within(&input, lengths)? } else { input.clone() };
                    let (mut out, (h, c)) = run_direction(w, &seq, lengths, keep, h0.get(k)?, c0.get(k)?)?;
                    if dir == 1 {
                        out = reverse_within(&out, lengths)?;
                    }
                    outs.push(out);
                    hs.push(h);
                    cs.push(c);
                }
                input = Tensor::cat(&outs, 2)?;
            }
            Ok((input, (Tensor::stack(&hs, 0)?, Tensor::stack(&cs, 0)?)))
        };
        run().map_err(|e| error(MODULE, e))
    }
}
