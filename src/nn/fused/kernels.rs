//! Fused CPU kernels for the two operations every model here repeats most: an affine map
//! (`nn.Linear`) and a softmax over the last dimension, each with its backward pass.
//!
//! The models in this crate are tiny (a handful of features, batches of 16), so a training step
//! costs what candle spends per graph node, not arithmetic. Written as tensor operations, a
//! linear layer is five nodes (reshape, transpose, matmul, broadcast add, reshape) and a softmax
//! five more; as custom operations each is one node with a hand-written backward pass. That
//! halves the graph of a self-attention model and makes its training about twice as fast.
//!
//! The arithmetic follows PyTorch's CPU kernels where we measured them bit for bit (the sums of a
//! linear layer with up to six inputs run left to right, products rounded, then the bias is
//! added; a softmax multiplies by the reciprocal of its sum). The math lives in plain functions
//! over slices ([`linear_forward`], [`softmax_rows`], ...); the `CustomOp` types only move data.
//! Other devices and dtypes fall back to candle's tensor operations.

use super::node::{Kernel1, Node1, cpu_f32, values};
use super::unexpected::unexpected;
use crate::nn::fused::in_place::with_f32_pair;
use crate::nn::shape::{Within, check_float};
use candle_core::{CpuStorage, CustomOp2, DType, Device, Layout, Result, Shape, Tensor};

/// Guards the slices a kernel is handed (see `unexpected`): `x` a whole number of rows of `row` values, each other
/// slice exactly its length. Returns the number of rows.
fn whole_rows(op: &str, x: usize, row: usize, others: &[(&str, usize, usize)]) -> Result<usize> {
    if row == 0 || !x.is_multiple_of(row) {
        return Err(unexpected(format!("{op}: expected whole rows of {row} values, got a slice of {x}")));
    }
    for (name, got, want) in others {
        if got != want {
            return Err(unexpected(format!("{op}: expected `{name}` of {want} values, got {got}")));
        }
    }
    Ok(x / row)
}

/// `y[r, o] = sum_k x[r, k] w[o, k] + b[o]`: `x (rows, n_in)`, `w (n_out, n_in)`, `b (n_out)`.
/// Slices of the wrong lengths are an error.
pub fn linear_forward(x: &[f32], w: &[f32], b: &[f32], n_in: usize, n_out: usize) -> Result<Vec<f32>> {
    let weights = n_in.saturating_mul(n_out);
    let rows = whole_rows("linear_forward", x.len(), n_in, &[("w", w.len(), weights), ("b", b.len(), n_out)])?;
    let mut y = Vec::with_capacity(rows * n_out);
    for r in 0..rows {
        let xr = &x[r * n_in..(r + 1) * n_in];
        for o in 0..n_out {
            let wo = &w[o * n_in..(o + 1) * n_in];
            let mut acc = 0f32;
            for k in 0..n_in {
                acc += xr[k] * wo[k];
            }
            y.push(acc + b[o]);
        }
    }
    Ok(y)
}

/// The gradients of [`linear_forward`] from the gradient `g (rows, n_out)` of its output:
/// `(dx (rows, n_in), dw (n_out, n_in), db (n_out))`.
pub fn linear_backward(x: &[f32], w: &[f32], g: &[f32], n_in: usize, n_out: usize) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
    let weights = n_in.saturating_mul(n_out);
    let rows = whole_rows("linear_backward", x.len(), n_in, &[("w", w.len(), weights)])?;
    whole_rows("linear_backward", g.len(), n_out, &[("g rows", g.len() / n_out.max(1), rows)])?;
    let mut dx = vec![0f32; rows * n_in];
    let mut dw = vec![0f32; n_out * n_in];
    let mut db = vec![0f32; n_out];
    for r in 0..rows {
        let gr = &g[r * n_out..(r + 1) * n_out];
        let xr = &x[r * n_in..(r + 1) * n_in];
        let dxr = &mut dx[r * n_in..(r + 1) * n_in];
        for o in 0..n_out {
            let go = gr[o];
            let wo = &w[o * n_in..(o + 1) * n_in];
            let dwo = &mut dw[o * n_in..(o + 1) * n_in];
            for k in 0..n_in {
                dxr[k] += go * wo[k];
                dwo[k] += go * xr[k];
            }
            db[o] += go;
        }
    }
    Ok((dx, dw, db))
}

