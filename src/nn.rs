//! Layers with PyTorch's parameter names and PyTorch's initialisation.
//!
//! Each layer draws its initial weights from the default generator ([`crate::random`]) in the
//! order PyTorch draws them, so `manual_seed(s)` followed by a constructor gives the weights that
//! `torch.manual_seed(s)` followed by the same PyTorch constructor gives.
//!
//! Every operation used here records a backward pass (the sigmoid and the layer norm are written
//! with basic tensor operations on purpose).

use crate::random;
pub use crate::param::Param;
use candle_core::{D, DType, Device, Result, Shape, Tensor, bail};
use std::collections::HashMap;

/// Named parameters in registration order, as `named_parameters()` lists them in PyTorch.
pub type NamedParams = Vec<(String, Param)>;

/// What every layer and model offers: its parameters under PyTorch's state_dict names, and a
/// training flag (`train()` / `eval()`).
pub trait Module {
    /// `(name, parameter)` pairs in PyTorch's order, named as in its `state_dict`.
    fn named_parameters(&self) -> NamedParams;

    /// Switches training mode on or off (dropout, teacher forcing). Layers without such
    /// behaviour ignore it.
    fn set_training(&mut self, _training: bool) {}

    /// Training mode, like `model.train()`.
    fn train(&mut self) {
        self.set_training(true)
    }

    /// Evaluation mode, like `model.eval()`.
    fn eval(&mut self) {
        self.set_training(false)
    }

    /// The parameters alone, in order.
    fn parameters(&self) -> Vec<Param> {
        self.named_parameters().into_iter().map(|(_, v)| v).collect()
    }

    /// The number of trainable values.
    /// Re-makes every parameter with the code running now (see [`crate::param`]): needed before
    /// a backward pass in a notebook cell other than the one that made the model.
    fn rehome(&self) -> Result<()> {
        self.named_parameters().iter().try_for_each(|(_, p)| p.rehome())
    }

    fn count_parameters(&self) -> usize {
        self.named_parameters().iter().map(|(_, v)| v.elem_count()).sum()
    }

    /// Copies of the current values, by name.
    fn state_dict(&self) -> Result<Vec<(String, Tensor)>> {
        self.named_parameters().into_iter().map(|(n, v)| Ok((n, v.tensor().detach().copy()?))).collect()
    }

    /// Loads values by name. Every parameter must be present with its shape; on any mismatch
    /// nothing is changed and the error names the parameter and both shapes.
    fn load_state_dict(&self, state: &HashMap<String, Tensor>) -> Result<()> {
        let params = self.named_parameters();
        for (name, var) in &params {
            match state.get(name) {
                None => bail!("load_state_dict: parameter `{name}` is missing from the state"),
                Some(t) if t.dims() != var.dims().as_slice() => bail!(
                    "load_state_dict: parameter `{name}` expected shape {:?}, got {:?}",
                    var.dims(),
                    t.dims()
                ),
                Some(_) => {}
            }
        }
        for (name, var) in &params {
            var.set(&state[name])?;
        }
        Ok(())
    }
}

/// Prefixes the names of a sub-module's parameters, as PyTorch does (`encoder.basic_rnn.weight_ih_l0`).
pub fn prefixed(prefix: &str, params: NamedParams) -> NamedParams {
    params.into_iter().map(|(n, v)| (format!("{prefix}.{n}"), v)).collect()
}

/// A trainable tensor drawn uniformly in `[-bound, bound)` from the default generator.
pub fn uniform_var<S: Into<Shape>>(shape: S, bound: f64) -> Result<Param> {
    Param::new(&random::uniform(shape, -bound, bound)?)
}

/// PyTorch's `kaiming_uniform_(w, a=sqrt(5))` bound, which is `1/sqrt(fan_in)` computed its way.
pub fn kaiming_uniform_bound(fan_in: usize) -> f64 {
    let gain = (2.0f64 / (1.0 + 5.0)).sqrt();
    let std = gain / (fan_in as f64).sqrt();
    3.0f64.sqrt() * std
}

/// The logistic function with a recorded backward pass.
pub fn sigmoid(x: &Tensor) -> Result<Tensor> {
    (x.neg()?.exp()? + 1.0)?.recip()
}

