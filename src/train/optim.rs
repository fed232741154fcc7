//! Optimisers: PyTorch's Adam, step for step in float32.

use crate::nn::Param;
use crate::nn::errors_as;
use crate::nn::fused::fast_math::with_simd;
use crate::nn::fused::in_place::{is_f32_in_place, update_f32, with_f32};
use crate::nn::shape::storage_address;
use crate::nn::shape::{error, invalid};
use crate::train::pool::{SPLIT_MIN, map_halves};
use candle_core::backprop::GradStore;
use candle_core::{DType, Device, Result, Tensor};
use std::collections::HashMap;

/// Everything an optimiser needs to go on where it stopped: what a checkpoint saves and what a
/// failed epoch rolls back to.
#[derive(Clone, Debug)]
pub struct OptimizerState {
    /// The optimiser's kind (`"Adam"`): a state only loads into the same kind.
    pub kind: String,
    /// Steps taken so far.
    pub step: u64,
    /// Named hyperparameters (`lr`, `beta1`, ...), in a fixed order.
    pub hyperparameters: Vec<(String, f64)>,
    /// Per-parameter buffers by name (`exp_avg.0`, ...), shaped like their parameters.
    pub tensors: Vec<(String, Tensor)>,
}

/// An optimiser: one update from the gradients, and its state for checkpoints.
pub trait Optimizer {
    /// One update of every parameter that has a gradient in `grads`.
    fn step(&mut self, grads: &GradStore) -> Result<()>;
    /// The learning rate.
    fn lr(&self) -> f64;
    /// Changes the learning rate (a schedule calls it before every step).
    fn set_lr(&mut self, lr: f64) -> Result<()>;
    /// Steps taken so far.
    fn step_count(&self) -> u64;
    /// The parameters it updates, in order.
    fn params(&self) -> &[Param];
    /// Its whole state (saved with a checkpoint).
    fn state(&self) -> Result<OptimizerState>;
    /// Restores a state written by [`Optimizer::state`]: checks the kind, the step, the
    /// hyperparameters and every buffer first, and changes nothing unless all checks pass.
    fn load_state(&mut self, state: &OptimizerState) -> Result<()>;
    /// What [`StepByStep::train`](super::StepByStep::train) keeps to roll a failed epoch back to;
    /// by default [`Optimizer::state`]. It loads with [`Optimizer::load_state`].
    fn rollback_state(&self) -> Result<OptimizerState> {
        self.state()
    }
    /// How many threads a step may use ([`StepByStep::train`](super::StepByStep::train) passes
    /// its `threads`). The default ignores it: the step runs on the calling thread.
    fn set_threads(&mut self, _threads: usize) {}
}

/// `optim.Adam(params, lr)` with PyTorch's defaults (betas 0.9/0.999, eps 1e-8, no weight decay)
/// and PyTorch's float32 arithmetic, step for step. The hyperparameters are checked when set, so
/// the fields are private: read them with [`Adam::betas`], [`Adam::eps`], [`Adam::step_count`].
/// Given two threads or more ([`Optimizer::set_threads`], as `StepByStep` with `threads` 2 does),
/// a step of 65,536 values or more updates the parameters on two threads, each parameter on one,
/// so the arithmetic is the same.
#[derive(Clone, Debug)]
pub struct Adam {
    params: Vec<Param>,
    lr: f64,
    betas: (f64, f64),
    eps: f64,
    step_count: u64,
    exp_avg: Vec<Vec<f32>>,
    exp_avg_sq: Vec<Vec<f32>>,
    threads: usize,
    /// Whether the buffers came from [`Optimizer::load_state`] (then not known to be zero).
    loaded: bool,
}

/// A buffer of zeros per parameter, each freshly allocated (`vec![0; n]` takes zeroed pages from
/// the system, which cost memory only once written; a clone of one would copy every page).
fn zeros(params: &[Param]) -> Vec<Vec<f32>> {
    params.iter().map(|p| vec![0f32; p.elem_count()]).collect()
}