/// Softmax of each row of `x` (rows of length `n`): subtract the row's maximum, exponentiate,
/// multiply by the reciprocal of the sum. `x` must hold whole rows.
pub fn softmax_rows(x: &[f32], n: usize) -> Result<Vec<f32>> {
    if x.is_empty() {
        return Ok(vec![]);
    }
    whole_rows("softmax_rows", x.len(), n, &[])?;
    let mut y = vec![0f32; x.len()];
    for (xr, yr) in x.chunks(n).zip(y.chunks_mut(n)) {
        let max = xr.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0f32;
        for (yv, xv) in yr.iter_mut().zip(xr) {
            *yv = (xv - max).exp();
            sum += *yv;
        }
        let inv = 1.0 / sum;
        for yv in yr.iter_mut() {
            *yv *= inv;
        }
    }
    Ok(y)
}

/// The gradient of [`softmax_rows`] from its output `y` and the output's gradient `g`:
/// `y * (g - sum(g * y))` row by row.
pub fn softmax_rows_backward(y: &[f32], g: &[f32], n: usize) -> Result<Vec<f32>> {
    if y.is_empty() && g.is_empty() {
        return Ok(vec![]);
    }
    whole_rows("softmax_rows_backward", y.len(), n, &[("g", g.len(), y.len())])?;
    let mut dx = vec![0f32; y.len()];
    for ((yr, gr), dr) in y.chunks(n).zip(g.chunks(n)).zip(dx.chunks_mut(n)) {
        let dot: f32 = yr.iter().zip(gr).map(|(a, b)| a * b).sum();
        for ((d, yv), gv) in dr.iter_mut().zip(yr).zip(gr) {
            *d = yv * (gv - dot);
        }
    }
    Ok(dx)
}

pub(crate) fn fused(t: &[&Tensor]) -> bool {
    t.iter().all(|t| t.dtype() == DType::F32 && matches!(t.device(), Device::Cpu))
}

/// `dims` with its last entry replaced by `n` (the output of a layer of `n` outputs).
pub(crate) fn with_last_dim(dims: &[usize], n: usize) -> Vec<usize> {
    let mut dims = dims.to_vec();
    if let Some(last) = dims.last_mut() {
        *last = n;
    }
    dims
}

/// The widest input a linear layer runs through the fused kernel: the lecture's layers (a few
/// inputs, where PyTorch's sums run left to right and ours match them bit for bit) stay one graph
/// node; wider ones (the Transformer's) go to gemm, candle's blocked matrix product, which is many
/// times faster once a row holds more than a few dozen products.
pub const FUSED_LINEAR_MAX_IN: usize = 16;

/// The sums of the columns of `g (rows, n)`: the gradient of a bias added to every row.
pub fn column_sums(g: &[f32], n: usize) -> Result<Vec<f32>> {
    whole_rows("column_sums", g.len(), n, &[])?;
    let mut sums = vec![0f32; n];
    for row in g.chunks_exact(n) {
        for (s, v) in sums.iter_mut().zip(row) {
            *s += v;
        }
    }
    Ok(sums)
}

/// Adds `b` to every row of `y`, rows of `b.len()` values (what a bias does).
pub(crate) fn add_to_rows(y: &mut [f32], b: &[f32]) {
    if b.is_empty() {
        return;
    }
    for row in y.chunks_exact_mut(b.len()) {
        for (v, bv) in row.iter_mut().zip(b) {
            *v += bv;
        }
    }
}

