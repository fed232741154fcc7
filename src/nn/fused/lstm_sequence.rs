//! An LSTM direction over a padded batch as one graph node, back-propagating through time inside
//! its own backward pass (the GRU's is [`super::gru_sequence`]).
//!
//! A sequence shorter than the batch keeps its state through the padded steps and outputs zeros
//! there, as `pack_padded_sequence` makes PyTorch's LSTM do: with `k_t` 1 at a real step and 0 at
//! padding, `h_t = h'_t k_t + h_(t-1) (1 - k_t)` (the same for `c`) and the output is `h'_t k_t`,
//! where `h'_t, c'_t` is the cell's step; the forward pass computes the cell only where `k_t` is 1
//! (padding is each row's length, [`super::padding::Lengths`]). The forward pass runs the float32
//! operations of the step-by-step version in the same order (with [`super::fast_math`]'s `exp` and `tanh`); the
//! hidden weights' gradient is one product over every step at the end of the backward pass.

use super::cells::{fusable, lstm_gates, lstm_unit_backward, tanh_all};
use super::dense::{WeightT, rows_times, weight_grads};
use super::node::values;
use super::node::{Kernel3, Node3};
use super::padding::Lengths;
use super::unexpected::unexpected;
use candle_core::{Result, Shape, Tensor};
use std::sync::Mutex;

/// `gi (N, L, 4H)` (input gates, `b_ih` added), `w_hh (4H, H)`, `extra` =
/// `[h0 (N*H); c0 (N*H); b_hh (4H)]` -> `(N, L + 2, H)`: the outputs of every step, then the
/// final `h` and `c`.
struct LstmSequence {
    n: usize,
    l: usize,
    h: usize,
    /// Each row's real length (a padded batch): `k_t` is 1 within it, 0 past it.
    lengths: Lengths,
    /// Of every step, row and unit, `(L, N, 7H)`: `i, f, g, o, tanh(c'), c_(t-1), h_(t-1)`.
    kept: Mutex<Vec<f32>>,
}

const KEPT: usize = 7;

impl LstmSequence {
    fn sizes(&self) -> (usize, usize, usize, usize) {
        (self.n, self.l, self.h, 2 * self.n * self.h + 4 * self.h)
    }
}

impl Kernel3 for LstmSequence {
    const NAME: &'static str = "lstm-sequence";
    const OP: &'static str = "lstm sequence";

