//! What every layer and model offers (`Module`), and what the trainer needs of a model (`Model`).

use super::param::Param;
use super::{pytorch, shape};
use candle_core::{Result, Tensor};
use std::collections::HashMap;
use std::path::Path;

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

    /// Whether the module is in training mode (layers without such behaviour: `false`).
    fn is_training(&self) -> bool {
        false
    }

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

    /// Re-makes every parameter with the code running now (see [`Param`]): needed before
    /// a backward pass in a notebook cell other than the one that made the model.
    fn rehome(&self) -> Result<()> {
        self.named_parameters().iter().try_for_each(|(_, p)| p.rehome())
    }

    /// The number of trainable values.
    fn count_parameters(&self) -> usize {
        self.named_parameters().iter().map(|(_, v)| v.elem_count()).sum()
    }

    /// Copies of the current values, by name.
    fn state_dict(&self) -> Result<Vec<(String, Tensor)>> {
        self.named_parameters().into_iter().map(|(n, v)| Ok((n, v.tensor().detach().copy()?))).collect()
    }

    /// Checks that `state` holds every parameter by name with its shape; `module` names the caller
    /// in the error (`load_state_dict`, `load_checkpoint`).
    fn check_state_dict(&self, module: &str, state: &HashMap<String, Tensor>) -> Result<()> {
        for (name, var) in &self.named_parameters() {
            match state.get(name) {
                None => return Err(shape::error(module, format!("parameter `{name}` is missing from the state"))),
                Some(t) if t.dims() != var.dims().as_slice() => {
                    return Err(shape::shape_error(module, format!("parameter `{name}` of shape {:?}", var.dims()), t.dims()));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Loads values by name. Every parameter must be present with its shape; on any mismatch
    /// nothing is changed and the error names the parameter and both shapes.
    fn load_state_dict(&self, state: &HashMap<String, Tensor>) -> Result<()> {
        self.check_state_dict("load_state_dict", state)?;
        for (name, var) in &self.named_parameters() {
            var.set(&state[name])?;
        }
        Ok(())
    }

    /// Tensors PyTorch keeps in the `state_dict` beside the parameters (`register_buffer`), named
    /// as there (a positional encoding's `pe`): computed, not learned. None unless a module says
    /// so; a module with sub-modules lists theirs, [`prefixed`] like its parameters.
    fn named_buffers(&self) -> Vec<(String, Tensor)> {
        vec![]
    }

    /// Loads a `state_dict` saved by PyTorch, `torch.save(model.state_dict(), path)`, by name:
    /// `model.load_pytorch("encoder.pt")?`. Every parameter must be in the file with its shape
    /// (float64, float16 and bfloat16 are converted, integers refused), the file must hold
    /// nothing else but the module's [buffers](Self::named_buffers) (checked, not loaded), and
    /// one error lists every problem, naming the file; nothing changes unless all checks pass.
    /// The rules in full: [`pytorch`].
    fn load_pytorch<P: AsRef<Path>>(&self, path: P) -> Result<()>
    where
        Self: Sized,
    {
        pytorch::load_pytorch_into(path.as_ref(), &self.named_parameters(), &self.named_buffers())
    }
}

/// Prefixes the names of a sub-module's parameters (or buffers), as PyTorch does
/// (`encoder.basic_rnn.weight_ih_l0`).
pub fn prefixed<T>(prefix: &str, items: Vec<(String, T)>) -> Vec<(String, T)> {
    items.into_iter().map(|(n, v)| (format!("{prefix}.{n}"), v)).collect()
}

/// What the trainer needs from a model: a forward pass over a batch.
pub trait Model: Module {
    /// One batch in, predictions out (what `StepByStep` calls).
    ///
    /// # Shapes
    /// - `x`: a batch `(N, ...)` as the model takes it (the lecture's models: `(N, L, F)`)
    /// - returns the predictions `(N, ...)`, shaped like the targets
    fn forward(&mut self, x: &Tensor) -> Result<Tensor>;
}