fn check_last_dim(module: &str, x: &Tensor, expected: usize, what: &str) -> Result<()> {
    match x.dims().last() {
        Some(&d) if d == expected => Ok(()),
        _ => bail!(
            "{module}: expected input of shape (..., {expected}) ({what}), got {:?}",
            x.dims()
        ),
    }
}

/// `nn.Linear(in_features, out_features)`: `y = x W^T + b`. Parameters `weight` (out, in) and `bias` (out).
#[derive(Clone, Debug)]
pub struct Linear {
    pub weight: Param,
    pub bias: Option<Param>,
    pub in_features: usize,
    pub out_features: usize,
}

impl Linear {
    /// Draws weight then bias from the default generator, uniform in `±1/sqrt(in_features)`.
    pub fn new(in_features: usize, out_features: usize) -> Result<Self> {
        Self::with_bias(in_features, out_features, true)
    }

    /// Like [`Linear::new`], with or without a bias (`bias=False`).
    pub fn with_bias(in_features: usize, out_features: usize, bias: bool) -> Result<Self> {
        if in_features == 0 || out_features == 0 {
            bail!("Linear: sizes must be positive, got in_features = {in_features}, out_features = {out_features}")
        }
        let weight = uniform_var((out_features, in_features), kaiming_uniform_bound(in_features))?;
        let bias = if bias {
            Some(uniform_var(out_features, 1.0 / (in_features as f64).sqrt())?)
        } else {
            None
        };
        Ok(Linear { weight, bias, in_features, out_features })
    }

    /// `(..., in_features) -> (..., out_features)`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim("Linear", x, self.in_features, "in_features")?;
        let bias = self.bias.as_ref().map(|b| b.tensor());
        crate::kernels::linear(x, &self.weight.tensor(), bias.as_ref())
    }
}

impl Module for Linear {
    fn named_parameters(&self) -> NamedParams {
        let mut p = vec![("weight".to_string(), self.weight.clone())];
        if let Some(b) = &self.bias {
            p.push(("bias".to_string(), b.clone()));
        }
        p
    }
}

/// `nn.Embedding(num_embeddings, embedding_dim)`, initialised with standard normals.
#[derive(Clone, Debug)]
pub struct Embedding {
    pub weight: Param,
    pub num_embeddings: usize,
    pub embedding_dim: usize,
}

impl Embedding {
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Self> {
        if num_embeddings == 0 || embedding_dim == 0 {
            bail!("Embedding: sizes must be positive, got ({num_embeddings}, {embedding_dim})")
        }
        let weight = Param::new(&random::randn((num_embeddings, embedding_dim))?)?;
        Ok(Embedding { weight, num_embeddings, embedding_dim })
    }

    /// Integer ids of any shape `S` -> `(S..., embedding_dim)`.
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let ids = ids.to_dtype(DType::U32)?;
        let max = ids.flatten_all()?.max(0)?.to_scalar::<u32>()? as usize;
        if max >= self.num_embeddings {
            bail!("Embedding: index {max} out of range for {} embeddings", self.num_embeddings)
        }
        let mut dims = ids.dims().to_vec();
        dims.push(self.embedding_dim);
        self.weight.tensor().index_select(&ids.flatten_all()?, 0)?.reshape(dims)
    }
}

impl Module for Embedding {
    fn named_parameters(&self) -> NamedParams {
        vec![("weight".to_string(), self.weight.clone())]
    }
}

/// `nn.LayerNorm(d_model)` over the last dimension, with a backward pass (candle's own layer
/// norm records none). Parameters `weight` (ones) and `bias` (zeros); eps 1e-5.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    pub weight: Param,
    pub bias: Param,
    pub eps: f64,
    pub d_model: usize,
}

impl LayerNorm {
    pub fn new(d_model: usize) -> Result<Self> {
        if d_model == 0 {
            bail!("LayerNorm: d_model must be positive")
        }
        Ok(LayerNorm {
            weight: Param::new(&Tensor::ones(d_model, DType::F32, &Device::Cpu)?)?,
            bias: Param::new(&Tensor::zeros(d_model, DType::F32, &Device::Cpu)?)?,
            eps: 1e-5,
            d_model,
        })
    }

    /// `(..., d_model) -> (..., d_model)`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim("LayerNorm", x, self.d_model, "d_model")?;
        layer_norm(x, &self.weight.tensor(), &self.bias.tensor(), self.eps)
    }
}

