//! `nn.LSTMCell`: one LSTM step, as the blog post's attention decoder takes one token at a time.

use super::lstm::{LstmKind, lstm_cell};
use super::module::{Walk, Walker};
use super::rnn::{CellKind, RnnWeights};
use super::shape::{Within, check_float, check_size, error, shape_error};
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
    pub fn new(input_size: usize, hidden_size: usize) -> Result<Self> {
        let module = "LSTMCell";
        if input_size == 0 || hidden_size == 0 {
            return Err(error(module, format!("sizes must be positive, got input_size = {input_size}, hidden_size = {hidden_size}")));
        }
        check_size(&[LstmKind::GATES.saturating_mul(hidden_size), input_size.max(hidden_size)]).within(module)?;
        Ok(LstmCell { input_size, hidden_size, weights: RnnWeights::new(LstmKind::GATES, input_size, hidden_size)? })
    }

    /// One step: the next hidden and cell states.
    ///
    /// # Shapes
    /// - `x`: `(N, F)` with `F = input_size` (`N = 0`, an empty batch, gives empty states)
    /// - `state`: optional `(h, c)`, each `(N, H)` (zeros when `None`)
    /// - returns `(h', c')`, each `(N, H)`
    pub fn forward(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, Tensor)> {
        let module = "LSTMCell";
        // The sizes are public fields: checked against the weights they describe.
        if !self.weights.fits(LstmKind::GATES, self.input_size, self.hidden_size) {
            return Err(error(
                module,
                format!(
                    "input_size = {} and hidden_size = {} do not describe its weights (the fields were changed)",
                    self.input_size, self.hidden_size
                ),
            ));
        }
        check_float(x).within(module)?;
        let n = match x.dims() {
            &[n, f] if f == self.input_size => n,
            d => return Err(shape_error(module, format!("an input (N, {})", self.input_size), d)),
        };
        let want = [n, self.hidden_size];
        let (h, c) = match state {
            Some((h, c)) => {
                for (name, t) in [("h", h), ("c", c)] {
                    if t.dims() != want {
                        return Err(shape_error(module, format!("a state `{name}` of shape {want:?}"), t.dims()));
                    }
                }
                (h.clone(), c.clone())
            }
            None => {
                let zeros = Tensor::zeros((n, self.hidden_size), x.dtype(), x.device())?;
                (zeros.clone(), zeros)
            }
        };
        if n == 0 {
            return Ok((h, c)); // an empty batch: empty states, as in PyTorch
        }
        let gi = self.weights.add_input_bias(&x.matmul(&self.weights.weight_ih.t()?)?)?;
        lstm_cell(&self.weights, &gi, &h, &c).map_err(|e| error(module, e))
    }
}

impl Walk for LstmCell {
    /// A cell's tensors have no layer suffix: `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`.
    fn walk(&self, w: &mut Walker) {
        self.weights.walk_suffixed(w, "");
    }
}
