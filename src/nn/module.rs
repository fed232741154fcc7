//! The module tree. Every layer and model says once, in [`Walk::walk`], which direct children it
//! has and which tensors it owns, under PyTorch's `state_dict` names; everything PyTorch's
//! `nn.Module` derives from its registrations is derived here from that one walk: the parameters,
//! the buffers, training mode (`train()` / `eval()` reach every child), re-homing, `state_dict`
//! checks and loading, `.pt` loading, checkpoints and parameter counts.
//!
//! ```
//! use attention_zoo::prelude::*;
//! # fn main() -> Result<()> {
//! /// A student's own model: two linear layers and a dropout between them. The derive walks the
//! /// fields in order, each a child under its name, as PyTorch registers `self.hidden = ...`.
//! #[derive(Walk)]
//! struct Mlp {
//!     hidden: Linear,
//!     dropout: Dropout,
//!     #[walk(rename = "output")]
//!     out: Linear,
//!     #[walk(skip)]
//!     steps: usize,
//! }
//!
//! let mlp = Mlp { hidden: Linear::new(2, 4)?, dropout: Dropout::new(0.1)?, out: Linear::new(4, 1)?, steps: 0 };
//! let names: Vec<String> = mlp.named_parameters().into_iter().map(|(n, _)| n).collect();
//! assert_eq!(names, ["hidden.weight", "hidden.bias", "output.weight", "output.bias"]);
//! assert_eq!(mlp.count_parameters(), 17);
//! mlp.eval();
//! assert!(!mlp.is_training() && !mlp.dropout.is_training());
//! # Ok(())
//! # }
//! ```
//!
//! A field holding the module's training flag takes `#[walk(mode)]`. A walk that does more than
//! list children (its own parameters or buffers, or
//! children present only in some configurations) is written by hand: `impl Walk for Mlp { fn
//! walk(&self, w: &mut Walker) { w.child("hidden", &self.hidden); ... } }`, with
//! [`Walker::param`], [`Walker::buffer`] and [`Walker::mode`] for the module's own leaves.
//!
//! The trait is called `Walk`, not `Module`, so that it and candle's own forward trait
//! (`candle_nn::Module`) can both be imported.

use super::param::Param;
use super::{pytorch, shape};
use candle_core::{Result, Tensor};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Named parameters in registration order, as `named_parameters()` lists them in PyTorch.
pub type NamedParams = Vec<(String, Param)>;

/// The training flag of a module whose behaviour depends on it (dropout, teacher forcing), as
/// PyTorch's `module.training`. It is shared-mutable so that `train()` and `eval()` reach it
/// through the same `&self` walk as the parameters; a clone copies the current value.
#[derive(Debug, Default)]
pub struct TrainingMode(AtomicBool);

impl TrainingMode {
    /// A flag set to `training`.
    pub fn new(training: bool) -> Self {
        TrainingMode(AtomicBool::new(training))
    }

    /// Whether the module is in training mode.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Turns training mode on or off.
    pub fn set(&self, training: bool) {
        self.0.store(training, Ordering::Relaxed)
    }
}

impl Clone for TrainingMode {
    fn clone(&self) -> Self {
        TrainingMode::new(self.get())
    }
}

/// One thing a walk meets, under its full name (`decoder.attn.linear_query.weight`).
pub enum Leaf<'a> {
    /// A trainable parameter.
    Param(&'a Param),
    /// A tensor PyTorch keeps in the `state_dict` beside the parameters (`register_buffer`):
    /// computed here, not learned (a positional encoding's table).
    Buffer(&'a Tensor),
    /// A training flag.
    Mode(&'a TrainingMode),
}

/// What a module's [`Walk::walk`] is handed: it names the module's own tensors and flags, and its
/// children, each under the name PyTorch gives it. The walker keeps the path of names.
pub struct Walker<'v> {
    prefix: String,
    visit: &'v mut dyn FnMut(&str, Leaf<'_>),
}

