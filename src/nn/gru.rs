//! `nn.GRU`, batch-first, any number of layers, optionally bidirectional.

use super::cells::fusable;
use super::gru_sequence::gru_sequence;
use super::ops::sigmoid;
use super::rnn::{CellKind, Recurrent, RnnWeights};
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
/// direction as one node instead ([`super::gru_sequence`]).
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
    pub fn forward(&self, x: &Tensor, h0: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let n = self.check_input_any_batch(x)?;
        let h0 = self.initial_state(x, n, h0)?;
        if n == 0 {
            let out = Tensor::zeros((0, x.dim(1)?, self.directions() * self.hidden_size), x.dtype(), x.device())?;
            return Ok((out, h0));
        }
        let initial = (0..h0.dim(0)?).map(|k| h0.get(k)).collect::<Result<Vec<_>>>()?;
        let (out, finals) = if fusable(self.hidden_size, &[x]) {
            // each direction one graph node, back-propagating through time inside
            self.run_directions(x, initial, |w, gi, h0| gru_sequence(gi, &w.weight_hh.tensor(), &w.bias_hh.tensor(), &h0))?
        } else {
            self.run(x, initial, gru_cell, Tensor::clone)?
        };
        Ok((out, Tensor::stack(&finals, 0)?))
    }
}
