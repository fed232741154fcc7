//! The linear map `x W^T + b` as one graph node ([`linear`]): the lecture-sized layers through
//! `kernels`' loops, the wide ones (more than [`super::kernels::FUSED_LINEAR_MAX_IN`] inputs)
//! through [`DenseOp`], whose matrix products call `gemm` exactly as candle's `matmul` does.
//!
//! Written as tensor operations the layer is five nodes (reshape, transposed weight, product,
//! bias, reshape). candle's backward pass starts every node's input gradient as a zeros tensor
//! and adds into it, so each of those nodes costs a fill and an add of its input's size: for a
//! Transformer's output layer (hundreds of rows by the vocabulary) that was more than the
//! products themselves. As one node, only `x`, `W` and `b` receive gradients.
//!
//! The products are the same calls with the same operands and strides as candle's (`x @ W^T`
//! forward, `g @ W` and `x^T @ g` backward, the last one written straight into `W`'s layout), so
//! the values are candle's to the bit and the PyTorch parity of the wide layers is unchanged.

use super::kernels::{FUSED_LINEAR_MAX_IN, add_bias, add_to_rows, column_sums, fused, linear_backward, linear_forward, with_last_dim};
use super::node::{Fused3, Node3, XwbKernel};
use super::transposed::transpose;
use super::unexpected::unexpected;
use candle_core::{CpuStorage, Device, Result, Storage, Tensor};

/// `x W^T + b`: `x (..., n_in)`, `weight (n_out, n_in)`, `bias (n_out)` -> `(..., n_out)`. With a
/// bias, on the CPU in f32, one graph node with its own backward: `kernels`' loops up to
/// [`FUSED_LINEAR_MAX_IN`] inputs, gemm beyond ([`DenseOp`]); otherwise candle's matmul.
pub fn linear(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let (n_out, n_in) = weight.dims2().map_err(|_| crate::nn::shape::shape_error("linear", "a weight (n_out, n_in)", weight.dims()))?;
    if n_in == 0 || x.dims().last() != Some(&n_in) || bias.is_some_and(|b| b.dims() != [n_out]) {
        return Err(unexpected(format!(
            "linear: expected x (..., {n_in}) and bias ({n_out}), got {:?} and {:?}",
            x.dims(),
            bias.map(|b| b.dims())
        )));
    }
    if let Some(b) = bias.filter(|b| fused(&[x, weight, b])) {
        let (x, weight, b) = (x.contiguous()?, weight.contiguous()?, b.contiguous()?);
        return if n_in <= FUSED_LINEAR_MAX_IN {
            x.apply_op3(&weight, &b, Node3(Fused3(LinearOp { n_in, n_out })))
        } else {
            x.apply_op3(&weight, &b, Node3(Fused3(DenseOp { n_in, n_out })))
        };
    }
    let mut dims = x.dims().to_vec();
    let rows = x.elem_count() / n_in;
    if let Some(last) = dims.last_mut() {
        *last = n_out;
    }
    let y = x.reshape((rows, n_in))?.matmul(&weight.t()?)?;
    match bias {
        Some(b) => add_bias(&y, b)?.reshape(dims),
        None => y.reshape(dims),
    }
}

/// A matrix with its row and column strides (in elements) over a slice.
#[derive(Clone, Copy)]
pub(crate) struct Strided<'a> {
    pub(crate) data: &'a [f32],
    pub(crate) rs: usize,
    pub(crate) cs: usize,
}

/// A new `(m, n)` matrix `lhs (m, k) @ rhs (k, n)` laid out with `strides` (row-major `(n, 1)`
/// or column-major `(1, m)`), through gemm with candle's arguments (no accumulation, candle's
/// thread count). The buffer is not zero-filled first: gemm writes each of its `m * n` places
/// before it reads any (and fills it with zeros for `k == 0`).
fn product_new(m: usize, n: usize, k: usize, strides: (usize, usize), lhs: Strided, rhs: Strided) -> Result<Vec<f32>> {
    let Some(size) = m.checked_mul(n) else { return Err(unexpected(format!("dense product: ({m}, {n}) overflows"))) };
    if m > 1 && n > 1 && strides != (n, 1) && strides != (1, m) {
        return Err(unexpected(format!("dense product: strides {strides:?} do not lay out a ({m}, {n}) matrix")));
    }
    let threads = candle_core::utils::get_num_threads();
    let mut dst = Vec::with_capacity(size);
    // SAFETY: the spare capacity holds `size` floats; the strides place the `m * n` elements at
    // `m * n` distinct places below `size` (checked above and in `product_raw`), so all of them
    // are written, and without accumulation gemm reads none before writing it.
    unsafe {
        product_raw(m, n, k, dst.spare_capacity_mut().as_mut_ptr().cast::<f32>(), size, strides, lhs, rhs, false, threads)?;
        dst.set_len(size);
    }
    Ok(dst)
}