struct BiasAddOp {
    n: usize,
}

impl CustomOp2 for BiasAddOp {
    fn name(&self) -> &'static str {
        "add-bias"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &Layout, s2: &CpuStorage, l2: &Layout) -> Result<(CpuStorage, Shape)> {
        let (y, b) = (cpu_f32("add_bias", s1, l1)?, cpu_f32("add_bias", s2, l2)?);
        whole_rows("add_bias", y.len(), self.n, &[("bias", b.len(), self.n)])?;
        let mut out = y.to_vec();
        add_to_rows(&mut out, b);
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    fn bwd(&self, _y: &Tensor, b: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let db = column_sums(&values(grad)?, self.n)?;
        Ok((Some(grad.clone()), Some(Tensor::from_vec(db, b.shape(), b.device())?)))
    }
}

/// `y + b` with `b (n)` added to every row of `y (..., n)`; on the CPU in f32 one graph node whose
/// backward sums the gradient's columns in one pass (candle's sum over leading dimensions walks
/// its strides element by element, which made the bias gradients a third of a Transformer step).
pub fn add_bias(y: &Tensor, b: &Tensor) -> Result<Tensor> {
    let Some(&n) = y.dims().last() else { return Err(unexpected("add_bias: expected y (..., n), got a scalar")) };
    if b.dims() != [n] {
        return Err(unexpected(format!("add_bias: expected a bias ({n}) for y {:?}, got {:?}", y.dims(), b.dims())));
    }
    if fused(&[y, b]) {
        return y.contiguous()?.apply_op2(&b.contiguous()?, BiasAddOp { n });
    }
    y.broadcast_add(b)
}

struct SoftmaxOp {
    n: usize,
}

impl Kernel1 for SoftmaxOp {
    const NAME: &'static str = "softmax-last-dim";
    const OP: &'static str = "softmax";

    fn forward(&self, x: &[f32], dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        Ok((softmax_rows(x, self.n)?, Shape::from(dims)))
    }

    fn backward(&self, _x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let dx = with_f32_pair(res, grad, |y, g| softmax_rows_backward(y, g, self.n))??;
        Ok(Some(Tensor::from_vec(dx, res.shape(), res.device())?))
    }
}

/// Softmax over the last dimension, differentiable (one graph node on the CPU in f32).
pub fn softmax_last_dim(x: &Tensor) -> Result<Tensor> {
    check_float(x).within("softmax")?;
    let Some(&n) = x.dims().last() else {
        return Err(unexpected("softmax: expected a tensor with at least one dimension, got a scalar"));
    };
    if fused(&[x]) {
        return x.contiguous()?.apply_op1(Node1(SoftmaxOp { n }));
    }
    candle_nn::ops::softmax(x, candle_core::D::Minus1)
}

struct ReluOp;

impl Kernel1 for ReluOp {
    const NAME: &'static str = "relu";
    const OP: &'static str = "relu";

    fn forward(&self, x: &[f32], dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        Ok((x.iter().map(|v| v.max(0.0)).collect(), Shape::from(dims)))
    }

    /// PyTorch's `threshold_backward`: the gradient where the output is positive, 0 elsewhere.
    fn backward(&self, _x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let dx = with_f32_pair(res, grad, |y, g| y.iter().zip(g).map(|(&y, &g)| if y > 0.0 { g } else { 0.0 }).collect::<Vec<f32>>())?;
        Ok(Some(Tensor::from_vec(dx, res.shape(), res.device())?))
    }
}

/// `max(x, 0)` as one graph node on the CPU in f32 (candle's `relu` records three more nodes for
/// its backward pass: a comparison, a cast and a product); candle's `relu` elsewhere.
pub fn relu(x: &Tensor) -> Result<Tensor> {
    if fused(&[x]) {
        return x.contiguous()?.apply_op1(Node1(ReluOp));
    }
    x.relu()
}
