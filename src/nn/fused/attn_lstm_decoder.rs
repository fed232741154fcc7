//! The attention decoder over a whole teacher-forced target as one graph node, back-propagating
//! through time inside its own backward pass.
//!
//! Step by step, every target position uses the cell's two weight matrices, the keys and the
//! encoder's outputs once more, and candle's backward adds each use's gradient into a fresh tensor:
//! for the translator's batches that was a quarter of a training step. Here the weights' gradients
//! are one product each over every step at the end. The arithmetic is the step's
//! (`AttnLstmDecoder::step` in `models::lstm_translation`): scores `k_s . h / sqrt(H)` plus the mask, a softmax, the
//! context, then the cell on `[embedding; context]`; matrix products go through candle, so sums
//! may round in another order than the step-by-step graph's (within float32 rounding).

use super::cells::{fusable, lstm_gates, lstm_unit_backward, tanh_all};
use super::dense::{WeightT, rows_times, weight_grads};
use super::kernels::{add_to_rows, softmax_rows, softmax_rows_backward};
use super::node::values;
use super::node::{Kernel3, Node3};
use super::unexpected::unexpected;
use crate::nn::rnn::RnnWeights;
use candle_core::{Device, Result, Shape, Tensor};
use std::sync::Mutex;

/// Sizes: batch, target steps, source positions, embedding and hidden widths.
#[derive(Clone, Copy)]
struct Sizes {
    n: usize,
    t: usize,
    s: usize,
    e: usize,
    h: usize,
}

impl Sizes {
    /// Offsets in the flat parameter tensor: `[W_ih; W_hh; b_ih; b_hh; h0; c0; mask]`.
    fn offsets(&self) -> [usize; 8] {
        let Sizes { n, s, e, h, .. } = *self;
        let mut o = [0; 8];
        let lens = [4 * h * (e + h), 4 * h * h, 4 * h, 4 * h, n * h, n * h, n * s];
        for k in 0..7 {
            o[k + 1] = o[k] + lens[k];
        }
        o
    }
}

/// What the backward pass needs of one step and row: the cell's input `[emb; ctx]`, the states
/// it started from, its gates and `tanh(c')`, and the attention weights.
struct Kept {
    x: Vec<f32>,
    h_prev: Vec<f32>,
    c_prev: Vec<f32>,
    gates: Vec<f32>,
    alphas: Vec<f32>,
}

/// `emb (N, T, E)`, `memory (N, S, 2H)` (keys, then the encoder's outputs), `params` (flat, see
/// [`Sizes::offsets`]) -> `(N, T, H + S)`: each step's hidden state, then its attention weights.
struct AttnLstmSequence {
    sizes: Sizes,
    kept: Mutex<Option<Kept>>,
}

impl Kernel3 for AttnLstmSequence {
    const NAME: &'static str = "attn-lstm-sequence";
    const OP: &'static str = "attention LSTM decoder";