/// `dst (m, n) = lhs (m, k) @ rhs (k, n)` (or `dst += ...` with `accumulate`), `dst` with strides
/// `(dst_rs, dst_cs)`, through gemm on at most `threads` threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn product_into(
    m: usize,
    n: usize,
    k: usize,
    dst: &mut [f32],
    dst_strides: (usize, usize),
    lhs: Strided,
    rhs: Strided,
    accumulate: bool,
    threads: usize,
) -> Result<()> {
    // SAFETY: `dst` is valid for reads and writes of its length.
    unsafe { product_raw(m, n, k, dst.as_mut_ptr(), dst.len(), dst_strides, lhs, rhs, accumulate, threads) }
}

/// [`product_into`] for `dst_len` floats at `dst`.
///
/// # Safety
/// `dst` must be valid for writes of `dst_len` floats, and for reads of them with `accumulate`.
#[allow(clippy::too_many_arguments)]
unsafe fn product_raw(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut f32,
    dst_len: usize,
    (dst_rs, dst_cs): (usize, usize),
    lhs: Strided,
    rhs: Strided,
    accumulate: bool,
    threads: usize,
) -> Result<()> {
    // one past the furthest element a (rows, cols) matrix with strides (rs, cs) reaches; None on overflow
    let reach = |rows: usize, cols: usize, rs: usize, cs: usize| -> Option<usize> {
        if rows == 0 || cols == 0 {
            return Some(0);
        }
        (rows - 1).checked_mul(rs)?.checked_add((cols - 1).checked_mul(cs)?)?.checked_add(1)
    };
    let fits = |len: usize, need: Option<usize>| need.is_some_and(|need| len >= need);
    if !fits(dst_len, reach(m, n, dst_rs, dst_cs))
        || !fits(lhs.data.len(), reach(m, k, lhs.rs, lhs.cs))
        || !fits(rhs.data.len(), reach(k, n, rhs.rs, rhs.cs))
    {
        return Err(unexpected(format!("dense product: slices too short for ({m}, {k}) @ ({k}, {n})")));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    // gemm takes signed strides, and writes each element of `dst` once only if no two share a place
    let signed = [dst_rs, dst_cs, lhs.rs, lhs.cs, rhs.rs, rhs.cs].iter().all(|&s| isize::try_from(s).is_ok());
    let disjoint =
        (n == 1 || dst_cs >= 1) && (m == 1 || dst_rs >= 1) && (dst_rs >= dst_cs.saturating_mul(n) || dst_cs >= dst_rs.saturating_mul(m));
    if !signed || !disjoint {
        return Err(unexpected(format!(
            "dense product: strides ({dst_rs}, {dst_cs}) of a ({m}, {n}) result that overlap, or strides past isize"
        )));
    }
    let parallelism = if threads > 1 { gemm::Parallelism::Rayon(threads) } else { gemm::Parallelism::None };
    // SAFETY: the three operands were checked to hold every element the strides reach (`dst` by
    // the caller's promise of `dst_len`), the strides fit isize, and `dst` is written only
    // inside itself, each element by one product.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            dst_cs as isize,
            dst_rs as isize,
            accumulate,
            lhs.data.as_ptr(),
            lhs.cs as isize,
            lhs.rs as isize,
            rhs.data.as_ptr(),
            rhs.cs as isize,
            rhs.rs as isize,
            if accumulate { 1f32 } else { 0f32 },
            1f32,
            false,
            false,
            false,
            parallelism,
        )
    }
    Ok(())
}

/// `a (rows, k)`, rows of a slice, times `rhs (k, cols)`: a new `(rows, cols)` matrix. `op` names
/// the caller in errors.
fn rows_by(op: &str, a: &[f32], rows: usize, k: usize, cols: usize, rhs: Strided) -> Result<Vec<f32>> {
    if Some(a.len()) != rows.checked_mul(k) {
        return Err(unexpected(format!("{op}: expected ({rows}, {k}) values, got {}", a.len())));
    }
    product_new(rows, cols, k, (cols, 1), Strided { data: a, rs: k, cs: 1 }, rhs)
}

