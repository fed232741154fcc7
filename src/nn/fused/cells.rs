//! Fused recurrent cell steps: one LSTM time step as a single graph node with its own backward
//! pass, and the gate arithmetic the whole-sequence nodes share ([`super::gru_sequence`],
//! [`super::lstm_sequence`]).
//!
//! Written as tensor operations, an LSTM step past its two matrix products is a dozen candle nodes
//! (slices, sums, three sigmoids of four nodes each, two tanh, products) and its backward twice as
//! many, each allocating its result; for the translators' batches of 32 by 128 units those nodes,
//! not arithmetic, were most of a training step. Here the gate arithmetic of a step is one node
//! whose forward runs the composed version's float32 operations in the same order, but for `exp`
//! and `tanh`, taken from [`super::fast_math`] (a few ulps from libm's; libm's `tanhf` was 11-14%
//! of a translator's training step): the outputs agree within 1e-6. Its backward is PyTorch's
//! (`sigmoid_backward`: `g (1 - y) y`; `tanh_backward`: `g (1 - y^2)`).
//!
//! The lecture's models (hidden sizes 2 and 3, below [`FUSED_CELL_MIN_HIDDEN`]) keep the composed
//! version, whose gradients their 100-epoch trainings match PyTorch's with; so do other dtypes
//! and devices.

use super::fast_math::{sigmoid, tanh, with_simd};
use super::kernels::fused;
use super::node::values;
use super::node::{Kernel3, Node3};
use super::unexpected::unexpected;
use candle_core::{Result, Shape, Tensor};
use std::sync::Mutex;

/// The smallest hidden size whose steps run as one fused node.
pub const FUSED_CELL_MIN_HIDDEN: usize = 8;

/// Whether a step of hidden size `h` over these tensors runs fused.
pub(crate) fn fusable(h: usize, t: &[&Tensor]) -> bool {
    h >= FUSED_CELL_MIN_HIDDEN && fused(t)
}

/// Rows of `n` values, the number of rows, and that every slice has as many rows.
fn rows(op: &str, h: usize, parts: &[(&[f32], usize)]) -> Result<usize> {
    let n = parts[0].0.len() / (parts[0].1 * h).max(1);
    for (s, width) in parts {
        if s.len() != n * width * h {
            return Err(unexpected(format!("{op}: expected {n} rows of {} values, got {} values", width * h, s.len())));
        }
    }
    Ok(n)
}

// The gate functions below run over a whole row, one gate at a time, on equal-length slices: loops
// the compiler vectorises (one unit at a time, the transcendental functions ran one value at a time).

/// `out[j] = f(a[j] + b[j])`.
#[inline(always)]
fn gate(out: &mut [f32], a: &[f32], b: &[f32], f: impl Fn(f32) -> f32) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x + y);
    }
}

with_simd!(
    /// One row's GRU gates `[r | z | n]` (`3H`) from its input and hidden gates `gi`, `gh` (`3H`):
    /// `r = sigmoid(gi_r + gh_r)`, `z = sigmoid(gi_z + gh_z)`, `n = tanh(gi_n + gh_n r)`.
    pub(crate) fn gru_gates(gi: &[f32], gh: &[f32], out: &mut [f32]) => gru_gates_body
);

#[inline(always)]
fn gru_gates_body(gi: &[f32], gh: &[f32], out: &mut [f32]) {
    let h = out.len() / 3;
    let (r, rest) = out.split_at_mut(h);
    let (z, n) = rest.split_at_mut(h);
    gate(r, &gi[..h], &gh[..h], sigmoid);
    gate(z, &gi[h..2 * h], &gh[h..2 * h], sigmoid);
    for (((nv, &x), &y), &rv) in n.iter_mut().zip(&gi[2 * h..3 * h]).zip(&gh[2 * h..3 * h]).zip(r.iter()) {
        *nv = tanh(x + y * rv);
    }
}

with_simd!(
    /// `out[j] = tanh(c[j])`.
    pub(crate) fn tanh_all(out: &mut [f32], c: &[f32]) => tanh_all_body
);

#[inline(always)]
fn tanh_all_body(out: &mut [f32], c: &[f32]) {
    for (o, &x) in out.iter_mut().zip(c) {
        *o = tanh(x);
    }
}

/// The LSTM step's gate arithmetic: `gi`, `gh (N, 4H)`, `c (N, H)` -> `[h' | c'] (N, 2H)`.
struct LstmStep {
    h: usize,
    /// `i, f, g, o, tanh(c')` of every row and unit, `(N, 5H)`, kept by the forward pass for the
    /// backward one (recomputing them would take the transcendental functions twice).
    kept: Mutex<Vec<f32>>,
}

with_simd!(
    /// One row's LSTM gates `[i | f | g | o]` (`4H`) from its input and hidden gates `gi`, `gh`
    /// (`4H`): the sigmoid of `gi + gh` for `i`, `f`, `o`, its tanh for `g`.
    pub(crate) fn lstm_gates(gi: &[f32], gh: &[f32], out: &mut [f32]) => lstm_gates_body
);

