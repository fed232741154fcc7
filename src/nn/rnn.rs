//! The plumbing GRU and LSTM layers share: [`Recurrent`] holds the sizes and the per-direction
//! weights (drawn in PyTorch's order, named as PyTorch names them), checks inputs and states, and
//! runs any cell over layers and directions. [`Gru`](super::Gru) and [`Lstm`](super::Lstm) add
//! their cell and their state.

use super::fused::cells::FUSED_CELL_MIN_HIDDEN;
use super::fused::kernels::add_bias;
use super::module::{Walk, Walker};
use super::ops::reverse_time;
use super::param::Param;
use super::shape::{Within, check_float, check_size, error, invalid, invalid_shape};
use crate::repro::uniform_init;
use candle_core::{Result, Tensor, bail};
use std::marker::PhantomData;

/// One direction of one layer of a recurrent network: its four parameters.
#[derive(Clone, Debug)]
pub struct RnnWeights {
    pub weight_ih: Param,
    pub weight_hh: Param,
    pub bias_ih: Param,
    pub bias_hh: Param,
}

impl RnnWeights {
    /// Whether these are the weights of a cell with `gates` gate blocks from `input_size` inputs
    /// to `hidden_size` units: what a layer's public size fields must still describe.
    pub(crate) fn fits(&self, gates: usize, input_size: usize, hidden_size: usize) -> bool {
        let rows = gates.saturating_mul(hidden_size);
        self.weight_ih.dims() == [rows, input_size] && self.weight_hh.dims() == [rows, hidden_size]
    }

    pub(crate) fn new(gates: usize, input_size: usize, hidden_size: usize) -> Result<Self> {
        let k = 1.0 / (hidden_size as f64).sqrt();
        Ok(RnnWeights {
            weight_ih: Param::new(&uniform_init((gates * hidden_size, input_size), k)?)?,
            weight_hh: Param::new(&uniform_init((gates * hidden_size, hidden_size), k)?)?,
            bias_ih: Param::new(&uniform_init(gates * hidden_size, k)?)?,
            bias_hh: Param::new(&uniform_init(gates * hidden_size, k)?)?,
        })
    }

    /// Names the four tensors `weight_ih{suffix}`, ..., `bias_hh{suffix}` (`suffix`: `_l0`,
    /// `_l1_reverse`, or empty for a cell).
    pub(crate) fn walk_suffixed(&self, w: &mut Walker, suffix: &str) {
        w.param(&format!("weight_ih{suffix}"), &self.weight_ih);
        w.param(&format!("weight_hh{suffix}"), &self.weight_hh);
        w.param(&format!("bias_ih{suffix}"), &self.bias_ih);
        w.param(&format!("bias_hh{suffix}"), &self.bias_hh);
    }

    /// `x W_ih^T + b_ih` for every time step at once: `(N, L, F) -> (N, L, G*H)`.
    pub(crate) fn input_gates(&self, x: &Tensor) -> Result<Tensor> {
        let (n, l, f) = x.dims3()?;
        let g = self.weight_ih.dims()[0];
        let y = x.reshape((n * l, f))?.matmul(&self.weight_ih.t()?)?;
        self.add_input_bias(&y)?.reshape((n, l, g))
    }

    /// `y + b_ih` for input gates `y (M, G*H)`.
    pub(crate) fn add_input_bias(&self, y: &Tensor) -> Result<Tensor> {
        self.with_bias(y, &self.bias_ih)
    }

    /// `y + b` over gates `y (M, G*H)`: one add-bias graph node where the steps are fused too
    /// (hidden sizes from [`FUSED_CELL_MIN_HIDDEN`] on), candle's broadcast add below.
    fn with_bias(&self, y: &Tensor, b: &Param) -> Result<Tensor> {
        if self.weight_hh.dims().get(1).is_some_and(|&h| h >= FUSED_CELL_MIN_HIDDEN) {
            add_bias(y, &b.tensor())
        } else {
            y.broadcast_add(&b.tensor())
        }
    }

    /// `h W_hh^T + b_hh`: `(N, H) -> (N, G*H)`.
    pub(crate) fn hidden_gates(&self, h: &Tensor) -> Result<Tensor> {
        self.with_bias(&h.matmul(&self.weight_hh.t()?)?, &self.bias_hh)
    }
}

/// The suffixes PyTorch gives each layer and direction: `l0`, `l0_reverse`, `l1`, ...
fn layer_suffixes(num_layers: usize, bidirectional: bool) -> Vec<String> {
    let mut s = vec![];
    for l in 0..num_layers {
        s.push(format!("l{l}"));
        if bidirectional {
            s.push(format!("l{l}_reverse"));
        }
    }
    s
}