    fn forward(&self, emb: &[f32], mem: &[f32], p: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let op = Self::OP;
        let Sizes { n, t, s, e, h } = self.sizes;
        let o = self.sizes.offsets();
        if emb.len() != n * t * e || mem.len() != n * s * 2 * h || p.len() != o[7] {
            return Err(unexpected(format!(
                "{op}: expected ({n}, {t}, {e}) embeddings, ({n}, {s}, {}) keys and outputs and {} parameters",
                2 * h,
                o[7]
            )));
        }
        let w_ih_t = WeightT::new(&p[o[0]..o[1]], 4 * h, e + h, t)?;
        let w_hh_t = WeightT::new(&p[o[1]..o[2]], 4 * h, h, t)?;
        let (b_ih, b_hh, mask) = (&p[o[2]..o[3]], &p[o[3]..o[4]], &p[o[6]..o[7]]);
        let (mut hs, mut cs) = (p[o[4]..o[5]].to_vec(), p[o[5]..o[6]].to_vec());
        let inv_scale = (1.0 / (h as f64).sqrt()) as f32;
        let mut y = vec![0f32; n * t * (h + s)];
        let mut kept = Kept { x: vec![], h_prev: vec![], c_prev: vec![], gates: vec![], alphas: vec![] };
        let (mut gates, mut tcs) = (vec![0f32; 4 * h], vec![0f32; h]);
        for step in 0..t {
            let mut scores = vec![0f32; n * s];
            for i in 0..n {
                for k in 0..s {
                    let key = &mem[(i * s + k) * 2 * h..(i * s + k) * 2 * h + h];
                    let dot: f32 = key.iter().zip(&hs[i * h..(i + 1) * h]).map(|(a, b)| a * b).sum();
                    scores[i * s + k] = dot * inv_scale + mask[i * s + k];
                }
            }
            let alphas = softmax_rows(&scores, s)?;
            let mut x = vec![0f32; n * (e + h)];
            for i in 0..n {
                x[i * (e + h)..i * (e + h) + e].copy_from_slice(&emb[(i * t + step) * e..(i * t + step + 1) * e]);
                let ctx = &mut x[i * (e + h) + e..(i + 1) * (e + h)];
                for k in 0..s {
                    let (a, out) = (alphas[i * s + k], &mem[(i * s + k) * 2 * h + h..(i * s + k + 1) * 2 * h]);
                    for (cv, ov) in ctx.iter_mut().zip(out) {
                        *cv += a * ov;
                    }
                }
            }
            let (mut gi, mut gh) = (w_ih_t.times(&x, n)?, w_hh_t.times(&hs, n)?);
            add_to_rows(&mut gi, b_ih);
            add_to_rows(&mut gh, b_hh);
            kept.h_prev.extend_from_slice(&hs);
            kept.c_prev.extend_from_slice(&cs);
            for i in 0..n {
                lstm_gates(&gi[i * 4 * h..(i + 1) * 4 * h], &gh[i * 4 * h..(i + 1) * 4 * h], &mut gates);
                let (c, tc) = (&mut cs[i * h..(i + 1) * h], &mut tcs[..]);
                for j in 0..h {
                    c[j] = gates[h + j] * c[j] + gates[j] * gates[2 * h + j];
                }
                tanh_all(tc, c);
                for j in 0..h {
                    hs[i * h + j] = gates[3 * h + j] * tc[j];
                    kept.gates.extend_from_slice(&[gates[j], gates[h + j], gates[2 * h + j], gates[3 * h + j], tc[j]]);
                }
                let row = (i * t + step) * (h + s);
                y[row..row + h].copy_from_slice(&hs[i * h..(i + 1) * h]);
                y[row + h..row + h + s].copy_from_slice(&alphas[i * s..(i + 1) * s]);
            }
            kept.x.extend_from_slice(&x);
            kept.alphas.extend_from_slice(&alphas);
        }
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept);
        Ok((y, Shape::from((n, t, h + s))))
    }

    fn backward(
        &self,
        emb: &Tensor,
        mem: &Tensor,
        params: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let Sizes { n, t, s, e, h } = self.sizes;
        let o = self.sizes.offsets();
        let (g, m, p) = (values(grad)?, values(mem)?, values(params)?);
        let guard = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let Some(kept) = guard.as_ref() else {
            return Err(unexpected("attention LSTM decoder backward: the forward pass kept nothing"));
        };
        if g.len() != n * t * (h + s) || kept.gates.len() != t * n * h * 5 {
            return Err(unexpected(format!("attention LSTM decoder backward: expected {} gradients, got {}", n * t * (h + s), g.len())));
        }
        let w_ih = Tensor::from_slice(&p[o[0]..o[1]], (4 * h, e + h), &Device::Cpu)?;
        let w_hh = Tensor::from_slice(&p[o[1]..o[2]], (4 * h, h), &Device::Cpu)?;
        let inv_scale = (1.0 / (h as f64).sqrt()) as f32;
        let (mut demb, mut dmem) = (vec![0f32; n * t * e], vec![0f32; n * s * 2 * h]);
        let mut dgates_all = vec![0f32; t * n * 4 * h];
        let (mut dh, mut dc) = (vec![0f32; n * h], vec![0f32; n * h]);
        for step in (0..t).rev() {
            let dgates = &mut dgates_all[step * n * 4 * h..(step + 1) * n * 4 * h];
            let mut dc_prev = vec![0f32; n * h];
            for i in 0..n {
                for j in 0..h {
                    let k5 = ((step * n + i) * h + j) * 5;
                    let [ig, fg, gg, og, tc] = [0, 1, 2, 3, 4].map(|q| kept.gates[k5 + q]);
                    let dh_t = g[(i * t + step) * (h + s) + j] + dh[i * h + j];
                    let c_prev = kept.c_prev[(step * n + i) * h + j];
                    let (d, dc_cell) = lstm_unit_backward(dh_t, dc[i * h + j], [ig, fg, gg, og], tc, c_prev);
                    for (q, dq) in d.into_iter().enumerate() {
                        dgates[i * 4 * h + q * h + j] = dq;
                    }
                    dc_prev[i * h + j] = dc_cell;
                }
            }
            let dx = rows_times(dgates, n, &w_ih)?; // (N, E + H)
            let mut dh_prev = rows_times(dgates, n, &w_hh)?; // (N, H)
            let alphas = &kept.alphas[step * n * s..(step + 1) * n * s];
            let mut dalpha = vec![0f32; n * s];
            for i in 0..n {
                demb[(i * t + step) * e..(i * t + step + 1) * e].copy_from_slice(&dx[i * (e + h)..i * (e + h) + e]);
                let dctx = &dx[i * (e + h) + e..(i + 1) * (e + h)];
                for k in 0..s {
                    let base = (i * s + k) * 2 * h;
                    let out = &m[base + h..base + 2 * h];
                    dalpha[i * s + k] = dctx.iter().zip(out).map(|(a, b)| a * b).sum::<f32>() + g[(i * t + step) * (h + s) + h + k];
                    let a = alphas[i * s + k];
                    dmem[base + h..base + 2 * h].iter_mut().zip(dctx).for_each(|(d, v)| *d += a * v);
                }
            }
            let dscores = softmax_rows_backward(alphas, &dalpha, s)?;
            let h_prev = &kept.h_prev[step * n * h..(step + 1) * n * h];
            for i in 0..n {
                for k in 0..s {
                    let ds = dscores[i * s + k] * inv_scale;
                    let base = (i * s + k) * 2 * h;
                    for j in 0..h {
                        dmem[base + j] += ds * h_prev[i * h + j];
                        dh_prev[i * h + j] += ds * m[base + j];
                    }
                }
            }
            (dh, dc) = (dh_prev, dc_prev);
        }
        // the weights' gradients over every step at once
        let (dws, db) = weight_grads(dgates_all, 4 * h, &[(&kept.x, e + h), (&kept.h_prev, h)])?;
        let mut dp = Vec::with_capacity(o[7]);
        for dw in dws {
            dp.extend(dw.flatten_all()?.to_vec1::<f32>()?);
        }
        dp.extend_from_slice(&db);
        dp.extend(db);
        dp.extend(dh);
        dp.extend(dc);
        dp.extend(std::iter::repeat_n(0f32, n * s)); // the mask takes no gradient
        let dev = emb.device();
        Ok((
            Some(Tensor::from_vec(demb, emb.shape(), dev)?),
            Some(Tensor::from_vec(dmem, mem.shape(), dev)?),
            Some(Tensor::from_vec(dp, params.shape(), dev)?),
        ))
    }
}