/// Checks Adam's hyperparameters as PyTorch does: `0 <= lr`, `0 <= beta < 1`, `0 <= eps`, all finite.
fn check_hyperparameters(lr: f64, betas: (f64, f64), eps: f64) -> Result<()> {
    let beta_ok = |b: f64| (0.0..1.0).contains(&b);
    if !(lr.is_finite() && lr >= 0.0) {
        return Err(error("Adam", format!("invalid learning rate {lr}: expected a finite lr >= 0")));
    }
    if !(beta_ok(betas.0) && beta_ok(betas.1)) {
        return Err(error("Adam", format!("invalid betas {betas:?}: expected each in [0, 1)")));
    }
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(error("Adam", format!("invalid eps {eps}: expected a finite eps >= 0")));
    }
    Ok(())
}

impl Adam {
    /// Adam over `params` with learning rate `lr` and PyTorch's other defaults.
    pub fn new(params: Vec<Param>, lr: f64) -> Result<Self> {
        Self::with_betas(params, lr, (0.9, 0.999), 1e-8)
    }

    /// Adam with every hyperparameter given (`optim.Adam(params, lr, betas, eps)`).
    pub fn with_betas(params: Vec<Param>, lr: f64, betas: (f64, f64), eps: f64) -> Result<Self> {
        check_hyperparameters(lr, betas, eps)?;
        Ok(Adam { exp_avg_sq: zeros(&params), exp_avg: zeros(&params), params, lr, betas, eps, step_count: 0, threads: 1, loaded: false })
    }

    /// Changes the learning rate (checked like the constructor's).
    pub fn set_lr(&mut self, lr: f64) -> Result<()> {
        check_hyperparameters(lr, self.betas, self.eps)?;
        self.lr = lr;
        Ok(())
    }

    pub fn betas(&self) -> (f64, f64) {
        self.betas
    }

    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// Steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }
}

fn to_vec(t: &Tensor) -> Result<Vec<f32>> {
    t.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()
}

/// `base^step` as Python computes `beta ** step` for the step counts training reaches.
fn power(base: f64, step: u64) -> f64 {
    match i32::try_from(step) {
        Ok(s) => base.powi(s),
        Err(_) => base.powf(step as f64),
    }
}

/// One parameter's in-place update: its index, value, gradient and moment buffers.
type InPlace<'a> = (usize, Tensor, Tensor, &'a mut Vec<f32>, &'a mut Vec<f32>);

/// One step's constants: PyTorch's float32 Adam arithmetic for a step.
struct AdamStep {
    w1: f32,
    b2: f32,
    w2: f32,
    eps: f32,
    step_size: f32,
    bc2_sqrt: f32,
}

impl AdamStep {
    /// Updates `values` and their moment buffers `m`, `v` from the gradient `g` (all one length).
    fn apply(&self, values: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]) {
        let AdamStep { w1, b2, w2, eps, step_size, bc2_sqrt } = *self;
        adam_update(values, g, m, v, [w1, b2, w2, eps, step_size, bc2_sqrt]);
    }
}

/// [`AdamStep::apply`]'s loop, `c` its constants in the struct's order.
#[inline(always)]
fn adam_update_body(values: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], c: [f32; 6]) {
    let [w1, b2, w2, eps, step_size, bc2_sqrt] = c;
    for (((x, &g), m), v) in values.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
        *m += w1 * (g - *m);
        *v = *v * b2 + w2 * g * g;
        let denom = v.sqrt() / bc2_sqrt + eps;
        *x += -step_size * *m / denom;
    }
}

// on the widest vectors the CPU has: the same bits (square roots and quotients are correctly
// rounded at every width, and no multiply-add is fused), fewer instructions a parameter
with_simd!(fn adam_update(values: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], c: [f32; 6]) => adam_update_body);