/// Layer normalisation over the last dimension (biased variance), written with differentiable ops.
pub fn layer_norm(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
    let normed = centered.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(weight)?.broadcast_add(bias)
}

impl Module for LayerNorm {
    fn named_parameters(&self) -> NamedParams {
        vec![("weight".to_string(), self.weight.clone()), ("bias".to_string(), self.bias.clone())]
    }
}

/// One direction of one layer of a recurrent network: its four parameters.
#[derive(Clone, Debug)]
pub struct RnnWeights {
    pub weight_ih: Param,
    pub weight_hh: Param,
    pub bias_ih: Param,
    pub bias_hh: Param,
}

impl RnnWeights {
    fn new(gates: usize, input_size: usize, hidden_size: usize) -> Result<Self> {
        let k = 1.0 / (hidden_size as f64).sqrt();
        Ok(RnnWeights {
            weight_ih: uniform_var((gates * hidden_size, input_size), k)?,
            weight_hh: uniform_var((gates * hidden_size, hidden_size), k)?,
            bias_ih: uniform_var(gates * hidden_size, k)?,
            bias_hh: uniform_var(gates * hidden_size, k)?,
        })
    }

    fn named(&self, suffix: &str) -> NamedParams {
        vec![
            (format!("weight_ih_{suffix}"), self.weight_ih.clone()),
            (format!("weight_hh_{suffix}"), self.weight_hh.clone()),
            (format!("bias_ih_{suffix}"), self.bias_ih.clone()),
            (format!("bias_hh_{suffix}"), self.bias_hh.clone()),
        ]
    }

    /// `x W_ih^T + b_ih` for every time step at once: `(N, L, F) -> (N, L, G*H)`.
    fn input_gates(&self, x: &Tensor) -> Result<Tensor> {
        let (n, l, f) = x.dims3()?;
        let g = self.weight_ih.dims()[0];
        x.reshape((n * l, f))?
            .matmul(&self.weight_ih.t()?)?
            .broadcast_add(&self.bias_ih.tensor())?
            .reshape((n, l, g))
    }

