//! `nn.LSTM`, batch-first, any number of layers, optionally bidirectional.

use super::fused::cells::lstm_step;
use super::rnn::{CellKind, Recurrent, RnnWeights};
use candle_core::{Result, Tensor};

/// The LSTM cell kind (gates `i, f, g, o`).
#[derive(Clone, Copy, Debug)]
pub struct LstmKind;

impl CellKind for LstmKind {
    const GATES: usize = 4;
    const NAME: &'static str = "LSTM";
}

/// `nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional)`.
pub type Lstm = Recurrent<LstmKind>;

/// One LSTM step in PyTorch's arithmetic: gates `i, f, g, o`; returns `(h', c')`.
/// The gate arithmetic is one fused graph node from hidden size 8 on ([`super::fused::cells`]).
pub fn lstm_cell(w: &RnnWeights, gi: &Tensor, h: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    lstm_step(gi, &w.hidden_gates(h)?, c)
}

impl Recurrent<LstmKind> {
    /// Runs every layer and direction over the sequence.
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)` with `F = input_size`, `L > 0`; `N = 0` (an empty batch) gives empty
    ///   outputs, as in PyTorch
    /// - `state`: optional `(h0, c0)`, each `(layers*dirs, N, H)` (zeros when `None`)
    /// - returns the last layer's outputs `(N, L, dirs*H)` and the final `(h_n, c_n)`, each
    ///   `(layers*dirs, N, H)`
    pub fn forward(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, (Tensor, Tensor))> {
        let n = self.check_input_any_batch(x)?;
        let h0 = self.initial_state(x, n, state.map(|s| s.0))?;
        let c0 = self.initial_state(x, n, state.map(|s| s.1))?;
        if n == 0 {
            let out = Tensor::zeros((0, x.dim(1)?, self.directions() * self.hidden_size), x.dtype(), x.device())?;
            return Ok((out, (h0, c0)));
        }
        let initial = (0..h0.dim(0)?).map(|k| Ok((h0.get(k)?, c0.get(k)?))).collect::<Result<Vec<_>>>()?;
        let step = |w: &RnnWeights, gi: &Tensor, (h, c): &(Tensor, Tensor)| lstm_cell(w, gi, h, c);
        let (out, finals) = self.run(x, initial, step, |(h, _)| h.clone())?;
        let (hs, cs): (Vec<Tensor>, Vec<Tensor>) = finals.into_iter().unzip();
        Ok((out, (Tensor::stack(&hs, 0)?, Tensor::stack(&cs, 0)?)))
    }
}