impl<'v> Walker<'v> {
    /// Walks `module`, calling `visit` with every leaf and its full name.
    pub fn run<M: Walk + ?Sized>(module: &M, visit: &'v mut dyn FnMut(&str, Leaf<'_>)) {
        module.walk(&mut Walker { prefix: String::new(), visit });
    }

    fn leaf(&mut self, name: &str, leaf: Leaf<'_>) {
        let len = self.prefix.len();
        self.prefix.push_str(name);
        (self.visit)(&self.prefix, leaf);
        self.prefix.truncate(len);
    }

    /// A trainable parameter of this module (`weight`, `bias`, `in_proj_weight`).
    pub fn param(&mut self, name: &str, param: &Param) {
        self.leaf(name, Leaf::Param(param));
    }

    /// A buffer of this module (a positional encoding's `pe`).
    pub fn buffer(&mut self, name: &str, tensor: &Tensor) {
        self.leaf(name, Leaf::Buffer(tensor));
    }

    /// This module's own training flag.
    pub fn mode(&mut self, mode: &TrainingMode) {
        self.leaf("", Leaf::Mode(mode));
    }

    /// A direct child, under its field name (`encoder`, `basic_rnn`).
    pub fn child<M: Walk + ?Sized>(&mut self, name: &str, child: &M) {
        let len = self.prefix.len();
        self.prefix.push_str(name);
        self.prefix.push('.');
        child.walk(self);
        self.prefix.truncate(len);
    }

    /// A list of children, as PyTorch's `nn.ModuleList` names them: `layers.0`, `layers.1`, ...
    pub fn children<'c, M: Walk + 'c>(&mut self, name: &str, children: impl IntoIterator<Item = &'c M>) {
        for (i, child) in children.into_iter().enumerate() {
            self.child(&format!("{name}.{i}"), child);
        }
    }

    /// The items of a list under this walker's path, numbered from 0 (a `Vec` field's walk).
    fn children_here<M: Walk>(&mut self, children: &[M]) {
        for (i, child) in children.iter().enumerate() {
            let len = self.prefix.len();
            self.prefix.push_str(&format!("{i}."));
            child.walk(self);
            self.prefix.truncate(len);
        }
    }
}

/// A layer or model: it names its direct children and its own tensors once, in [`walk`](Self::walk),
/// and gets PyTorch's `nn.Module` methods from that walk.
pub trait Walk {
    /// Names this module's own parameters, buffers and training flag, and its direct children,
    /// in PyTorch's registration order and under PyTorch's names.
    fn walk(&self, w: &mut Walker);

    /// `(name, parameter)` pairs in PyTorch's order, named as in its `state_dict`.
    fn named_parameters(&self) -> NamedParams {
        let mut params = vec![];
        Walker::run(self, &mut |name, leaf| {
            if let Leaf::Param(p) = leaf {
                params.push((name.to_string(), p.clone()));
            }
        });
        params
    }

    /// The parameters alone, in order.
    fn parameters(&self) -> Vec<Param> {
        self.named_parameters().into_iter().map(|(_, v)| v).collect()
    }

    /// Tensors PyTorch keeps in the `state_dict` beside the parameters (`register_buffer`), named
    /// as there (a positional encoding's `pe`): computed, not learned.
    fn named_buffers(&self) -> Vec<(String, Tensor)> {
        let mut buffers = vec![];
        Walker::run(self, &mut |name, leaf| {
            if let Leaf::Buffer(t) = leaf {
                buffers.push((name.to_string(), t.clone()));
            }
        });
        buffers
    }

    /// Switches training mode on or off in this module and every module beneath it (dropout,
    /// teacher forcing). Modules without such behaviour have no flag and ignore it.
    fn set_training(&self, training: bool) {
        Walker::run(self, &mut |_, leaf| {
            if let Leaf::Mode(m) = leaf {
                m.set(training);
            }
        });
    }