    fn hidden_gates(&self, h: &Tensor) -> Result<Tensor> {
        h.matmul(&self.weight_hh.t()?)?.broadcast_add(&self.bias_hh.tensor())
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

/// Reverses a batch-first sequence along its time axis.
pub fn reverse_time(x: &Tensor) -> Result<Tensor> {
    let l = x.dim(1)?;
    let idx = Tensor::from_vec((0..l as u32).rev().collect::<Vec<_>>(), l, x.device())?;
    x.index_select(&idx, 1)
}

fn check_rnn_input(module: &str, x: &Tensor, input_size: usize) -> Result<(usize, usize)> {
    match x.dims() {
        &[n, l, f] if f == input_size && l > 0 => Ok((n, l)),
        d => bail!("{module}: expected a batch-first input (N, L, {input_size}) with L > 0, got {d:?}"),
    }
}

fn check_hidden(module: &str, h: &Tensor, layers_dirs: usize, n: usize, hidden: usize) -> Result<()> {
    if h.dims() != [layers_dirs, n, hidden] {
        bail!(
            "{module}: expected a hidden state of shape ({layers_dirs}, {n}, {hidden}), got {:?}",
            h.dims()
        )
    }
    Ok(())
}

/// One GRU step in PyTorch's arithmetic: gates `r, z, n`, `h' = (h - n) * z + n`.
/// `gi`: `(N, 3H)` input gates, `h`: `(N, H)`.
pub fn gru_cell(w: &RnnWeights, gi: &Tensor, h: &Tensor) -> Result<Tensor> {
    let hd = h.dim(1)?;
    let gh = w.hidden_gates(h)?;
    let r = sigmoid(&(gi.narrow(1, 0, hd)? + gh.narrow(1, 0, hd)?)?)?;
    let z = sigmoid(&(gi.narrow(1, hd, hd)? + gh.narrow(1, hd, hd)?)?)?;
    let n = (gi.narrow(1, 2 * hd, hd)? + (gh.narrow(1, 2 * hd, hd)? * r)?)?.tanh()?;
    ((h - &n)? * z)? + n
}

/// One LSTM step in PyTorch's arithmetic: gates `i, f, g, o`; returns `(h', c')`.
pub fn lstm_cell(w: &RnnWeights, gi: &Tensor, h: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    let hd = h.dim(1)?;
    let gates = (gi + w.hidden_gates(h)?)?;
    let i = sigmoid(&gates.narrow(1, 0, hd)?)?;
    let f = sigmoid(&gates.narrow(1, hd, hd)?)?;
    let g = gates.narrow(1, 2 * hd, hd)?.tanh()?;
    let o = sigmoid(&gates.narrow(1, 3 * hd, hd)?)?;
    let c = ((f * c)? + (i * g)?)?;
    let h = (o * c.tanh()?)?;
    Ok((h, c))
}

/// The weights of a stack of recurrent layers, layer by layer and direction by direction,
/// drawn in PyTorch's order (`gates` is 3 for a GRU, 4 for an LSTM).
fn stack_weights(module: &str, gates: usize, input_size: usize, hidden_size: usize, num_layers: usize, bidirectional: bool) -> Result<Vec<RnnWeights>> {
    if input_size == 0 || hidden_size == 0 || num_layers == 0 {
        bail!("{module}: sizes must be positive, got input_size = {input_size}, hidden_size = {hidden_size}, num_layers = {num_layers}")
    }
    let dirs = if bidirectional { 2 } else { 1 };
    let mut weights = vec![];
    for l in 0..num_layers {
        let inp = if l == 0 { input_size } else { hidden_size * dirs };
        for _ in 0..dirs {
            weights.push(RnnWeights::new(gates, inp, hidden_size)?);
        }
    }
    Ok(weights)
}

/// Runs a stack of recurrent layers over a batch-first `x`: for each layer and direction (the
/// reverse one reads the sequence backwards), `step` advances the state one time step and
/// `output` reads the hidden state out of it. Returns the last layer's outputs `(N, L, dirs*H)`
/// and the final state of every layer and direction.
fn run_stack<S>(
    x: &Tensor,
    weights: &[RnnWeights],
    dirs: usize,
    initial: Vec<S>,
    step: impl Fn(&RnnWeights, &Tensor, &S) -> Result<S>,
    output: impl Fn(&S) -> Tensor,
) -> Result<(Tensor, Vec<S>)> {
    let l = x.dim(1)?;
    let mut input = x.clone();
    let mut finals = Vec::with_capacity(weights.len());
    let mut initial = initial.into_iter();
    for layer in weights.chunks(dirs) {
        let mut outs = vec![];
        for (dir, w) in layer.iter().enumerate() {
            let seq = if dir == 1 { reverse_time(&input)? } else { input.clone() };
            let gi = w.input_gates(&seq)?;
            let Some(mut state) = initial.next() else { bail!("recurrent layer: missing an initial state") };
            let mut states = Vec::with_capacity(l);
            for t in 0..l {
                state = step(w, &gi.narrow(1, t, 1)?.squeeze(1)?, &state)?;
                states.push(output(&state));
            }
            let mut out = Tensor::stack(&states, 1)?;
            if dir == 1 {
                out = reverse_time(&out)?;
            }
            finals.push(state);
            outs.push(out);
        }
        input = Tensor::cat(&outs, 2)?;
    }
    Ok((input, finals))
}

/// `nn.GRU(input_size, hidden_size, num_layers, batch_first=True, bidirectional)`.
#[derive(Clone, Debug)]
pub struct Gru {
    pub input_size: usize,
    pub hidden_size: usize,
    pub num_layers: usize,
    pub bidirectional: bool,
    /// One entry per layer and direction, in PyTorch's order.
    pub weights: Vec<RnnWeights>,
}

impl Gru {
    /// A one-layer, one-direction, batch-first GRU (`nn.GRU(n, h, batch_first=True)`).
    pub fn new(input_size: usize, hidden_size: usize) -> Result<Self> {
        Self::with_layers(input_size, hidden_size, 1, false)
    }

    /// Any number of layers, optionally bidirectional. Draws every parameter uniformly in
    /// `±1/sqrt(hidden_size)`, layer by layer and direction by direction, as PyTorch does.
    pub fn with_layers(input_size: usize, hidden_size: usize, num_layers: usize, bidirectional: bool) -> Result<Self> {
        let weights = stack_weights("GRU", 3, input_size, hidden_size, num_layers, bidirectional)?;
        Ok(Gru { input_size, hidden_size, num_layers, bidirectional, weights })
    }

    fn directions(&self) -> usize {
        if self.bidirectional { 2 } else { 1 }
    }

    /// `(N, L, F)` and an optional `(layers*dirs, N, H)` initial state ->
    /// (`(N, L, dirs*H)` outputs of the last layer, `(layers*dirs, N, H)` final states).
    pub fn forward(&self, x: &Tensor, h0: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
        let (n, _) = check_rnn_input("GRU", x, self.input_size)?;
        let ld = self.num_layers * self.directions();
        let h0 = match h0 {
            Some(h) => {
                check_hidden("GRU", h, ld, n, self.hidden_size)?;
                h.clone()
            }
            None => Tensor::zeros((ld, n, self.hidden_size), x.dtype(), x.device())?,
        };
        let initial = (0..ld).map(|k| h0.get(k)).collect::<Result<Vec<_>>>()?;
        let (out, finals) = run_stack(x, &self.weights, self.directions(), initial, gru_cell, Tensor::clone)?;
        Ok((out, Tensor::stack(&finals, 0)?))
    }
}

impl Module for Gru {
    fn named_parameters(&self) -> NamedParams {
        layer_suffixes(self.num_layers, self.bidirectional)
            .iter()
            .zip(&self.weights)
            .flat_map(|(s, w)| w.named(s))
            .collect()
    }
}

/// `nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional)`.
#[derive(Clone, Debug)]
pub struct Lstm {
    pub input_size: usize,
    pub hidden_size: usize,
    pub num_layers: usize,
    pub bidirectional: bool,
    pub weights: Vec<RnnWeights>,
}

impl Lstm {
    /// A one-layer, one-direction, batch-first LSTM.
    pub fn new(input_size: usize, hidden_size: usize) -> Result<Self> {
        Self::with_layers(input_size, hidden_size, 1, false)
    }

    pub fn with_layers(input_size: usize, hidden_size: usize, num_layers: usize, bidirectional: bool) -> Result<Self> {
        let weights = stack_weights("LSTM", 4, input_size, hidden_size, num_layers, bidirectional)?;
        Ok(Lstm { input_size, hidden_size, num_layers, bidirectional, weights })
    }

    fn directions(&self) -> usize {
        if self.bidirectional { 2 } else { 1 }
    }

    /// `(N, L, F)` and optional `(h0, c0)`, each `(layers*dirs, N, H)` ->
    /// (`(N, L, dirs*H)`, `(h_n, c_n)`).
    pub fn forward(&self, x: &Tensor, state: Option<(&Tensor, &Tensor)>) -> Result<(Tensor, (Tensor, Tensor))> {
        let (n, _) = check_rnn_input("LSTM", x, self.input_size)?;
        let ld = self.num_layers * self.directions();
        let (h0, c0) = match state {
            Some((h, c)) => {
                check_hidden("LSTM", h, ld, n, self.hidden_size)?;
                check_hidden("LSTM", c, ld, n, self.hidden_size)?;
                (h.clone(), c.clone())
            }
            None => {
                let z = Tensor::zeros((ld, n, self.hidden_size), x.dtype(), x.device())?;
                (z.clone(), z)
            }
        };
        let initial = (0..ld).map(|k| Ok((h0.get(k)?, c0.get(k)?))).collect::<Result<Vec<_>>>()?;
        let step = |w: &RnnWeights, gi: &Tensor, (h, c): &(Tensor, Tensor)| lstm_cell(w, gi, h, c);
        let (out, finals) = run_stack(x, &self.weights, self.directions(), initial, step, |(h, _)| h.clone())?;
        let (hs, cs): (Vec<Tensor>, Vec<Tensor>) = finals.into_iter().unzip();
        Ok((out, (Tensor::stack(&hs, 0)?, Tensor::stack(&cs, 0)?)))
    }
}

impl Module for Lstm {
    fn named_parameters(&self) -> NamedParams {
        layer_suffixes(self.num_layers, self.bidirectional)
            .iter()
            .zip(&self.weights)
            .flat_map(|(s, w)| w.named(s))
            .collect()
    }
}