/// `a (rows, k) @ b (k, cols)` for a float32 CPU matrix `b` in any strides (a weight or its
/// transposed view): the fused recurrent nodes' products inside their own passes. The same gemm
/// call as candle's `matmul` of the two, without making tensors of the slices; candle's
/// `matmul` for other tensors.
pub(crate) fn rows_times(a: &[f32], rows: usize, b: &Tensor) -> Result<Vec<f32>> {
    let (k, cols) = b.dims2()?;
    {
        let (storage, layout) = b.storage_and_layout();
        if let Storage::Cpu(CpuStorage::F32(data)) = &*storage {
            let (rs, cs) = (layout.stride()[0], layout.stride()[1]);
            let rhs = Strided { data: data.get(layout.start_offset()..).unwrap_or(&[]), rs, cs };
            return rows_by("rows_times", a, rows, k, cols, rhs);
        }
    }
    if Some(a.len()) != rows.checked_mul(k) {
        return Err(unexpected(format!("rows_times: expected ({rows}, {k}) values, got {}", a.len())));
    }
    Tensor::from_slice(a, (rows, k), b.device())?.matmul(b)?.flatten_all()?.to_vec1::<f32>()
}

/// A weight `W (n_out, n_in)`, given as its values, as the right-hand side `W^T (n_in, n_out)` of
/// the fused recurrent nodes' per-step products. gemm repacks a transposed view at every call,
/// which for a step's 16-row product costs about as much as the product (29 us through the view,
/// 16 us through rows, a (16, 128) @ (128, 384) product measured alone): for several products the
/// weight is copied into rows once; for one (a decoding step) the view is read as it is.
pub(crate) struct WeightT<'a> {
    data: std::borrow::Cow<'a, [f32]>,
    n_in: usize,
    n_out: usize,
    /// True when `data` holds `W^T` in rows, false when it is `W` itself.
    rows: bool,
}

impl<'a> WeightT<'a> {
    /// `W^T` for `products` products; an error when `w` is not `n_out * n_in` values.
    pub(crate) fn new(w: &'a [f32], n_out: usize, n_in: usize, products: usize) -> Result<Self> {
        if Some(w.len()) != n_out.checked_mul(n_in) {
            return Err(unexpected(format!("WeightT: expected ({n_out}, {n_in}) values, got {}", w.len())));
        }
        if products <= 1 {
            return Ok(WeightT { data: w.into(), n_in, n_out, rows: false });
        }
        Ok(WeightT { data: transpose(w, n_out, n_in).into(), n_in, n_out, rows: true })
    }

    /// `a (rows, n_in) @ W^T`, `(rows, n_out)`.
    pub(crate) fn times(&self, a: &[f32], rows: usize) -> Result<Vec<f32>> {
        let (k, cols) = (self.n_in, self.n_out);
        let (rs, cs) = if self.rows { (cols, 1) } else { (1, k) };
        rows_by("WeightT::times", a, rows, k, cols, Strided { data: &self.data, rs, cs })
    }

    /// A recurrent step's hidden gates `h W^T + b` for the rows `rows` of the states `h` (`n` rows
    /// of `n_in`), side by side: the rows of a padded batch that take the step (all `n` of them:
    /// the product as it is).
    pub(crate) fn step_gates(&self, states: &[f32], n: usize, rows: &[usize], b: &[f32]) -> Result<Vec<f32>> {
        let mut gates = if rows.len() == n {
            self.times(states, n)?
        } else {
            let k = self.n_in;
            let running: Vec<f32> = rows.iter().flat_map(|&i| states[i * k..(i + 1) * k].iter().copied()).collect();
            self.times(&running, rows.len())?
        };
        add_to_rows(&mut gates, b);
        Ok(gates)
    }
}

/// The weights' and bias's gradients of a recurrent node over all its steps at once, from the
/// gate pre-activations' gradients `dg` (every step's rows stacked, rows of `width`): for each
/// input `x` (as many rows, of its own width) that a weight multiplied, `dW = dgᵀ x`
/// `(width, x_width)`; and `db`, the column sums of `dg`. One product a weight for every step,
/// not one a step.
pub(crate) fn weight_grads(dg: Vec<f32>, width: usize, inputs: &[(&[f32], usize)]) -> Result<(Vec<Tensor>, Vec<f32>)> {
    let rows = dg.len() / width.max(1);
    let db = column_sums(&dg, width)?;
    let dg = Tensor::from_vec(dg, (rows, width), &Device::Cpu)?;
    let dws =
        inputs.iter().map(|&(x, x_width)| dg.t()?.matmul(&Tensor::from_slice(x, (rows, x_width), &Device::Cpu)?)).collect::<Result<_>>()?;
    Ok((dws, db))
}