    /// Whether any module of the tree is in training mode, as PyTorch's `model.training` after
    /// `train()` (`false` for a tree without training flags).
    fn is_training(&self) -> bool {
        let mut any = false;
        Walker::run(self, &mut |_, leaf| {
            if let Leaf::Mode(m) = leaf {
                any |= m.get();
            }
        });
        any
    }

    /// Training mode, like `model.train()`.
    fn train(&self) {
        self.set_training(true)
    }

    /// Evaluation mode, like `model.eval()`.
    fn eval(&self) {
        self.set_training(false)
    }

    /// Re-makes every parameter that another copy of the crate made with the code running now
    /// (see [`Param::rehome`]). Only evcxr as published links such copies (one per notebook
    /// cell); in a program and under the project's kernel this does nothing.
    fn rehome(&self) -> Result<()> {
        self.parameters().iter().try_for_each(Param::rehome)
    }

    /// The number of trainable values.
    fn count_parameters(&self) -> usize {
        self.parameters().iter().map(Param::elem_count).sum()
    }

    /// Copies of the current values by name, as PyTorch's `state_dict()`: the parameters and the
    /// buffers, in the walk's (PyTorch's registration) order. A positional encoding's holds its
    /// `pe` table alone; [`load_state_dict`](Self::load_state_dict) loads the parameters.
    fn state_dict(&self) -> Result<Vec<(String, Tensor)>> {
        let mut leaves = vec![];
        Walker::run(self, &mut |name, leaf| match leaf {
            Leaf::Param(p) => leaves.push((name.to_string(), p.tensor())),
            Leaf::Buffer(t) => leaves.push((name.to_string(), t.clone())),
            Leaf::Mode(_) => {}
        });
        leaves.into_iter().map(|(n, t)| Ok((n, t.detach().copy()?))).collect()
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
    /// nothing is changed and the error names the parameter and both shapes. Buffers in `state`
    /// (a [`state_dict`](Self::state_dict) holds them) are left alone: they are computed from the
    /// module's configuration, not learned.
    fn load_state_dict(&self, state: &HashMap<String, Tensor>) -> Result<()> {
        self.check_state_dict("load_state_dict", state)?;
        for (name, var) in &self.named_parameters() {
            var.set(&state[name])?;
        }
        Ok(())
    }

    /// Loads a `state_dict` saved by PyTorch, `torch.save(model.state_dict(), path)`, by name:
    /// `model.load_pytorch("encoder.pt")?`. Every parameter must be in the file with its shape
    /// (float64, float16 and bfloat16 are converted, integers refused), the file must hold
    /// nothing else but the module's [buffers](Self::named_buffers) (checked, not loaded), and
    /// one error lists every problem, naming the file; nothing changes unless all checks pass.
    /// The rules in full: [`read_pytorch`](super::read_pytorch).
    fn load_pytorch<P: AsRef<Path>>(&self, path: P) -> Result<()>
    where
        Self: Sized,
    {
        pytorch::load_pytorch_into(path.as_ref(), &self.named_parameters(), &self.named_buffers())
    }
}

impl<M: Walk + ?Sized> Walk for Box<M> {
    fn walk(&self, w: &mut Walker) {
        (**self).walk(w)
    }
}

/// An optional child (a layer only some scoring functions have): walked when present.
impl<M: Walk> Walk for Option<M> {
    fn walk(&self, w: &mut Walker) {
        if let Some(m) = self {
            m.walk(w)
        }
    }
}

/// A list of children, as PyTorch's `nn.ModuleList` names them: `layers.0`, `layers.1`, ...
impl<M: Walk> Walk for Vec<M> {
    fn walk(&self, w: &mut Walker) {
        w.children_here(self)
    }
}

/// What the trainer needs from a model: a forward pass over a batch.
pub trait Model: Walk {
    /// One batch in, predictions out (what `StepByStep` calls).
    ///
    /// # Shapes
    /// - `x`: a batch `(N, ...)` as the model takes it (the lecture's models: `(N, L, F)`)
    /// - returns the predictions `(N, ...)`, shaped like the targets
    fn forward(&mut self, x: &Tensor) -> Result<Tensor>;
}
