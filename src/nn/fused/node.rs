//! The adapters between the kernel wing's kernels and candle's graph: a [`Kernel1`] or
//! [`Kernel3`] works on float32 slices and writes its own backward pass, and [`Node1`] or [`Node3`]
//! makes it a candle `CustomOp1` or `CustomOp3` (the crate's only implementations of those traits). [`XwbKernel`] is the
//! narrower form of the input-weight-bias kernels (linear maps, layer norm), whose backward pass
//! also works on slices.

use super::grad_sink::sink;
use super::in_place::with_f32;
use super::unexpected::unexpected;
use candle_core::{CpuStorage, CustomOp1, CustomOp3, Layout, Result, Shape, Tensor};

/// A fused operation of an input, a weight and a bias on f32 CPU slices, with a hand-written
/// backward pass on slices. [`Fused3`] turns one into a [`Kernel3`], so making the gradients'
/// tensors is written once for every such kernel.
pub(crate) trait XwbKernel: Send + Sync {
    /// The operation's name in candle's graph.
    const NAME: &'static str;
    /// The name its errors carry.
    const OP: &'static str;

    /// The output's values and dims, from the input's dims.
    ///
    /// # Shapes
    /// - `x`: the input's values, dims `x_dims` `(..., n_in)`; `w`, `b`: the weight's and the bias's
    /// - returns the output's values and dims (`(..., n_out)`)
    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Vec<usize>)>;

    /// The gradients `(dx, dw, db)` from the gradient `g` of the output.
    fn backward(&self, x: &[f32], w: &[f32], g: &[f32]) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)>;
}

pub(crate) fn cpu_f32<'a>(op: &str, s: &'a CpuStorage, l: &Layout) -> Result<&'a [f32]> {
    let CpuStorage::F32(data) = s else { return Err(unexpected(format!("{op}: expected f32 storage"))) };
    if l.shape().elem_count() == 0 {
        return Ok(&[]);
    }
    match l.contiguous_offsets() {
        Some((start, end)) => data.get(start..end).ok_or_else(|| unexpected(format!("{op}: storage shorter than its layout"))),
        None => Err(unexpected(format!("{op}: expected a contiguous tensor, got shape {:?} strides {:?}", l.dims(), l.stride()))),
    }
}

pub(crate) fn values(t: &Tensor) -> Result<Vec<f32>> {
    t.flatten_all()?.to_vec1::<f32>()
}

/// A kernel of three float32 CPU inputs with a hand-written backward pass. [`Node3`] makes one a
/// node of candle's graph: the crate's only `impl CustomOp3`, so reading the storages is written
/// once for every such kernel (the linear maps and the layer norm through [`Fused3`], the
/// recurrent cells and sequences, the attention-LSTM decoder).
pub(crate) trait Kernel3: Send + Sync {
    /// The node's name in candle's graph.
    const NAME: &'static str;
    /// The name its errors carry.
    const OP: &'static str;

    /// The output's values and shape from the three inputs' values (each contiguous) and the
    /// first input's dims.
    ///
    /// # Shapes
    /// - `a`, `b`, `c`: the inputs' values, flat; `a_dims` the first input's dims
    /// - returns the output's values, flat, and its shape (the kernel's own)
    fn forward(&self, a: &[f32], b: &[f32], c: &[f32], a_dims: &[usize]) -> Result<(Vec<f32>, Shape)>;

    /// The three inputs' gradients from the output `res` and its gradient `grad`.
    fn backward(
        &self,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)>;
}

/// A [`Kernel3`] as one node of candle's graph.
pub(crate) struct Node3<K>(pub K);

impl<K: Kernel3> CustomOp3 for Node3<K> {
    fn name(&self) -> &'static str {
        K::NAME
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (a, b, c) = (cpu_f32(K::OP, s1, l1)?, cpu_f32(K::OP, s2, l2)?, cpu_f32(K::OP, s3, l3)?);
        let (y, shape) = self.0.forward(a, b, c, l1.dims())?;
        Ok((CpuStorage::F32(y), shape))
    }

    fn bwd(
        &self,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        self.0.backward(a, b, c, res, grad)
    }
}

/// A [`XwbKernel`] as a [`Kernel3`] (apply it as `Node3(Fused3(kernel))`).
pub(crate) struct Fused3<K>(pub K);

impl<K: XwbKernel> Kernel3 for Fused3<K> {
    const NAME: &'static str = K::NAME;
    const OP: &'static str = K::OP;

    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let (y, dims) = self.0.forward(x, w, b, x_dims)?;
        Ok((y, Shape::from(dims)))
    }

    fn backward(
        &self,
        x: &Tensor,
        w: &Tensor,
        b: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let grad = grad.contiguous()?;
        let grads = with_f32(x, |x| with_f32(w, |w| with_f32(&grad, |g| self.0.backward(x, w, g))));
        let (dx, dw, db) = match grads {
            Some(Some(Some(grads))) => grads?,
            _ => self.0.backward(&values(x)?, &values(w)?, &values(&grad)?)?,
        };
        // a parameter's gradients go to the training step's sink where one is open (`grad_sink`)
        Ok((
            Some(Tensor::from_vec(dx, x.shape(), x.device())?),
            sink(w, Tensor::from_vec(dw, w.shape(), w.device())?)?,
            sink(b, Tensor::from_vec(db, b.shape(), b.device())?)?,
        ))
    }
}

/// A kernel of one float32 CPU input with a hand-written backward pass; [`Node1`] makes it a node
/// of candle's graph (the softmaxes, ReLU, the heads' permutation, the cross-entropy's NLL).
pub(crate) trait Kernel1: Send + Sync {
    /// The node's name in candle's graph.
    const NAME: &'static str;
    /// The name its errors carry.
    const OP: &'static str;

    /// The output's values and shape from the input's values (contiguous) and dims.
    ///
    /// # Shapes
    /// - `x`: the input's values, flat, of dims `dims`
    /// - returns the output's values, flat, and its shape (the kernel's own)
    fn forward(&self, x: &[f32], dims: &[usize]) -> Result<(Vec<f32>, Shape)>;

    /// The input's gradient from the input `x`, the output `res` and its gradient `grad`.
    fn backward(&self, x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>>;
}

/// A [`Kernel1`] as one node of candle's graph.
pub(crate) struct Node1<K>(pub K);

impl<K: Kernel1> CustomOp1 for Node1<K> {
    fn name(&self) -> &'static str {
        K::NAME
    }

    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let (y, shape) = self.0.forward(cpu_f32(K::OP, s, l)?, l.dims())?;
        Ok((CpuStorage::F32(y), shape))
    }

    fn bwd(&self, x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        self.0.backward(x, res, grad)
    }
}