/// Runs a stack of recurrent layers over a batch-first `x`: for each layer and direction (the
/// reverse one reads the sequence as `reverse` turns it, and its outputs are turned back), `direction` runs the layer's weights over the
/// sequence's input gates from an initial state and returns its outputs `(N, L, H)` and final
/// state. Returns the last layer's outputs `(N, L, dirs*H)` and the final state of every layer
/// and direction.
fn run_stack<S>(
    x: &Tensor,
    weights: &[RnnWeights],
    dirs: usize,
    initial: Vec<S>,
    reverse: impl Fn(&Tensor) -> Result<Tensor>,
    direction: impl Fn(&RnnWeights, &Tensor, S) -> Result<(Tensor, S)>,
) -> Result<(Tensor, Vec<S>)> {
    if initial.len() < weights.len() {
        bail!("recurrent layer: missing an initial state")
    }
    let mut input = x.clone();
    let mut finals = Vec::with_capacity(weights.len());
    let mut initial = initial.into_iter();
    for layer in weights.chunks(dirs) {
        let mut outs = vec![];
        for ((dir, w), state) in layer.iter().enumerate().zip(initial.by_ref()) {
            let seq = if dir == 1 { reverse(&input)? } else { input.clone() };
            let (mut out, state) = direction(w, &w.input_gates(&seq)?, state)?;
            if dir == 1 {
                out = reverse(&out)?;
            }
            finals.push(state);
            outs.push(out);
        }
        input = Tensor::cat(&outs, 2)?;
    }
    Ok((input, finals))
}

/// One direction step by step: `step` advances the state over the input gates `gi (N, L, G*H)`
/// one time step at a time and `output` reads the hidden state out of it.
pub(crate) fn by_steps<S>(
    w: &RnnWeights,
    gi: &Tensor,
    mut state: S,
    step: &impl Fn(&RnnWeights, &Tensor, &S) -> Result<S>,
    output: &impl Fn(&S) -> Tensor,
) -> Result<(Tensor, S)> {
    let l = gi.dim(1)?;
    let mut states = Vec::with_capacity(l);
    for t in 0..l {
        state = step(w, &gi.narrow(1, t, 1)?.squeeze(1)?, &state)?;
        states.push(output(&state));
    }
    Ok((Tensor::stack(&states, 1)?, state))
}

/// A kind of recurrent cell: how many gate blocks its weights hold and its name in errors.
pub trait CellKind: Clone + std::fmt::Debug {
    /// 3 for a GRU (`r, z, n`), 4 for an LSTM (`i, f, g, o`).
    const GATES: usize;
    /// The layer's name in error messages.
    const NAME: &'static str;
}

/// A stack of recurrent layers, batch-first: `nn.GRU`/`nn.LSTM(input_size, hidden_size,
/// num_layers, batch_first=True, bidirectional)`. Use it as [`Gru`](super::Gru) or
/// [`Lstm`](super::Lstm).
#[derive(Clone, Debug)]
pub struct Recurrent<C: CellKind> {
    pub input_size: usize,
    pub hidden_size: usize,
    pub num_layers: usize,
    pub bidirectional: bool,
    /// One entry per layer and direction, in PyTorch's order.
    pub weights: Vec<RnnWeights>,
    kind: PhantomData<C>,
}

impl<C: CellKind> Recurrent<C> {
    /// One layer, one direction (`nn.GRU(n, h, batch_first=True)`).
    pub fn new(input_size: usize, hidden_size: usize) -> Result<Self> {
        Self::with_layers(input_size, hidden_size, 1, false)
    }

    /// Any number of layers, optionally bidirectional. Draws every parameter uniformly in
    /// `±1/sqrt(hidden_size)`, layer by layer and direction by direction, as PyTorch does.
    pub fn with_layers(input_size: usize, hidden_size: usize, num_layers: usize, bidirectional: bool) -> Result<Self> {
        Self::check_sizes(input_size, hidden_size, num_layers, bidirectional).within(C::NAME)?;
        let dirs = if bidirectional { 2 } else { 1 };
        let mut weights = vec![];
        for l in 0..num_layers {
            let inp = if l == 0 { input_size } else { hidden_size * dirs };
            for _ in 0..dirs {
                weights.push(RnnWeights::new(C::GATES, inp, hidden_size)?);
            }
        }
        Ok(Recurrent { input_size, hidden_size, num_layers, bidirectional, weights, kind: PhantomData })
    }

    /// Checks the sizes of a new stack: positive, and its tensors not too large to make.
    fn check_sizes(input_size: usize, hidden_size: usize, num_layers: usize, bidirectional: bool) -> Result<()> {
        if input_size == 0 || hidden_size == 0 || num_layers == 0 {
            return Err(invalid(format!(
                "sizes must be positive, got input_size = {input_size}, hidden_size = {hidden_size}, num_layers = {num_layers}"
            )));
        }
        let dirs = if bidirectional { 2 } else { 1 };
        let rows = C::GATES.saturating_mul(hidden_size);
        check_size(&[rows, input_size.max(hidden_size.saturating_mul(dirs))])?;
        check_size(&[num_layers, dirs, rows])?;
        Ok(())
    }

    /// 2 when bidirectional, else 1.
    pub fn directions(&self) -> usize {
        if self.bidirectional { 2 } else { 1 }
    }

