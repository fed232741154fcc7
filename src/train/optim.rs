//! Optimisers: PyTorch's Adam, step for step in float32.

use crate::nn::Param;
use candle_core::backprop::GradStore;
use candle_core::{DType, Device, Result, Tensor, bail};
use std::collections::HashMap;

/// An optimiser: one update from the gradients, and its state for checkpoints.
pub trait Optimizer {
    fn step(&mut self, grads: &GradStore) -> Result<()>;
    /// The learning rate.
    fn lr(&self) -> f64;
    /// Its state as named tensors (saved with a checkpoint).
    fn state(&self) -> Result<Vec<(String, Tensor)>>;
    /// Restores a state written by [`Optimizer::state`]; checks everything before changing anything.
    fn load_state(&mut self, state: &HashMap<String, Tensor>) -> Result<()>;
}

/// `optim.Adam(params, lr)` with PyTorch's defaults (betas 0.9/0.999, eps 1e-8, no weight decay)
/// and PyTorch's float32 arithmetic, step for step.
#[derive(Clone, Debug)]
pub struct Adam {
    pub params: Vec<Param>,
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    pub step_count: usize,
    exp_avg: Vec<Vec<f32>>,
    exp_avg_sq: Vec<Vec<f32>>,
}

impl Adam {
    pub fn new(params: Vec<Param>, lr: f64) -> Result<Self> {
        if !(lr.is_finite() && lr >= 0.0) {
            bail!("Adam: invalid learning rate {lr}")
        }
        let exp_avg: Vec<Vec<f32>> = params.iter().map(|p| vec![0f32; p.elem_count()]).collect();
        Ok(Adam { exp_avg_sq: exp_avg.clone(), exp_avg, params, lr, betas: (0.9, 0.999), eps: 1e-8, step_count: 0 })
    }
}

fn to_vec(t: &Tensor) -> Result<Vec<f32>> {
    t.flatten_all()?.to_dtype(DType::F32)?.to_vec1::<f32>()
}

impl Optimizer for Adam {
    fn step(&mut self, grads: &GradStore) -> Result<()> {
        self.step_count += 1;
        let (beta1, beta2) = self.betas;
        let step = self.step_count as i32;
        let bias_correction1 = 1.0 - beta1.powi(step);
        let bias_correction2 = 1.0 - beta2.powi(step);
        let step_size = (self.lr / bias_correction1) as f32;
        let bc2_sqrt = bias_correction2.sqrt() as f32;
        let (w1, b2, w2, eps) = ((1.0 - beta1) as f32, beta2 as f32, (1.0 - beta2) as f32, self.eps as f32);
        for (k, p) in self.params.iter().enumerate() {
            let Some(g) = grads.get(&p.tensor()) else { continue };
            let g = to_vec(g)?;
            let mut values = to_vec(&p.tensor())?;
            let (m, v) = (&mut self.exp_avg[k], &mut self.exp_avg_sq[k]);
            for i in 0..values.len() {
                m[i] += w1 * (g[i] - m[i]);
                v[i] = v[i] * b2 + w2 * g[i] * g[i];
                let denom = v[i].sqrt() / bc2_sqrt + eps;
                values[i] += -step_size * m[i] / denom;
            }
            p.set(&Tensor::from_vec(values, p.shape(), &Device::Cpu)?)?;
        }
        Ok(())
    }

    fn lr(&self) -> f64 {
        self.lr
    }

    fn state(&self) -> Result<Vec<(String, Tensor)>> {
        let mut s = vec![("step".to_string(), Tensor::new(&[self.step_count as f32], &Device::Cpu)?)];
        for (k, p) in self.params.iter().enumerate() {
            s.push((format!("exp_avg.{k}"), Tensor::from_vec(self.exp_avg[k].clone(), p.shape(), &Device::Cpu)?));
            s.push((format!("exp_avg_sq.{k}"), Tensor::from_vec(self.exp_avg_sq[k].clone(), p.shape(), &Device::Cpu)?));
        }
        Ok(s)
    }

    fn load_state(&mut self, state: &HashMap<String, Tensor>) -> Result<()> {
        let step = match state.get("step") {
            Some(t) => to_vec(t)?.first().copied().unwrap_or(0.0) as usize,
            None => bail!("Adam::load_state: the state has no `step`"),
        };
        let mut m = vec![];
        let mut v = vec![];
        for (k, p) in self.params.iter().enumerate() {
            for (name, dest) in [("exp_avg", &mut m), ("exp_avg_sq", &mut v)] {
                let key = format!("{name}.{k}");
                match state.get(&key) {
                    Some(t) if t.elem_count() == p.elem_count() => dest.push(to_vec(t)?),
                    Some(t) => bail!("Adam::load_state: `{key}` expected shape {:?}, got {:?}", p.dims(), t.dims()),
                    None => bail!("Adam::load_state: the state has no `{key}`"),
                }
            }
        }
        self.step_count = step;
        self.exp_avg = m;
        self.exp_avg_sq = v;
        Ok(())
    }
}
