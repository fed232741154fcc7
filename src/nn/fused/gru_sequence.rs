//! A GRU direction over a whole sequence as one graph node, back-propagating through time
//! inside its own backward pass.
//!
//! With one node a step ([`super::cells`]), candle's backward still meets the hidden weights once
//! a step: every step makes a full `(3H, H)` gradient, and each is added into the sum as a fresh
//! tensor. Here the weight gradient is one product over all steps at the end of the backward
//! pass, `dW = sum_t dgh_t^T h_(t-1)`. The forward runs the float32 operations of the steps
//! (candle's product `h W^T` with the transposed weight, the bias, then [`super::cells`]'s gate
//! arithmetic, whose `exp` and `tanh` are [`super::fast_math`]'s).

use super::cells::{fusable, gru_gates};
use super::dense::{WeightT, rows_times, weight_grads};
use super::node::values;
use super::node::{Kernel3, Node3};
use super::padding::Lengths;
use super::unexpected::unexpected;
use candle_core::{Result, Shape, Tensor};
use std::sync::Mutex;

/// `gi (N, L, 3H)` (input gates, `b_ih` added), `w_hh (3H, H)`, `extra` = `[h0 (N*H); b_hh (3H)]`
/// -> the hidden states of every step, `(N, L, H)`.
struct GruSequence {
    n: usize,
    l: usize,
    h: usize,
    /// Each row's real length when the batch is padded (empty: every row has `L` steps). Past its
    /// length a row's state is carried unchanged and its outputs are zero; those steps are not
    /// computed.
    lengths: Lengths,
    /// What the backward pass needs of every step and unit, kept by the forward pass as
    /// `(L, N, 4H)`: the gates `r`, `z`, `n` and the hidden gate `h_(t-1) W_hn^T + b_hn`
    /// (recomputing them would take the transcendental functions twice).
    kept: Mutex<Vec<f32>>,
}

impl Kernel3 for GruSequence {
    const NAME: &'static str = "gru-sequence";
    const OP: &'static str = "gru sequence";

    fn forward(&self, gi: &[f32], w: &[f32], extra: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let op = Self::OP;
        let (n, l, h) = (self.n, self.l, self.h);
        if gi.len() != n * l * 3 * h || w.len() != 3 * h * h || extra.len() != n * h + 3 * h {
            return Err(unexpected(format!(
                "{op}: expected gates ({n}, {l}, {}), a weight ({}, {h}) and {} state and bias values",
                3 * h,
                3 * h,
                n * h + 3 * h
            )));
        }
        let w_hh_t = WeightT::new(w, 3 * h, h, l)?;
        let (h0, b) = extra.split_at(n * h);
        let mut out = vec![0f32; n * l * h];
        let mut kept = vec![0f32; l * n * 4 * h];
        let mut prev = h0.to_vec();
        for t in 0..l {
            // only the rows still running, side by side
            let rows = self.lengths.rows_at(n, t);
            let gh = w_hh_t.step_gates(&prev, n, &rows, b)?;
            for (a, &i) in rows.iter().enumerate() {
                let (gi, gh) = (&gi[(i * l + t) * 3 * h..(i * l + t + 1) * 3 * h], &gh[a * 3 * h..(a + 1) * 3 * h]);
                // kept: [r | z | n | gh_n] of this step and row
                let (gates, gh_n) = kept[(t * n + i) * 4 * h..(t * n + i + 1) * 4 * h].split_at_mut(3 * h);
                gru_gates(gi, gh, gates);
                gh_n.copy_from_slice(&gh[2 * h..]);
                let (z, nn) = (&gates[h..2 * h], &gates[2 * h..]);
                for j in 0..h {
                    out[(i * l + t) * h + j] = (prev[i * h + j] - nn[j]) * z[j] + nn[j];
                }
            }
            for &i in &rows {
                prev[i * h..(i + 1) * h].copy_from_slice(&out[(i * l + t) * h..(i * l + t + 1) * h]);
            }
        }
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = kept;
        Ok((out, Shape::from((n, l, h))))
    }