/// `y (rows, n_out) = x (rows, n_in) @ W^T + b` for `W (n_out, n_in)`.
pub(crate) fn dense_forward(x: &[f32], w: &[f32], b: &[f32], n_in: usize, n_out: usize) -> Result<Vec<f32>> {
    if n_in == 0 || !x.len().is_multiple_of(n_in) || Some(w.len()) != n_in.checked_mul(n_out) || b.len() != n_out {
        return Err(unexpected(format!(
            "dense_forward: expected x (rows, {n_in}), W ({n_out}, {n_in}), b ({n_out}), got {}, {} and {} values",
            x.len(),
            w.len(),
            b.len()
        )));
    }
    let rows = x.len() / n_in;
    let xs = Strided { data: x, rs: n_in, cs: 1 };
    // `W^T` as a view of `W`, or from the step's transposed copy (the same values, read in rows)
    let mut y = super::transposed::with_copy_of(w, n_out, n_in, |copy| {
        let wt = match copy {
            Some(t) => Strided { data: t, rs: n_out, cs: 1 },
            None => Strided { data: w, rs: 1, cs: n_in },
        };
        product_new(rows, n_out, n_in, (n_out, 1), xs, wt)
    })?;
    add_to_rows(&mut y, b);
    Ok(y)
}

/// The gradients `(dx, dW, db)` of [`dense_forward`] from the output's gradient `g (rows, n_out)`.
pub(crate) fn dense_backward(x: &[f32], w: &[f32], g: &[f32], n_in: usize, n_out: usize) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
    let rows = x.len() / n_in.max(1);
    if n_in == 0 || rows * n_in != x.len() || Some(w.len()) != n_in.checked_mul(n_out) || Some(g.len()) != rows.checked_mul(n_out) {
        return Err(unexpected(format!(
            "dense_backward: expected x (rows, {n_in}), W ({n_out}, {n_in}), g (rows, {n_out}), got {}, {} and {} values",
            x.len(),
            w.len(),
            g.len()
        )));
    }
    let gs = Strided { data: g, rs: n_out, cs: 1 };
    let dx = product_new(rows, n_in, n_out, (n_in, 1), gs, Strided { data: w, rs: n_in, cs: 1 })?;
    // candle: (x^T @ g) of shape (n_in, n_out), then transposed; here written transposed.
    let dw = product_new(n_in, n_out, rows, (1, n_in), Strided { data: x, rs: 1, cs: n_in }, gs)?;
    Ok((dx, dw, column_sums(g, n_out)?))
}

/// The lecture-sized linear map as a [`Fused3`] node: [`linear_forward`]'s and
/// [`linear_backward`]'s loops, which keep PyTorch's order of sums.
pub(crate) struct LinearOp {
    pub n_in: usize,
    pub n_out: usize,
}

impl XwbKernel for LinearOp {
    const NAME: &'static str = "linear";
    const OP: &'static str = "linear";

    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Vec<usize>)> {
        let y = linear_forward(x, w, b, self.n_in, self.n_out)?;
        Ok((y, with_last_dim(x_dims, self.n_out)))
    }

    fn backward(&self, x: &[f32], w: &[f32], g: &[f32]) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        linear_backward(x, w, g, self.n_in, self.n_out)
    }
}

/// The node's kernel (a [`Fused3`] node): `x (..., n_in)`, `W (n_out, n_in)`, `b (n_out)`, all
/// contiguous f32 on the CPU.
pub(crate) struct DenseOp {
    pub n_in: usize,
    pub n_out: usize,
}

impl XwbKernel for DenseOp {
    const NAME: &'static str = "dense-linear";
    const OP: &'static str = "dense";

    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Vec<usize>)> {
        let y = dense_forward(x, w, b, self.n_in, self.n_out)?;
        Ok((y, with_last_dim(x_dims, self.n_out)))
    }

    fn backward(&self, x: &[f32], w: &[f32], g: &[f32]) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        dense_backward(x, w, g, self.n_in, self.n_out)
    }
}