    fn forward(&self, gi: &[f32], w: &[f32], extra: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let op = Self::OP;
        let (n, l, h, extra_len) = self.sizes();
        if gi.len() != n * l * 4 * h || w.len() != 4 * h * h || extra.len() != extra_len {
            return Err(unexpected(format!(
                "{op}: expected gates ({n}, {l}, {}), a weight ({}, {h}) and {extra_len} state and bias values",
                4 * h,
                4 * h
            )));
        }
        let w_hh_t = WeightT::new(w, 4 * h, h, l)?;
        let (mut hs, rest) = (extra[..n * h].to_vec(), &extra[n * h..]);
        let (mut cs, b) = (rest[..n * h].to_vec(), &rest[n * h..]);
        let mut y = vec![0f32; n * (l + 2) * h];
        let mut kept = vec![0f32; l * n * KEPT * h];
        let mut c_new = vec![0f32; h];
        for t in 0..l {
            // A padded step keeps the state and outputs zero: only the rows still running are
            // computed (their `k` is 1, the blend below gives their new state exactly).
            let rows = self.lengths.rows_at(n, t);
            let gh = w_hh_t.step_gates(&hs, n, &rows, b)?;
            for (a, &i) in rows.iter().enumerate() {
                let (gi, gh) = (&gi[(i * l + t) * 4 * h..(i * l + t + 1) * 4 * h], &gh[a * 4 * h..(a + 1) * 4 * h]);
                let k = self.lengths.keep(i, t);
                let not_k = 1.0 - k; // as candle's affine(-1, 1) gives it: exact for k in {0, 1}
                let kp = &mut kept[(t * n + i) * KEPT * h..(t * n + i + 1) * KEPT * h];
                // kept: [i | f | g | o | tanh(c') | c | h] of this step and row
                let (gates, rest) = kp.split_at_mut(4 * h);
                let (tc, rest) = rest.split_at_mut(h);
                let (c_old, h_old) = rest.split_at_mut(h);
                lstm_gates(gi, gh, gates);
                c_old.copy_from_slice(&cs[i * h..(i + 1) * h]);
                h_old.copy_from_slice(&hs[i * h..(i + 1) * h]);
                for j in 0..h {
                    c_new[j] = gates[h + j] * c_old[j] + gates[j] * gates[2 * h + j];
                }
                tanh_all(tc, &c_new);
                for j in 0..h {
                    let h_new = gates[3 * h + j] * tc[j];
                    y[(i * (l + 2) + t) * h + j] = h_new * k;
                    hs[i * h + j] = h_new * k + h_old[j] * not_k;
                    cs[i * h + j] = c_new[j] * k + c_old[j] * not_k;
                }
            }
        }
        for i in 0..n {
            y[(i * (l + 2) + l) * h..(i * (l + 2) + l + 1) * h].copy_from_slice(&hs[i * h..(i + 1) * h]);
            y[(i * (l + 2) + l + 1) * h..(i * (l + 2) + l + 2) * h].copy_from_slice(&cs[i * h..(i + 1) * h]);
        }
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = kept;
        Ok((y, Shape::from((n, l + 2, h))))
    }

    fn backward(
        &self,
        gi: &Tensor,
        w: &Tensor,
        extra: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (n, l, h, extra_len) = self.sizes();
        let g = values(grad)?;
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() != l * n * KEPT * h || g.len() != n * (l + 2) * h || extra.elem_count() != extra_len {
            return Err(unexpected(format!(
                "lstm sequence backward: expected {} kept values and {} gradients, got {} and {}",
                l * n * KEPT * h,
                n * (l + 2) * h,
                kept.len(),
                g.len()
            )));
        }
        let w_rows = w.contiguous()?; // (4H, H): dgh W_hh, read as rows
        let mut dgi = vec![0f32; n * l * 4 * h];
        let (mut dg_all, mut prev_all) = (vec![0f32; l * n * 4 * h], vec![0f32; l * n * h]);
        // the gradients reaching the state after the last step: the final h and c
        let (mut dh, mut dc) = (vec![0f32; n * h], vec![0f32; n * h]);
        for i in 0..n {
            dh[i * h..(i + 1) * h].copy_from_slice(&g[(i * (l + 2) + l) * h..(i * (l + 2) + l + 1) * h]);
            dc[i * h..(i + 1) * h].copy_from_slice(&g[(i * (l + 2) + l + 1) * h..(i * (l + 2) + l + 2) * h]);
        }
        for t in (0..l).rev() {
            let mut dc_prev = vec![0f32; n * h];
            let mut dh_prev = vec![0f32; n * h];
            for i in 0..n {
                let k = self.lengths.keep(i, t);
                let not_k = 1.0 - k; // as candle's affine(-1, 1) gives it: exact for k in {0, 1}
                let kp = &kept[(t * n + i) * KEPT * h..(t * n + i + 1) * KEPT * h];
                for j in 0..h {
                    let v = |slot: usize| kp[slot * h + j];
                    let (ig, fg, gg, og, tc, c_old, h_old) = (v(0), v(1), v(2), v(3), v(4), v(5), v(6));
                    let (dh_t, dc_t) = (dh[i * h + j], dc[i * h + j]);
                    // through the blend and the output
                    let dh_new = dh_t * k + g[(i * (l + 2) + t) * h + j] * k;
                    let dc_new = dc_t * k;
                    let (d, dc_cell) = lstm_unit_backward(dh_new, dc_new, [ig, fg, gg, og], tc, c_old);
                    let o4 = (i * l + t) * 4 * h;
                    for (q, dq) in d.into_iter().enumerate() {
                        dgi[o4 + q * h + j] = dq;
                    }
                    dc_prev[i * h + j] = dc_t * not_k + dc_cell;
                    dh_prev[i * h + j] = dh_t * not_k;
                    prev_all[(t * n + i) * h + j] = h_old;
                }
                let o4 = (i * l + t) * 4 * h;
                dg_all[(t * n + i) * 4 * h..(t * n + i + 1) * 4 * h].copy_from_slice(&dgi[o4..o4 + 4 * h]);
            }
            let through = rows_times(&dg_all[t * n * 4 * h..(t + 1) * n * 4 * h], n, &w_rows)?;
            for (d, v) in dh_prev.iter_mut().zip(&through) {
                *d += v;
            }
            (dh, dc) = (dh_prev, dc_prev);
        }
        let (mut dw, db) = weight_grads(dg_all, 4 * h, &[(&prev_all, h)])?;
        let mut dextra = dh;
        dextra.extend(dc);
        dextra.extend(db);
        let dev = gi.device();
        Ok((Some(Tensor::from_vec(dgi, gi.shape(), dev)?), Some(dw.remove(0)), Some(Tensor::from_vec(dextra, extra.shape(), dev)?)))
    }
}

