//! An LSTM direction over a padded batch as one graph node, back-propagating through time inside
//! its own backward pass (the GRU's is [`super::gru_sequence`]).
//!
//! A sequence shorter than the batch keeps its state through the padded steps and outputs zeros
//! there, as `pack_padded_sequence` makes PyTorch's LSTM do: with `k_t` 1 at a real step and 0 at
//! padding, `h_t = h'_t k_t + h_(t-1) (1 - k_t)` (the same for `c`) and the output is `h'_t k_t`,
//! where `h'_t, c'_t` is the cell's step; the forward pass computes the cell only where `k_t` is 1. The forward pass runs the float32 operations of the
//! step-by-step version in the same order (with [`super::fast_math`]'s `exp` and `tanh`); the
//! hidden weights' gradient is one product over every step at the end of the backward pass.

use super::cells::{lstm_gates, tanh_all};
use super::dense::{WeightT, rows_times};
use super::kernels::{add_to_rows, column_sums, cpu_f32, values};
use candle_core::{CpuStorage, CustomOp3, Device, Layout, Result, Shape, Tensor, bail};
use std::sync::Mutex;

/// `gi (N, L, 4H)` (input gates, `b_ih` added), `w_hh (4H, H)`, `extra` =
/// `[h0 (N*H); c0 (N*H); b_hh (4H); keep (N*L)]` -> `(N, L + 2, H)`: the outputs of every step,
/// then the final `h` and `c`.
struct LstmSequence {
    n: usize,
    l: usize,
    h: usize,
    /// Of every step, row and unit, `(L, N, 7H)`: `i, f, g, o, tanh(c'), c_(t-1), h_(t-1)`.
    kept: Mutex<Vec<f32>>,
}

const KEPT: usize = 7;

impl LstmSequence {
    fn sizes(&self) -> (usize, usize, usize, usize) {
        (self.n, self.l, self.h, 2 * self.n * self.h + 4 * self.h + self.n * self.l)
    }
}