impl Adam {
    /// The state's kind, step and hyperparameters, without buffers.
    fn hyper_state(&self) -> OptimizerState {
        let hyperparameters =
            vec![("lr".into(), self.lr), ("beta1".into(), self.betas.0), ("beta2".into(), self.betas.1), ("eps".into(), self.eps)];
        OptimizerState { kind: "Adam".into(), step: self.step_count, hyperparameters, tensors: vec![] }
    }
}

impl Optimizer for Adam {
    fn step(&mut self, grads: &GradStore) -> Result<()> {
        let step = self.step_count.checked_add(1).ok_or_else(|| error("Adam::step", "the step count is at u64::MAX: no step is left"))?;
        let (beta1, beta2) = self.betas;
        let bias_correction1 = 1.0 - power(beta1, step);
        let bias_correction2 = 1.0 - power(beta2, step);
        let c = AdamStep {
            w1: (1.0 - beta1) as f32,
            b2: beta2 as f32,
            w2: (1.0 - beta2) as f32,
            eps: self.eps as f32,
            step_size: (self.lr / bias_correction1) as f32,
            bc2_sqrt: bias_correction2.sqrt() as f32,
        };
        // Check every gradient and compute the updates that need copies first, so a failure
        // leaves the parameters and buffers untouched; the copies are set, then float32 CPU
        // parameters are updated where they lie (nothing there can fail). A gradient that shares
        // a parameter's storage (a hand-made store) goes through a copy: it must be read before
        // any parameter changes.
        let (mut in_place, mut copied) = (vec![], vec![]);
        let addresses: Vec<usize> = self.params.iter().map(|p| storage_address(&p.tensor())).collect();
        for (k, p) in self.params.iter().enumerate() {
            let Some(g) = grads.get(&p.tensor()) else { continue };
            if g.elem_count() != p.elem_count() {
                return Err(error("Adam::step", format!("gradient {:?} does not fit parameter {k} of shape {:?}", g.dims(), p.dims())));
            }
            let t = p.tensor();
            if is_f32_in_place(&t) && is_f32_in_place(g) && !addresses.contains(&storage_address(g)) {
                in_place.push((k, t, g.clone()));
            } else {
                let g = to_vec(g)?;
                let mut values = to_vec(&t)?;
                let (mut m, mut v) = (self.exp_avg[k].clone(), self.exp_avg_sq[k].clone());
                c.apply(&mut values, &g, &mut m, &mut v);
                copied.push((k, Tensor::from_vec(values, p.shape(), t.device())?, m, v));
            }
        }
        for (k, value, m, v) in copied {
            self.params[k].set(&value)?;
            self.exp_avg[k] = m;
            self.exp_avg_sq[k] = v;
        }
        // The in-place updates (`in_place` is in the parameters' order), the parameters split
        // between two threads where it was given two (each parameter on one).
        let mut in_place = in_place.into_iter().peekable();
        let mut work = vec![];
        for (k, (m, v)) in self.exp_avg.iter_mut().zip(self.exp_avg_sq.iter_mut()).enumerate() {
            if let Some((_, t, g)) = in_place.next_if(|(j, _, _)| *j == k) {
                work.push((k, t, g, m, v));
            }
        }
        let update = |half: Vec<InPlace>| -> Result<()> {
            for (k, t, g, m, v) in half {
                with_f32(&g, |g| update_f32(&t, |values| c.apply(values, g, m, v)))
                    .unwrap_or_else(|| Err(error("Adam::step", format!("the gradient of parameter {k} changed storage"))))?;
            }
            Ok(())
        };
        let min = if self.threads >= 2 { SPLIT_MIN } else { usize::MAX };
        map_halves(work, |w| w.1.elem_count(), min, update).into_iter().collect::<Result<Vec<()>>>()?;
        self.step_count = step;
        Ok(())
    }

    fn set_lr(&mut self, lr: f64) -> Result<()> {
        Adam::set_lr(self, lr)
    }

    fn set_threads(&mut self, threads: usize) {
        self.threads = threads;
    }

    fn step_count(&self) -> u64 {
        self.step_count
    }