#[inline(always)]
fn lstm_gates_body(gi: &[f32], gh: &[f32], out: &mut [f32]) {
    let h = out.len() / 4;
    for (q, ((o, a), b)) in out.chunks_exact_mut(h.max(1)).zip(gi.chunks_exact(h.max(1))).zip(gh.chunks_exact(h.max(1))).enumerate() {
        if q == 2 { gate(o, a, b, tanh) } else { gate(o, a, b, sigmoid) }
    }
}

/// One unit of an LSTM cell's backward pass, `h' = o tanh(c')` and `c' = f c + i g`: from the
/// gradients `dh`, `dc` reaching `h'` and `c'`, the unit's gates `[i, f, g, o]`, `tc = tanh(c')` and
/// the old `c`, the gradients of the four gates' pre-activations and the part of the old `c`'s
/// gradient that goes through the cell. Every LSTM node's backward pass (the step, the sequence,
/// the attention decoder) goes through it.
#[inline(always)]
pub(crate) fn lstm_unit_backward(dh: f32, dc: f32, [i, f, g, o]: [f32; 4], tc: f32, c_old: f32) -> ([f32; 4], f32) {
    let d_o = dh * tc;
    let dcc = dc + (dh * o) * (1.0 - tc * tc);
    ([(dcc * g) * (1.0 - i) * i, (dcc * c_old) * (1.0 - f) * f, (dcc * i) * (1.0 - g * g), d_o * (1.0 - o) * o], dcc * f)
}

impl Kernel3 for LstmStep {
    const NAME: &'static str = "lstm-step";
    const OP: &'static str = "lstm step";

    fn forward(&self, gi: &[f32], gh: &[f32], cp: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let op = Self::OP;
        let h = self.h;
        let n = rows(op, h, &[(gi, 4), (gh, 4), (cp, 1)])?;
        let (mut out, mut kept) = (vec![0f32; n * 2 * h], vec![0f32; n * 5 * h]);
        for row in 0..n {
            let (gi, gh) = (&gi[row * 4 * h..(row + 1) * 4 * h], &gh[row * 4 * h..(row + 1) * 4 * h]);
            let (gates, tc) = kept[row * 5 * h..(row + 1) * 5 * h].split_at_mut(4 * h);
            lstm_gates(gi, gh, gates);
            let (hc, cp) = (&mut out[row * 2 * h..(row + 1) * 2 * h], &cp[row * h..(row + 1) * h]);
            for j in 0..h {
                hc[h + j] = gates[h + j] * cp[j] + gates[j] * gates[2 * h + j];
            }
            tanh_all(tc, &hc[h..]);
            for j in 0..h {
                hc[j] = gates[3 * h + j] * tc[j];
            }
        }
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = kept;
        Ok((out, Shape::from((n, 2 * h))))
    }

    fn backward(
        &self,
        gi: &Tensor,
        _gh: &Tensor,
        cp: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (cp_v, g) = (values(cp)?, values(grad)?);
        let h = self.h;
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let n = rows("lstm step backward", h, &[(&kept, 5), (&cp_v, 1), (&g, 2)])?;
        let (mut dgates, mut dc_prev) = (vec![0f32; n * 4 * h], vec![0f32; n * h]);
        for row in 0..n {
            let (o4, o2, o1, k) = (row * 4 * h, row * 2 * h, row * h, &kept[row * 5 * h..(row + 1) * 5 * h]);
            for j in 0..h {
                let gates = [k[j], k[h + j], k[2 * h + j], k[3 * h + j]];
                let (d, dc) = lstm_unit_backward(g[o2 + j], g[o2 + h + j], gates, k[4 * h + j], cp_v[o1 + j]);
                dc_prev[o1 + j] = dc;
                for (q, dq) in d.into_iter().enumerate() {
                    dgates[o4 + q * h + j] = dq;
                }
            }
        }
        let dev = gi.device();
        let dgates = Tensor::from_vec(dgates, gi.shape(), dev)?;
        Ok((Some(dgates.clone()), Some(dgates), Some(Tensor::from_vec(dc_prev, cp.shape(), dev)?)))
    }
}

/// One LSTM step's gate arithmetic (`c' = f * c + i * g`, `h' = o * tanh(c')`) as one graph node,
/// or `None` where the node does not apply (not float32 on the CPU, or a hidden size under
/// [`FUSED_CELL_MIN_HIDDEN`]): `nn::lstm_cell` then composes it of candle's operations.
///
/// # Shapes
/// - `gi`, `gh`: `(N, 4H)` input and hidden gates `i, f, g, o` (biases added); `c`: `(N, H)`
/// - returns `(h', c')`, each `(N, H)`
pub(crate) fn lstm_step_node(gi: &Tensor, gh: &Tensor, c: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
    let hd = c.dim(1)?;
    if !fusable(hd, &[gi, gh, c]) {
        return Ok(None);
    }
    let op = Node3(LstmStep { h: hd, kept: Mutex::new(vec![]) });
    let both = gi.contiguous()?.apply_op3(&gh.contiguous()?, &c.contiguous()?, op)?;
    Ok(Some((both.narrow(1, 0, hd)?, both.narrow(1, hd, hd)?)))
}