/// An LSTM direction over a padded batch read front to back, as one graph node; `None` where the
/// node does not apply (not float32 on the CPU, or a hidden size under
/// [`FUSED_CELL_MIN_HIDDEN`](super::cells::FUSED_CELL_MIN_HIDDEN)): the caller then runs the steps.
/// With `lengths` (each row's real length in `1..=L`), a row stops at its length: its later
/// outputs are zero and its final state is the one at its length.
///
/// # Shapes
/// - `gi`: `(N, L, 4H)` input gates (`b_ih` added); `w_hh`: `(4H, H)`; `b_hh`: `(4H)`
/// - `lengths`: `None` or `N` lengths; `h0`, `c0`: `(N, H)`
/// - returns the outputs `(N, L, H)` (zero at padding) and the final `(h, c)`, each `(N, H)`
pub fn lstm_sequence(
    gi: &Tensor,
    w_hh: &Tensor,
    b_hh: &Tensor,
    lengths: Option<&[usize]>,
    h0: &Tensor,
    c0: &Tensor,
) -> Result<Option<(Tensor, (Tensor, Tensor))>> {
    let (n, l, g) = gi.dims3()?;
    let h = h0.dim(1)?;
    if !fusable(h, &[gi, h0, c0]) {
        return Ok(None);
    }
    if g != 4 * h || w_hh.dims() != [4 * h, h] || b_hh.dims() != [4 * h] || h0.dims() != [n, h] || c0.dims() != [n, h] {
        return Err(unexpected(format!(
            "lstm sequence: gates {:?}, weight {:?}, bias {:?} and states {:?}, {:?} do not fit",
            gi.dims(),
            w_hh.dims(),
            b_hh.dims(),
            h0.dims(),
            c0.dims()
        )));
    }
    let lengths = Lengths::new("lstm sequence", lengths, n, l)?;
    let extra = Tensor::cat(&[h0.flatten_all()?, c0.flatten_all()?, b_hh.clone()], 0)?;
    let op = LstmSequence { n, l, h, lengths, kept: Mutex::new(vec![]) };
    let y = gi.contiguous()?.apply_op3(&w_hh.contiguous()?, &extra, Node3(op))?;
    // contiguous copies: later index selects (beam search's rows) refuse strided tensors
    let part = |from: usize, len: usize| y.narrow(1, from, len)?.contiguous();
    Ok(Some((part(0, l)?, (part(l, 1)?.squeeze(1)?, part(l + 1, 1)?.squeeze(1)?))))
}
