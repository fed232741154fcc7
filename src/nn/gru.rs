//! `nn.GRU`, batch-first, any number of layers, optionally bidirectional.

use super::errors_as;
use super::fused::gru_sequence::gru_sequence;
use super::ops::sigmoid;
use super::packed::{keep_mask, reverse_within};
use super::rnn::{CellKind, Recurrent, RnnWeights, by_steps};
use candle_core::{Result, Tensor};

/// The GRU cell kind (gates `r, z, n`).
#[derive(Clone, Copy, Debug)]
pub struct GruKind;

impl CellKind for GruKind {
    const GATES: usize = 3;
    const NAME: &'static str = "GRU";
}

/// `nn.GRU(input_size, hidden_size, num_layers, batch_first=True, bidirectional)`.
pub type Gru = Recurrent<GruKind>;

/// One GRU step in PyTorch's arithmetic: gates `r, z, n`, `h' = (h - n) * z + n`.
/// `gi`: `(N, 3H)` input gates, `h`: `(N, H)`. From hidden size 8 on, a layer runs each
/// direction as one node instead ([`super::fused::gru_sequence`]).
pub fn gru_cell(w: &RnnWeights, gi: &Tensor, h: &Tensor) -> Result<Tensor> {
    let hd = h.dim(1)?;
    let gh = w.hidden_gates(h)?;
    let r = sigmoid(&(gi.narrow(1, 0, hd)? + gh.narrow(1, 0, hd)?)?)?;
    let z = sigmoid(&(gi.narrow(1, hd, hd)? + gh.narrow(1, hd, hd)?)?)?;
    let n = (gi.narrow(1, 2 * hd, hd)? + (gh.narrow(1, 2 * hd, hd)? * r)?)?.tanh()?;
    ((h - &n)? * z)? + n
}

impl Recurrent<GruKind> {
    /// Runs every layer and direction over the sequence.
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)` with `F = input_size`, `L > 0`; `N = 0` (an empty batch) gives empty
    ///   outputs, as in PyTorch
    /// - `h0`: optional initial state `(layers*dirs, N, H)` (zeros when `None`)
    /// - returns the last layer's outputs `(N, L, dirs*H)` and the final states `(layers*dirs, N, H)`
    #[errors_as("GRU")]
    pub fn forward(&self, x: &Tensor, h0: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let n = self.check_input_any_batch(x)?;
        self.check_state(n, h0)?;
        let h0 = self.initial_state(x, n, h0)?;
        if n == 0 {
            let out = Tensor::zeros((0, x.dim(1)?, self.directions() * self.hidden_size), x.dtype(), x.device())?;
            return Ok((out, h0));
        }
        let initial = (0..h0.dim(0)?).map(|k| h0.get(k)).collect::<Result<Vec<_>>>()?;
        // each direction one graph node where the kernel wing has one, else step by step
        let (out, finals) =
            self.run_directions(x, initial, |w, gi, h0| match gru_sequence(gi, &w.weight_hh.tensor(), &w.bias_hh.tensor(), &h0, None)? {
                Some(done) => Ok(done),
                None => by_steps(w, gi, h0, &gru_cell, &Tensor::clone),
            })?;
        Ok((out, Tensor::stack(&finals, 0)?))
    }

    /// Runs every layer and direction over a padded batch whose sequence `i` has `lengths[i]`
    /// real steps (in any order): what PyTorch gets from `pack_padded_sequence`, the GRU and
    /// `pad_packed_sequence`. Past its end a sequence's state is carried unchanged and its
    /// outputs are zero; the backward direction reads each sequence reversed within its length.
    /// The fused layers (hidden size 8 and more, float32 on the CPU) do not compute the padded
    /// steps at all; the step-by-step ones compute them and keep the old state.
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)`, padded after each sequence's end; `lengths`: `N` values in `1..=L`;
    ///   `N = 0` (an empty batch, no lengths) gives empty outputs, as [`Recurrent::forward`] does
    /// - `h0`: optional initial state `(layers*dirs, N, H)` (zeros when `None`)
    /// - returns the outputs `(N, L, dirs*H)`, zero at padded steps, and the final states
    ///   `(layers*dirs, N, H)`, taken at each sequence's last real step
    #[errors_as("GRU (padded batch)")]
    pub fn forward_padded(&self, x: &Tensor, lengths: &[usize], h0: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let n = self.check_padded(x, true, lengths, &[h0])?;
        let h0 = self.initial_state(x, n, h0)?;
        if n == 0 {
            let out = Tensor::zeros((0, x.dim(1)?, self.directions() * self.hidden_size), x.dtype(), x.device())?;
            return Ok((out, h0));
        }
        let initial = (0..h0.dim(0)?).map(|k| h0.get(k)).collect::<Result<Vec<_>>>()?;
        let reverse = |t: &Tensor| reverse_within(t, lengths);
        let keep = keep_mask(lengths, x.dim(1)?, x.dtype(), x.device())?;
        let (out, finals) = self.run_directions_with(x, initial, reverse, |w, gi, h0| {
            match gru_sequence(gi, &w.weight_hh.tensor(), &w.bias_hh.tensor(), &h0, Some(lengths))? {
                Some(done) => Ok(done),
                None => padded_steps(w, gi, &keep, h0),
            }
        })?;
        Ok((out, Tensor::stack(&finals, 0)?))
    }
}

/// One direction step by step over a padded batch: [`gru_cell`]'s state taken where `keep` `(N, L)`
/// is 1, carried where it is 0; the outputs are the new states times `keep`.
fn padded_steps(w: &RnnWeights, gi: &Tensor, keep: &Tensor, h0: Tensor) -> Result<(Tensor, Tensor)> {
    let mut h = h0;
    let mut outs = Vec::with_capacity(gi.dim(1)?);
    for t in 0..gi.dim(1)? {
        let k = keep.narrow(1, t, 1)?; // (N, 1)
        let h_new = gru_cell(w, &gi.narrow(1, t, 1)?.squeeze(1)?, &h)?;
        h = (h_new.broadcast_mul(&k)? + h.broadcast_mul(&k.affine(-1.0, 1.0)?)?)?;
        outs.push(h_new.broadcast_mul(&k)?);
    }
    Ok((Tensor::stack(&outs, 1)?, h))
}
