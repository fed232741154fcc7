//! The Annotated Transformer's learning-rate schedule: a linear warm-up, then `1/sqrt(step)`.

use super::optim::Optimizer;
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::Result;

/// The warm-up schedule of "Attention Is All You Need", as the Annotated Transformer writes it:
///
/// `lr(step) = factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)`
///
/// The rate grows linearly for `warmup` steps, peaks at step `warmup` with
/// `factor * (d_model * warmup)^-0.5`, then falls as `1/sqrt(step)`. Steps count from 1; step 0
/// is read as step 1 (the Annotated Transformer's `rate` does the same).
///
/// Like the Annotated Transformer's `NoamOpt`, call [`NoamSchedule::step`] right before each
/// optimiser step: it counts the step and sets the optimiser's learning rate for it.
///
/// ```
/// # use attention_zoo::train::NoamSchedule;
/// let schedule = NoamSchedule::new(512, 4000, 1.0)?;
/// assert!(schedule.lr(4000) > schedule.lr(3999) && schedule.lr(4000) > schedule.lr(4001));
/// # Ok::<(), candle_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoamSchedule {
    d_model: usize,
    warmup: u64,
    factor: f64,
    step_count: u64,
}

impl NoamSchedule {
    /// The schedule for a model of width `d_model`, `warmup` steps (at least 1) and a finite
    /// `factor >= 0`, before its first step.
    #[errors_as]
    pub fn new(d_model: usize, warmup: u64, factor: f64) -> Result<Self> {
        if d_model == 0 {
            return Err(invalid("d_model is 0: expected d_model >= 1"));
        }
        if warmup == 0 {
            return Err(invalid("warmup is 0: expected warmup >= 1 steps"));
        }
        if !(factor.is_finite() && factor >= 0.0) {
            return Err(invalid(format!("invalid factor {factor}: expected a finite factor >= 0")));
        }
        Ok(NoamSchedule { d_model, warmup, factor, step_count: 0 })
    }

    /// The learning rate at `step` (counted from 1; 0 counts as 1).
    pub fn lr(&self, step: u64) -> f64 {
        let step = step.max(1) as f64;
        let rate = (self.d_model as f64).powf(-0.5) * step.powf(-0.5).min(step * (self.warmup as f64).powf(-1.5));
        self.factor * rate
    }

    /// Counts one more step and sets `optimizer`'s learning rate to the rate of that step;
    /// returns the rate. Call it before each `optimizer.step(&grads)`.
    #[errors_as]
    pub fn step<O: Optimizer>(&mut self, optimizer: &mut O) -> Result<f64> {
        let next = self.step_count.checked_add(1).ok_or_else(|| {
            invalid(format!("the step count is already {}, the largest a u64 holds: no step can follow", self.step_count))
        })?;
        optimizer.set_lr(self.lr(next)).map_err(invalid)?;
        self.step_count = next;
        Ok(self.lr(next))
    }

    /// Steps counted so far (the rate of the last one is `lr(step_count())`).
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Goes on from `step_count` steps (after loading a checkpoint).
    pub fn set_step_count(&mut self, step_count: u64) {
        self.step_count = step_count;
    }

    /// The step with the highest rate: `warmup`.
    pub fn peak_step(&self) -> u64 {
        self.warmup
    }

    pub fn d_model(&self) -> usize {
        self.d_model
    }

    pub fn warmup(&self) -> u64 {
        self.warmup
    }

    pub fn factor(&self) -> f64 {
        self.factor
    }
}