    fn lr(&self) -> f64 {
        self.lr
    }

    fn params(&self) -> &[Param] {
        &self.params
    }

    /// Before the first step every buffer is zero: the state then holds none (a copy of each
    /// would double the optimiser's memory for the first epoch: 347 MiB for the base model).
    fn rollback_state(&self) -> Result<OptimizerState> {
        if self.step_count > 0 || self.loaded {
            return self.state();
        }
        Ok(OptimizerState { tensors: vec![], ..self.hyper_state() })
    }

    fn state(&self) -> Result<OptimizerState> {
        let mut tensors = vec![];
        for (k, p) in self.params.iter().enumerate() {
            tensors.push((format!("exp_avg.{k}"), Tensor::from_vec(self.exp_avg[k].clone(), p.shape(), &Device::Cpu)?));
            tensors.push((format!("exp_avg_sq.{k}"), Tensor::from_vec(self.exp_avg_sq[k].clone(), p.shape(), &Device::Cpu)?));
        }
        Ok(OptimizerState { tensors, ..self.hyper_state() })
    }

    #[errors_as("Adam::load_state")]
    fn load_state(&mut self, state: &OptimizerState) -> Result<()> {
        let (lr, betas, eps) = check_hyper_state(state)?;
        let buffers = self.check_buffers(state)?;
        (self.lr, self.betas, self.eps, self.step_count) = (lr, betas, eps, state.step);
        match buffers {
            // a state from before the first step (`rollback_state`): every buffer zero
            None => (self.exp_avg, self.exp_avg_sq, self.loaded) = (zeros(&self.params), zeros(&self.params), false),
            Some((m, v)) => (self.exp_avg, self.exp_avg_sq, self.loaded) = (m, v, true),
        }
        Ok(())
    }
}

/// Checks that a state is Adam's, with every hyperparameter valid, and returns `(lr, betas, eps)`.
fn check_hyper_state(state: &OptimizerState) -> Result<(f64, (f64, f64), f64)> {
    if state.kind != "Adam" {
        return Err(invalid(format!("the state is an optimiser of kind `{}`, not Adam", state.kind)));
    }
    let hyper: HashMap<&str, f64> = state.hyperparameters.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let get = |name: &str| hyper.get(name).copied().ok_or_else(|| invalid(format!("the state has no hyperparameter `{name}`")));
    let (lr, betas, eps) = (get("lr")?, (get("beta1")?, get("beta2")?), get("eps")?);
    check_hyperparameters(lr, betas, eps).map_err(invalid)?;
    Ok((lr, betas, eps))
}

impl Adam {
    /// Checks a state's buffers against the parameters and returns them as `(exp_avg,
    /// exp_avg_sq)`, or `None` for a state from before the first step (no buffers).
    fn check_buffers(&self, state: &OptimizerState) -> Result<Option<Buffers>> {
        if state.step == 0 && state.tensors.is_empty() {
            return Ok(None);
        }
        let buffers: HashMap<&str, &Tensor> = state.tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let mut m = vec![];
        let mut v = vec![];
        for (k, p) in self.params.iter().enumerate() {
            for (name, dest) in [("exp_avg", &mut m), ("exp_avg_sq", &mut v)] {
                let key = format!("{name}.{k}");
                match buffers.get(key.as_str()) {
                    Some(t) if t.dims() == p.dims().as_slice() => dest.push(to_vec(t)?),
                    Some(t) => return Err(invalid(format!("`{key}` expected shape {:?}, got {:?}", p.dims(), t.dims()))),
                    None => return Err(invalid(format!("the state has no `{key}`"))),
                }
            }
        }
        if buffers.len() != 2 * self.params.len() {
            return Err(invalid(format!("the state holds {} buffers for {} parameters", buffers.len(), self.params.len())));
        }
        Ok(Some((m, v)))
    }
}

/// Adam's two buffers per parameter, `exp_avg` and `exp_avg_sq`.
type Buffers = (Vec<Vec<f32>>, Vec<Vec<f32>>);