impl CustomOp3 for LstmSequence {
    fn name(&self) -> &'static str {
        "lstm-sequence"
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
        let op = "lstm sequence";
        let (gi, w, extra) = (cpu_f32(op, s1, l1)?, cpu_f32(op, s2, l2)?, cpu_f32(op, s3, l3)?);
        let (n, l, h, extra_len) = self.sizes();
        if gi.len() != n * l * 4 * h || w.len() != 4 * h * h || extra.len() != extra_len {
            bail!("{op}: expected gates ({n}, {l}, {}), a weight ({}, {h}) and {extra_len} state, bias and mask values", 4 * h, 4 * h)
        }
        let w_hh_t = WeightT::new(w, 4 * h, h, l)?;
        let (mut hs, rest) = (extra[..n * h].to_vec(), &extra[n * h..]);
        let (mut cs, b, keep) = (rest[..n * h].to_vec(), &rest[n * h..n * h + 4 * h], &rest[n * h + 4 * h..]);
        let mut y = vec![0f32; n * (l + 2) * h];
        let mut kept = vec![0f32; l * n * KEPT * h];
        let mut c_new = vec![0f32; h];
        for t in 0..l {
            // A padded step keeps the state and outputs zero: only the rows still running are
            // computed (their `k` is 1, the blend below gives their new state exactly).
            let rows: Vec<usize> = (0..n).filter(|&i| keep[i * l + t] != 0.0).collect();
            let mut gh = if rows.len() == n {
                w_hh_t.times(&hs, n)?
            } else {
                let running: Vec<f32> = rows.iter().flat_map(|&i| hs[i * h..(i + 1) * h].iter().copied()).collect();
                w_hh_t.times(&running, rows.len())?
            };
            add_to_rows(&mut gh, b);
            for (a, &i) in rows.iter().enumerate() {
                let (gi, gh) = (&gi[(i * l + t) * 4 * h..(i * l + t + 1) * 4 * h], &gh[a * 4 * h..(a + 1) * 4 * h]);
                let k = keep[i * l + t];
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
        Ok((CpuStorage::F32(y), Shape::from((n, l + 2, h))))
    }

    fn bwd(
        &self,
        gi: &Tensor,
        w: &Tensor,
        extra: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let (n, l, h, extra_len) = self.sizes();
        let (g, ex) = (values(grad)?, values(extra)?);
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() != l * n * KEPT * h || g.len() != n * (l + 2) * h || ex.len() != extra_len {
            bail!(
                "lstm sequence backward: expected {} kept values and {} gradients, got {} and {}",
                l * n * KEPT * h,
                n * (l + 2) * h,
                kept.len(),
                g.len()
            )
        }
        let keep = &ex[2 * n * h + 4 * h..];
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
                let k = keep[i * l + t];
                let not_k = 1.0 - k; // as candle's affine(-1, 1) gives it: exact for k in {0, 1}
                let kp = &kept[(t * n + i) * KEPT * h..(t * n + i + 1) * KEPT * h];
                for j in 0..h {
                    let v = |slot: usize| kp[slot * h + j];
                    let (ig, fg, gg, og, tc, c_old, h_old) = (v(0), v(1), v(2), v(3), v(4), v(5), v(6));
                    let (dh_t, dc_t) = (dh[i * h + j], dc[i * h + j]);
                    // through the blend and the output
                    let dh_new = dh_t * k + g[(i * (l + 2) + t) * h + j] * k;
                    let dc_new = dc_t * k;
                    // through the cell: h' = o tanh(c'), c' = f c + i g
                    let d_o = dh_new * tc;
                    let dcc = dc_new + (dh_new * og) * (1.0 - tc * tc);
                    let o4 = (i * l + t) * 4 * h;
                    dgi[o4 + j] = (dcc * gg) * (1.0 - ig) * ig;
                    dgi[o4 + h + j] = (dcc * c_old) * (1.0 - fg) * fg;
                    dgi[o4 + 2 * h + j] = (dcc * ig) * (1.0 - gg * gg);
                    dgi[o4 + 3 * h + j] = d_o * (1.0 - og) * og;
                    dc_prev[i * h + j] = dc_t * not_k + dcc * fg;
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
        let dgates = Tensor::from_vec(dg_all, (l * n, 4 * h), &Device::Cpu)?;
        let dw = dgates.t()?.matmul(&Tensor::from_vec(prev_all, (l * n, h), &Device::Cpu)?)?;
        let db = column_sums(&dgates.flatten_all()?.to_vec1::<f32>()?, 4 * h)?;
        let mut dextra = dh;
        dextra.extend(dc);
        dextra.extend(db);
        dextra.extend(std::iter::repeat_n(0f32, n * l)); // the mask takes no gradient
        let dev = gi.device();
        Ok((Some(Tensor::from_vec(dgi, gi.shape(), dev)?), Some(dw), Some(Tensor::from_vec(dextra, extra.shape(), dev)?)))
    }
}

/// An LSTM direction over a padded batch read front to back, as one graph node.
///
/// # Shapes
/// - `gi`: `(N, L, 4H)` input gates (`b_ih` added); `w_hh`: `(4H, H)`; `b_hh`: `(4H)`
/// - `keep`: `(N, L)`, 1 at real steps and 0 at padding; `h0`, `c0`: `(N, H)`
/// - returns the outputs `(N, L, H)` (zero at padding) and the final `(h, c)`, each `(N, H)`
pub fn lstm_sequence(
    gi: &Tensor,
    w_hh: &Tensor,
    b_hh: &Tensor,
    keep: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
) -> Result<(Tensor, (Tensor, Tensor))> {
    let (n, l, g) = gi.dims3()?;
    let h = h0.dim(1)?;
    if g != 4 * h
        || w_hh.dims() != [4 * h, h]
        || b_hh.dims() != [4 * h]
        || keep.dims() != [n, l]
        || h0.dims() != [n, h]
        || c0.dims() != [n, h]
    {
        bail!(
            "lstm sequence: gates {:?}, weight {:?}, bias {:?}, mask {:?} and states {:?}, {:?} do not fit",
            gi.dims(),
            w_hh.dims(),
            b_hh.dims(),
            keep.dims(),
            h0.dims(),
            c0.dims()
        )
    }
    let extra = Tensor::cat(&[h0.flatten_all()?, c0.flatten_all()?, b_hh.clone(), keep.flatten_all()?], 0)?;
    let op = LstmSequence { n, l, h, kept: Mutex::new(vec![]) };
    let y = gi.contiguous()?.apply_op3(&w_hh.contiguous()?, &extra, op)?;
    // contiguous copies: later index selects (beam search's rows) refuse strided tensors
    let part = |from: usize, len: usize| y.narrow(1, from, len)?.contiguous();
    Ok((part(0, l)?, (part(l, 1)?.squeeze(1)?, part(l + 1, 1)?.squeeze(1)?)))
}
