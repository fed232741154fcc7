//! `nn.LSTM`, batch-first, any number of layers, optionally bidirectional.

use super::errors_as;
use super::fused::cells::lstm_step_node;
use super::ops::sigmoid;
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
/// From hidden size 8 on (float32 on the CPU) the gate arithmetic is one graph node of the kernel
/// wing, with the same arithmetic.
pub fn lstm_cell(w: &RnnWeights, gi: &Tensor, h: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    let gh = w.hidden_gates(h)?;
    if let Some(hc) = lstm_step_node(gi, &gh, c)? {
        return Ok(hc);
    }
    let hd = c.dim(1)?;
    let gates = (gi + gh)?;
    let i = sigmoid(&gates.narrow(1, 0, hd)?)?;
    let f = sigmoid(&gates.narrow(1, hd, hd)?)?;
    let g = gates.narrow(1, 2 * hd, hd)?.tanh()?;
    let o = sigmoid(&gates.narrow(1, 3 * hd, hd)?)?;
    let c = ((f * c)? + (i * g)?)?;
    let h = (o * c.tanh()?)?;
    Ok((h, c))
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
    #[errors_as("LSTM")]
    pub fn forward(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, (Tensor, Tensor))> {
        let n = self.check_input_any_batch(x)?;
        self.check_state(n, state.map(|s| s.0))?;
        self.check_state(n, state.map(|s| s.1))?;
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