    fn backward(
        &self,
        gi: &Tensor,
        w: &Tensor,
        extra: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (n, l, h) = (self.n, self.l, self.h);
        let (out, g, ex) = (values(res)?, values(grad)?, values(extra)?);
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() != l * n * 4 * h || g.len() != n * l * h {
            return Err(unexpected(format!(
                "gru sequence backward: expected {} kept gates and {} gradients, got {} and {}",
                l * n * 4 * h,
                n * l * h,
                kept.len(),
                g.len()
            )));
        }
        let w_rows = w.contiguous()?; // (3H, H): dgh W_hh, read as rows
        let mut dgi = vec![0f32; n * l * 3 * h];
        // every step's dgh, (L*N, 3H), and the state it came from, (L*N, H)
        let (mut dgh_all, mut prev_all) = (vec![0f32; l * n * 3 * h], vec![0f32; l * n * h]);
        let mut dh_next = vec![0f32; n * h];
        for t in (0..l).rev() {
            let mut dh_prev = vec![0f32; n * h];
            for i in 0..n {
                if !self.lengths.runs(i, t) {
                    // a padded step: the state passes through, the zero output takes no gradient
                    dh_prev[i * h..(i + 1) * h].copy_from_slice(&dh_next[i * h..(i + 1) * h]);
                    continue;
                }
                let prev = if t == 0 { &ex[i * h..(i + 1) * h] } else { &out[(i * l + t - 1) * h..(i * l + t) * h] };
                prev_all[(t * n + i) * h..(t * n + i + 1) * h].copy_from_slice(prev);
                let k = &kept[(t * n + i) * 4 * h..(t * n + i + 1) * 4 * h];
                for j in 0..h {
                    let (r, z, nn, ghn) = (k[j], k[h + j], k[2 * h + j], k[3 * h + j]);
                    let gj = g[(i * l + t) * h + j] + dh_next[i * h + j];
                    dh_prev[i * h + j] = gj * z;
                    let dz = gj * (prev[j] - nn);
                    let dn = gj - gj * z;
                    let dn_pre = dn * (1.0 - nn * nn);
                    let dz_pre = dz * (1.0 - z) * z;
                    let dr_pre = dn_pre * ghn * (1.0 - r) * r;
                    let o = (i * l + t) * 3 * h;
                    dgi[o + j] = dr_pre;
                    dgi[o + h + j] = dz_pre;
                    dgi[o + 2 * h + j] = dn_pre;
                    let o = (t * n + i) * 3 * h;
                    dgh_all[o + j] = dr_pre;
                    dgh_all[o + h + j] = dz_pre;
                    dgh_all[o + 2 * h + j] = dn_pre * r;
                }
            }
            // through the hidden weights to the previous state
            let through = rows_times(&dgh_all[t * n * 3 * h..(t + 1) * n * 3 * h], n, &w_rows)?;
            for (d, v) in dh_prev.iter_mut().zip(&through) {
                *d += v;
            }
            dh_next = dh_prev;
        }
        // dW_hh = dgh^T prev over every step at once; db_hh = the column sums of dgh
        let (mut dw, db) = weight_grads(dgh_all, 3 * h, &[(&prev_all, h)])?;
        let mut dextra = dh_next;
        dextra.extend(db);
        let dev = gi.device();
        Ok((Some(Tensor::from_vec(dgi, gi.shape(), dev)?), Some(dw.remove(0)), Some(Tensor::from_vec(dextra, extra.shape(), dev)?)))
    }
}

/// A GRU direction over a whole sequence as one graph node; `None` where the node does not apply
/// (not float32 on the CPU, or a hidden size under
/// [`FUSED_CELL_MIN_HIDDEN`](super::cells::FUSED_CELL_MIN_HIDDEN)): the caller then runs the steps.
/// With `lengths` (a padded batch, each row's real length in `1..=L`), a row stops at its length:
/// its later outputs are zero, its state is carried, and the last state returned is the one at
/// its length.
///
/// # Shapes
/// - `gi`: `(N, L, 3H)` input gates (`b_ih` added); `w_hh`: `(3H, H)`; `b_hh`: `(3H)`; `h0`: `(N, H)`
/// - `lengths`: `None` or `N` lengths
/// - returns the hidden states of every step `(N, L, H)` and the last one `(N, H)`
pub fn gru_sequence(gi: &Tensor, w_hh: &Tensor, b_hh: &Tensor, h0: &Tensor, lengths: Option<&[usize]>) -> Result<Option<(Tensor, Tensor)>> {
    let (n, l, g) = gi.dims3()?;
    let h = h0.dim(1)?;
    if !fusable(h, &[gi, h0]) {
        return Ok(None);
    }
    if g != 3 * h || w_hh.dims() != [3 * h, h] || b_hh.dims() != [3 * h] || h0.dims() != [n, h] {
        return Err(unexpected(format!(
            "gru sequence: gates {:?}, weight {:?}, bias {:?} and state {:?} do not fit",
            gi.dims(),
            w_hh.dims(),
            b_hh.dims(),
            h0.dims()
        )));
    }
    let lengths = Lengths::new("gru sequence", lengths, n, l)?;
    let extra = Tensor::cat(&[h0.flatten_all()?, b_hh.clone()], 0)?;
    let op = GruSequence { n, l, h, lengths: lengths.clone(), kept: Mutex::new(vec![]) };
    let out = gi.contiguous()?.apply_op3(&w_hh.contiguous()?, &extra, Node3(op))?;
    let last = if lengths.is_full() {
        out.narrow(1, l - 1, 1)?.squeeze(1)?.contiguous()?
    } else {
        let at: Vec<u32> = lengths.as_slice().iter().flat_map(|&len| std::iter::repeat_n(len as u32 - 1, h)).collect();
        out.gather(&Tensor::from_vec(at, (n, 1, h), out.device())?, 1)?.squeeze(1)?
    };
    Ok(Some((out, last)))
}
