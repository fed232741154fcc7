//! `nn.LSTMCell`: one LSTM step, as the blog post's attention decoder takes one token at a time.

use super::errors_as;
use super::lstm::{LstmKind, lstm_cell};
use super::module::{Walk, Walker};
use super::rnn::{CellKind, RnnWeights};
use super::shape::{check_float, check_size, error, invalid, invalid_shape};
use candle_core::{Result, Tensor};

/// `nn.LSTMCell(input_size, hidden_size)`: parameters `weight_ih (4H, F)`, `weight_hh (4H, H)`,
/// `bias_ih (4H)` and `bias_hh (4H)`, drawn in that order uniformly in `±1/sqrt(H)` as PyTorch
/// draws them, with PyTorch's gate order `i, f, g, o`.
#[derive(Clone, Debug)]
pub struct LstmCell {
    pub input_size: usize,
    pub hidden_size: usize,
    pub weights: RnnWeights,
}

impl LstmCell {
    #[errors_as("LSTMCell")]
    pub fn new(input_size: usize, hidden_size: usize) -> Result<Self> {
        if input_size == 0 || hidden_size == 0 {
            return Err(invalid(format!("sizes must be positive, got input_size = {input_size}, hidden_size = {hidden_size}")));
        }
        check_size(&[LstmKind::GATES.saturating_mul(hidden_size), input_size.max(hidden_size)])?;
        Ok(LstmCell { input_size, hidden_size, weights: RnnWeights::new(LstmKind::GATES, input_size, hidden_size)? })
    }

    /// One step: the next hidden and cell states.
    ///
    /// # Shapes
    /// - `x`: `(N, F)` with `F = input_size` (`N = 0`, an empty batch, gives empty states)
    /// - `state`: optional `(h, c)`, each `(N, H)` (zeros when `None`)
    /// - returns `(h', c')`, each `(N, H)`
    #[errors_as("LSTMCell")]
    pub fn forward(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, Tensor)> {
        let n = self.check_step(x, state)?;
        let (h, c) = match state {
            Some((h, c)) => (h.clone(), c.clone()),
            None => {
                let zeros = Tensor::zeros((n, self.hidden_size), x.dtype(), x.device())?;
                (zeros.clone(), zeros)
            }
        };
        if n == 0 {
            return Ok((h, c)); // an empty batch: empty states, as in PyTorch
        }
        let gi = self.weights.add_input_bias(&x.matmul(&self.weights.weight_ih.t()?)?)?;
        self.step(&gi, &h, &c)
    }

    /// Checks the fields against the weights, an input `(N, input_size)` and a given state
    /// `(h, c)`, each `(N, H)`; returns `N`.
    fn check_step(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<usize> {
        // The sizes are public fields: checked against the weights they describe.
        if !self.weights.fits(LstmKind::GATES, self.input_size, self.hidden_size) {
            return Err(invalid(format!(
                "input_size = {} and hidden_size = {} do not describe its weights (the fields were changed)",
                self.input_size, self.hidden_size
            )));
        }
        check_float(x)?;
        let n = match x.dims() {
            &[n, f] if f == self.input_size => n,
            d => return Err(invalid_shape(format!("an input (N, {})", self.input_size), d)),
        };
        let want = [n, self.hidden_size];
        for (name, t) in state.iter().flat_map(|&(h, c)| [("h", h), ("c", c)]) {
            if t.dims() != want {
                return Err(invalid_shape(format!("a state `{name}` of shape {want:?}"), t.dims()));
            }
        }
        Ok(n)
    }

    /// [`lstm_cell`] from the input gates `gi`, an error in it reading as the cell's on one line.
    fn step(&self, gi: &Tensor, h: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
        lstm_cell(&self.weights, gi, h, c).map_err(|e| error("LSTMCell", e))
    }
}

impl Walk for LstmCell {
    /// A cell's tensors have no layer suffix: `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`.
    fn walk(&self, w: &mut Walker) {
        self.weights.walk_suffixed(w, "");
    }
}