    /// The sizes are public fields: checks them against the weights they describe (a size set to
    /// anything else would reach the kernels, or allocate a state of any size).
    fn check_fields(&self) -> Result<()> {
        let (dirs, h) = (self.directions(), self.hidden_size);
        let fits = self.weights.len() == self.num_layers.saturating_mul(dirs)
            && self
                .weights
                .iter()
                .enumerate()
                .all(|(k, w)| w.fits(C::GATES, if k < dirs { self.input_size } else { h.saturating_mul(dirs) }, h));
        if fits {
            return Ok(());
        }
        Err(invalid(format!(
            "input_size = {}, hidden_size = {h}, num_layers = {}, bidirectional = {} do not describe its {} weight blocks (the fields were changed)",
            self.input_size,
            self.num_layers,
            self.bidirectional,
            self.weights.len()
        )))
    }

    /// The weights are f32: another float dtype is named here rather than in candle's matmul.
    fn check_dtype(&self, x: &Tensor) -> Result<()> {
        self.check_fields()?;
        check_float(x)?;
        if x.dtype() != candle_core::DType::F32 {
            return Err(invalid(format!(
                "the input is {:?} and the weights are F32: convert the input with .to_dtype(DType::F32)",
                x.dtype()
            )));
        }
        Ok(())
    }

    /// Checks a batch-first input `(N, L, input_size)` with `N, L > 0`; returns `N`.
    pub(crate) fn check_input(&self, x: &Tensor) -> Result<usize> {
        self.check_dtype(x)?;
        match x.dims() {
            &[n, l, f] if f == self.input_size && l > 0 && n > 0 => Ok(n),
            d => Err(invalid_shape(format!("a batch-first input (N, L, {}) with N, L > 0", self.input_size), d)),
        }
    }

    /// Checks a batch-first input `(N, L, input_size)` with `L > 0`, an empty batch (`N = 0`)
    /// included; returns `N`.
    pub(crate) fn check_input_any_batch(&self, x: &Tensor) -> Result<usize> {
        self.check_dtype(x)?;
        match x.dims() {
            &[n, l, f] if f == self.input_size && l > 0 => Ok(n),
            d => Err(invalid_shape(format!("a batch-first input (N, L, {}) with L > 0", self.input_size), d)),
        }
    }

    /// The shape of a state of `n` sequences: `(layers*dirs, N, H)`.
    fn state_shape(&self, n: usize) -> (usize, usize, usize) {
        (self.num_layers * self.directions(), n, self.hidden_size)
    }

    /// Checks a given initial state against `(layers*dirs, N, H)`.
    pub(crate) fn check_state(&self, n: usize, given: Option<&Tensor>) -> Result<()> {
        let shape = self.state_shape(n);
        match given {
            Some(h) if h.dims() != [shape.0, shape.1, shape.2] => Err(invalid_shape(format!("a state of shape {shape:?}"), h.dims())),
            _ => Ok(()),
        }
    }

    /// A given initial state ([`Recurrent::check_state`] checked it), or zeros.
    pub(crate) fn initial_state(&self, x: &Tensor, n: usize, given: Option<&Tensor>) -> Result<Tensor> {
        match given {
            Some(h) => Ok(h.clone()),
            None => Tensor::zeros(self.state_shape(n), x.dtype(), x.device()),
        }
    }

    /// Runs the stack with `step` advancing a state one time step and `output` reading the
    /// hidden state out of it; see [`run_stack`].
    pub(crate) fn run<S>(
        &self,
        x: &Tensor,
        initial: Vec<S>,
        step: impl Fn(&RnnWeights, &Tensor, &S) -> Result<S>,
        output: impl Fn(&S) -> Tensor,
    ) -> Result<(Tensor, Vec<S>)> {
        self.run_directions(x, initial, |w, gi, s| by_steps(w, gi, s, &step, &output))
    }

    /// Runs the stack with `direction` running one layer's direction over its whole sequence;
    /// see [`run_stack`].
    pub(crate) fn run_directions<S>(
        &self,
        x: &Tensor,
        initial: Vec<S>,
        direction: impl Fn(&RnnWeights, &Tensor, S) -> Result<(Tensor, S)>,
    ) -> Result<(Tensor, Vec<S>)> {
        self.run_directions_with(x, initial, reverse_time, direction)
    }

    /// [`Recurrent::run_directions`] with `reverse` turning a layer's input round for the backward
    /// direction and its outputs back (for padded batches: each sequence within its length).
    pub(crate) fn run_directions_with<S>(
        &self,
        x: &Tensor,
        initial: Vec<S>,
        reverse: impl Fn(&Tensor) -> Result<Tensor>,
        direction: impl Fn(&RnnWeights, &Tensor, S) -> Result<(Tensor, S)>,
    ) -> Result<(Tensor, Vec<S>)> {
        run_stack(x, &self.weights, self.directions(), initial, reverse, direction).map_err(|e| error(C::NAME, e))
    }
}

impl<C: CellKind> Walk for Recurrent<C> {
    fn walk(&self, w: &mut Walker) {
        for (suffix, weights) in layer_suffixes(self.num_layers, self.bidirectional).iter().zip(&self.weights) {
            weights.walk_suffixed(w, &format!("_{suffix}"));
        }
    }
}