/// The decoder over a whole teacher-forced target as one graph node, or `None` where the node does
/// not apply (not float32 on the CPU, or a hidden size under
/// [`FUSED_CELL_MIN_HIDDEN`](super::cells::FUSED_CELL_MIN_HIDDEN)): the caller then runs the steps.
/// `cell` holds the decoder's `LSTMCell(E + H, H)` weights.
///
/// # Shapes
/// - `emb`: the target's embeddings `(N, T, E)`; `keys`, `outputs`: `(N, S, H)`; `mask`: additive
///   `(N, S)`; `h0`, `c0`: `(N, H)`
/// - returns the hidden state of every step `(N, T, H)` and the attention weights `(N, T, S)`
pub(crate) fn attn_lstm_sequence(
    cell: &RnnWeights,
    emb: &Tensor,
    keys: &Tensor,
    outputs: &Tensor,
    mask: &Tensor,
    h0: &Tensor,
    c0: &Tensor,
) -> Result<Option<(Tensor, Tensor)>> {
    let (n, t, e) = emb.dims3()?;
    let (s, h) = (keys.dim(1)?, h0.dim(1)?);
    if !fusable(h, &[emb, keys, outputs, h0]) {
        return Ok(None);
    }
    let w = cell;
    if w.weight_ih.dims() != [4 * h, e + h] || w.weight_hh.dims() != [4 * h, h] || outputs.dims() != [n, s, h] || mask.dims() != [n, s] {
        return Err(unexpected(format!(
            "attention LSTM decoder: the cell's weights, keys {:?}, outputs {:?} and mask {:?} do not fit",
            keys.dims(),
            outputs.dims(),
            mask.dims()
        )));
    }
    let flat = [&w.weight_ih.tensor(), &w.weight_hh.tensor(), &w.bias_ih.tensor(), &w.bias_hh.tensor(), h0, c0, mask]
        .iter()
        .map(|t| t.flatten_all())
        .collect::<Result<Vec<_>>>()?;
    let params = Tensor::cat(&flat, 0)?;
    let memory = Tensor::cat(&[keys, outputs], 2)?;
    let op = AttnLstmSequence { sizes: Sizes { n, t, s, e, h }, kept: Mutex::new(None) };
    let y = emb.contiguous()?.apply_op3(&memory, &params, Node3(op))?;
    Ok(Some((y.narrow(2, 0, h)?.contiguous()?, y.narrow(2, h, s)?.contiguous()?)))
}
