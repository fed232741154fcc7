//! Scaled dot-product attention over long sequences, `softmax(q kᵀ · scale + mask) v`, as one
//! graph node: tiled, with an online softmax, the weights recomputed in the backward pass.
//!
//! The plain composition ([`crate::attention`]'s `attend`: a batched product, the masked softmax,
//! a batched product) writes the `(N, h, Lq, Lk)` scores and weights out and keeps the weights for
//! the backward pass, where candle adds a zero-filled gradient of that size for each of its three
//! nodes. Here every head works through tiles of `QUERY_TILE` queries by `KEY_TILE` keys:
//!
//! - forward: a tile's scores (one gemm), scaled and masked; each row's running maximum and sum
//!   of `exp(score - max)` (the online softmax: an earlier tile's sum and output are rescaled by
//!   `exp(old max - new max)` when a later tile raises the maximum); the output accumulated as
//!   `exp(scores - max) v` (one gemm). Besides its inputs and output (which candle's graph keeps),
//!   the node keeps each row's log-sum-exp and the mask.
//! - backward: each tile's weights recomputed as `exp(score - log-sum-exp)`; with `D = Σ dO ⊙ O`
//!   per query row, `dS = P ⊙ (dO vᵀ - D) · scale`, then `dq += dS k`, `dkᵀ += qᵀ dS`,
//!   `dv += Pᵀ dO` (five gemms a tile, the scores' included).
//!
//! The exponential is `fast_math::exp`, vectorised across a row (16 lanes with AVX-512): within
//! 2 ulps of the true value, where the plain composition calls libm one value at a time. So the
//! outputs agree with the plain composition's to float32 rounding, not to the bit, and the entry
//! point takes only keys of [`FLASH_MIN_KEYS`] or more: the lecture's sentences keep the plain
//! composition and its bits. The node gives no weights: a caller that wants the `(N, h, Lq, Lk)`
//! weights (the maps, the explorer, a loss of its own on them) takes the plain composition, whose
//! weights are part of the graph.

use super::dense::{Strided, product_into};
use super::node::{Kernel3, Node3, cpu_f32};
use super::simd_rows::{dot, exp_or_zero, exp_sum, scale_mask_max, softmax_grad};
use super::unexpected::unexpected;
use candle_core::{DType, Device, Result, Shape, Storage, Tensor};
use rayon::prelude::*;
use std::sync::Mutex;

/// The fewest keys the kernel takes; shorter sequences keep the plain composition.
pub(crate) const FLASH_MIN_KEYS: usize = 64;
const QUERY_TILE: usize = 64;
const KEY_TILE: usize = 128;

/// The sizes of one head: `Lq` queries and `Lk` keys of width `d`, values of width `dv`.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    heads: usize,
    lq: usize,
    lk: usize,
    d: usize,
    dv: usize,
}

/// The additive mask broadcast to the scores `(N, h, Lq, Lk)`: the float32 tensor whose storage
/// holds its values (read where they lie, not copied), where they start, and the strides of the
/// first three dims (0 where it broadcasts; the keys' stride is 1).
struct MaskRows {
    tensor: Tensor,
    start: usize,
    strides: [usize; 3],
}

/// A mask's values from its start, and its strides: what the heads read.
type MaskView<'a> = Option<(&'a [f32], [usize; 3])>;

/// One head's inputs: queries `(Lq, d)`, keys transposed `(d, Lk)`, values `(Lk, dv)`, and the
/// offset of its mask rows.
struct Head<'a> {
    q: &'a [f32],
    kt: &'a [f32],
    v: &'a [f32],
    mask: Option<(&'a [f32], usize)>,
}

impl Head<'_> {
    /// Query `i`'s mask over the keys `from..from + count`.
    fn mask(&self, i: usize, from: usize, count: usize) -> Option<&[f32]> {
        self.mask.map(|(m, row_stride)| &m[i * row_stride + from..][..count])
    }
}

/// One head's forward pass: its output `(Lq, dv)` and its rows' log-sum-exp.
fn forward_head(s: Sizes, scale: f32, x: &Head, out: &mut [f32], lse: &mut [f32]) -> Result<()> {
    let key_tile = KEY_TILE.min(s.lk);
    let rows = QUERY_TILE.min(s.lq);
    let (mut scores, mut acc) = (vec![0f32; rows * key_tile], vec![0f32; rows * s.dv]);
    for i0 in (0..s.lq).step_by(QUERY_TILE) {
        let r = QUERY_TILE.min(s.lq - i0);
        let (mut max, mut sum) = (vec![f32::NEG_INFINITY; r], vec![0f32; r]);
        let acc = &mut acc[..r * s.dv];
        for j0 in (0..s.lk).step_by(key_tile) {
            let c = key_tile.min(s.lk - j0);
            let tile = &mut scores[..r * c];
            let q_tile = Strided { data: &x.q[i0 * s.d..], rs: s.d, cs: 1 };
            product_into(r, c, s.d, tile, (c, 1), q_tile, Strided { data: &x.kt[j0..], rs: s.lk, cs: 1 }, false, 1)?;
            for (row, p) in tile.chunks_exact_mut(c).enumerate() {
                let tile_max = scale_mask_max(p, scale, x.mask(i0 + row, j0, c));
                // a NaN maximum (a NaN score) makes the row NaN, as in the plain softmax
                let new_max = if tile_max > max[row] || tile_max.is_nan() { tile_max } else { max[row] };
                if new_max == f32::NEG_INFINITY {
                    p.fill(0.0); // every key so far masked
                    continue;
                }
                let tile_sum = exp_sum(p, new_max);
                if j0 > 0 && new_max != max[row] {
                    let alpha = exp_or_zero(max[row] - new_max);
                    acc[row * s.dv..(row + 1) * s.dv].iter_mut().for_each(|a| *a *= alpha);
                    sum[row] *= alpha;
                }
                sum[row] += tile_sum;
                max[row] = new_max;
            }
            let v_tile = Strided { data: &x.v[j0 * s.dv..], rs: s.dv, cs: 1 };
            product_into(r, s.dv, c, acc, (s.dv, 1), Strided { data: tile, rs: c, cs: 1 }, v_tile, j0 > 0, 1)?;
        }
        for row in 0..r {
            let inv = 1.0 / sum[row];
            let o = &mut out[(i0 + row) * s.dv..(i0 + row + 1) * s.dv];
            o.iter_mut().zip(&acc[row * s.dv..(row + 1) * s.dv]).for_each(|(o, a)| *o = a * inv);
            lse[i0 + row] = max[row] + sum[row].ln();
        }
    }
    Ok(())
}

/// One head's gradients `dq (Lq, d)`, `dkᵀ (d, Lk)` and `dv (Lk, dv)` (zero on entry) from its
/// output `o`, the output's gradient `g` and the rows' log-sum-exp.
#[allow(clippy::too_many_arguments)]
fn backward_head(
    s: Sizes,
    scale: f32,
    x: &Head,
    o: &[f32],
    g: &[f32],
    lse: &[f32],
    dq: &mut [f32],
    dkt: &mut [f32],
    dv: &mut [f32],
) -> Result<()> {
    let (rows, cols) = (QUERY_TILE.min(s.lq), KEY_TILE.min(s.lk));
    let (mut p_tile, mut dp_tile) = (vec![0f32; rows * cols], vec![0f32; rows * cols]);
    for i0 in (0..s.lq).step_by(QUERY_TILE) {
        let r = QUERY_TILE.min(s.lq - i0);
        let d_rows: Vec<f32> = (i0..i0 + r).map(|i| dot(&g[i * s.dv..(i + 1) * s.dv], &o[i * s.dv..(i + 1) * s.dv])).collect();
        let q_tile = Strided { data: &x.q[i0 * s.d..], rs: s.d, cs: 1 };
        let g_tile = Strided { data: &g[i0 * s.dv..], rs: s.dv, cs: 1 };
        for j0 in (0..s.lk).step_by(KEY_TILE) {
            let c = KEY_TILE.min(s.lk - j0);
            let (p, dp) = (&mut p_tile[..r * c], &mut dp_tile[..r * c]);
            product_into(r, c, s.d, p, (c, 1), q_tile, Strided { data: &x.kt[j0..], rs: s.lk, cs: 1 }, false, 1)?;
            for (row, pr) in p.chunks_exact_mut(c).enumerate() {
                scale_mask_max(pr, scale, x.mask(i0 + row, j0, c));
                match lse[i0 + row] {
                    l if l == f32::NEG_INFINITY => pr.fill(0.0),
                    l => {
                        exp_sum(pr, l);
                    }
                }
            }
            // dv[j0..] += Pᵀ dO
            product_into(c, s.dv, r, &mut dv[j0 * s.dv..], (s.dv, 1), Strided { data: p, rs: 1, cs: c }, g_tile, true, 1)?;
            // dP = dO vᵀ, then dS in its place
            product_into(r, c, s.dv, dp, (c, 1), g_tile, Strided { data: &x.v[j0 * s.dv..], rs: 1, cs: s.dv }, false, 1)?;
            for ((dpr, pr), d) in dp.chunks_exact_mut(c).zip(p.chunks_exact(c)).zip(&d_rows) {
                softmax_grad(dpr, pr, *d, scale);
            }
            let ds = Strided { data: dp, rs: c, cs: 1 };
            // dq += dS k, k = (kᵀ)ᵀ
            product_into(r, s.d, c, &mut dq[i0 * s.d..], (s.d, 1), ds, Strided { data: &x.kt[j0..], rs: 1, cs: s.lk }, true, 1)?;
            // dkᵀ[:, j0..] += qᵀ dS
            product_into(s.d, c, r, &mut dkt[j0..], (s.lk, 1), Strided { data: &x.q[i0 * s.d..], rs: 1, cs: s.d }, ds, true, 1)?;
        }
    }
    Ok(())
}

/// Runs `f` for every `(batch, head)` index with its chunks of each output: on the global rayon
/// pool where there are threads to spare, in turn inside a pool's thread (a data-parallel
/// step's half-batch) or with one thread.
fn each_head<F>(count: usize, outputs: Vec<(&mut [f32], usize)>, f: F) -> Result<()>
where
    F: Fn(usize, &mut [&mut [f32]]) -> Result<()> + Sync,
{
    let mut chunks: Vec<Vec<&mut [f32]>> = (0..count).map(|_| Vec::with_capacity(outputs.len())).collect();
    for (data, size) in outputs {
        for (head, chunk) in chunks.iter_mut().zip(data.chunks_mut(size.max(1))) {
            head.push(chunk);
        }
    }
    let parallel = rayon::current_thread_index().is_none() && candle_core::utils::get_num_threads() > 1 && count > 1;
    if parallel {
        chunks.into_par_iter().enumerate().try_for_each(|(i, mut c)| f(i, &mut c))
    } else {
        chunks.into_iter().enumerate().try_for_each(|(i, mut c)| f(i, &mut c))
    }
}

/// The node: the sizes, the scale, the mask and the rows' log-sum-exp (written by the forward
/// pass, read by the backward pass).
struct Flash {
    sizes: Sizes,
    batch: usize,
    scale: f32,
    mask: Option<MaskRows>,
    lse: Mutex<Vec<f32>>,
}

impl Flash {
    fn head<'a>(&self, i: usize, q: &'a [f32], kt: &'a [f32], v: &'a [f32], mask: MaskView<'a>) -> Head<'a> {
        let s = self.sizes;
        let mask = mask.map(|(m, st)| (&m[(i / s.heads) * st[0] + (i % s.heads) * st[1]..], st[2]));
        Head {
            q: &q[i * s.lq * s.d..][..s.lq * s.d],
            kt: &kt[i * s.d * s.lk..][..s.d * s.lk],
            v: &v[i * s.lk * s.dv..][..s.lk * s.dv],
            mask,
        }
    }

    /// `f` of the mask's values, read where they lie in its storage.
    fn with_mask<R>(&self, f: impl FnOnce(MaskView) -> Result<R>) -> Result<R> {
        let Some(m) = &self.mask else { return f(None) };
        let (storage, _) = m.tensor.storage_and_layout();
        let Storage::Cpu(candle_core::CpuStorage::F32(data)) = &*storage else {
            return Err(unexpected("flash-attention: expected a float32 CPU mask"));
        };
        let Some(values) = data.get(m.start..) else { return Err(unexpected("flash-attention: a mask shorter than its layout")) };
        f(Some((values, m.strides)))
    }

    fn check(&self, q: usize, kt: usize, v: usize) -> Result<usize> {
        let s = self.sizes;
        let count = self.batch * s.heads;
        if q != count * s.lq * s.d || kt != count * s.d * s.lk || v != count * s.lk * s.dv {
            return Err(unexpected(format!("flash-attention: {q}, {kt} and {v} values do not fit {count} heads of {s:?}")));
        }
        Ok(count)
    }
}

fn lock(m: &Mutex<Vec<f32>>) -> std::sync::MutexGuard<'_, Vec<f32>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Kernel3 for Flash {
    const NAME: &'static str = "flash-attention";
    const OP: &'static str = "flash-attention";

    fn forward(&self, q: &[f32], kt: &[f32], v: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let s = self.sizes;
        let count = self.check(q.len(), kt.len(), v.len())?;
        let mut out = vec![0f32; count * s.lq * s.dv];
        let mut lse = vec![0f32; count * s.lq];
        let outputs = vec![(&mut out[..], s.lq * s.dv), (&mut lse[..], s.lq)];
        self.with_mask(|mask| {
            each_head(count, outputs, |i, c| {
                let [o, l] = c else { return Err(unexpected("flash-attention: expected an output and a log-sum-exp")) };
                forward_head(s, self.scale, &self.head(i, q, kt, v, mask), o, l)
            })
        })?;
        *lock(&self.lse) = lse;
        Ok((out, Shape::from((self.batch, s.heads, s.lq, s.dv))))
    }

    fn backward(
        &self,
        q: &Tensor,
        kt: &Tensor,
        v: &Tensor,
        res: &Tensor,
        grad: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>, Option<Tensor>)> {
        let s = self.sizes;
        let shapes = [q.shape().clone(), kt.shape().clone(), v.shape().clone()];
        let grad = grad.contiguous()?;
        let guards = [q, kt, v, res, &grad].map(|t| t.storage_and_layout());
        let mut slices = Vec::with_capacity(5);
        for (storage, layout) in &guards {
            let Storage::Cpu(cpu) = &**storage else {
                return Err(unexpected("flash-attention: expected CPU tensors in the backward pass"));
            };
            slices.push(cpu_f32(Self::OP, cpu, layout)?);
        }
        let [q, kt, v, o, g] = slices[..] else { return Err(unexpected("flash-attention: expected five tensors")) };
        let count = self.check(q.len(), kt.len(), v.len())?;
        if o.len() != count * s.lq * s.dv || g.len() != o.len() {
            return Err(unexpected(format!(
                "flash-attention: an output of {} and a gradient of {} values for {count} heads of {s:?}",
                o.len(),
                g.len()
            )));
        }
        let lse = lock(&self.lse).clone();
        if lse.len() != count * s.lq {
            return Err(unexpected("flash-attention: the backward pass ran before the forward pass"));
        }
        let (mut dq, mut dkt, mut dv) = (vec![0f32; q.len()], vec![0f32; kt.len()], vec![0f32; v.len()]);
        let outputs = vec![(&mut dq[..], s.lq * s.d), (&mut dkt[..], s.d * s.lk), (&mut dv[..], s.lk * s.dv)];
        self.with_mask(|mask| {
            each_head(count, outputs, |i, c| {
                let [dq, dkt, dv] = c else { return Err(unexpected("flash-attention: expected three gradients")) };
                let (o, g, l) = (&o[i * s.lq * s.dv..][..s.lq * s.dv], &g[i * s.lq * s.dv..][..s.lq * s.dv], &lse[i * s.lq..][..s.lq]);
                backward_head(s, self.scale, &self.head(i, q, kt, v, mask), o, g, l, dq, dkt, dv)
            })
        })?;
        drop(guards);
        let [sq, skt, sv] = shapes;
        let grad_of = |values: Vec<f32>, shape: Shape| Tensor::from_vec(values, shape, &Device::Cpu).map(Some);
        Ok((grad_of(dq, sq)?, grad_of(dkt, skt)?, grad_of(dv, sv)?))
    }
}

/// `softmax(q kᵀ · scale + mask) v` as one node, from the keys transposed, without the weights:
/// `None` where the kernel does not take the inputs (not float32 on the CPU, fewer than
/// [`FLASH_MIN_KEYS`] keys, an empty batch, sizes that do not match, a mask it cannot read), for
/// the caller's plain composition. `q`, `k_t` and `v` are differentiable; the mask receives no
/// gradient.
///
/// # Shapes
/// - `q`: `(N, h, Lq, d)`; `k_t`: `(N, h, d, Lk)`; `v`: `(N, h, Lk, dv)`
/// - `mask`: optional additive mask of rank 4 broadcasting to `(N, h, Lq, Lk)`
/// - returns the output `(N, h, Lq, dv)`
pub(crate) fn flash_attention(q: &Tensor, k_t: &Tensor, v: &Tensor, scale: f64, mask: Option<&Tensor>) -> Result<Option<Tensor>> {
    let cpu = |t: &Tensor| t.dtype() == DType::F32 && matches!(t.device(), Device::Cpu);
    let (Ok((n, h, lq, d)), Ok(kt_dims), Ok((n3, h3, lk, dv))) = (q.dims4(), k_t.dims4(), v.dims4()) else { return Ok(None) };
    if ![q, k_t, v].into_iter().all(cpu)
        || kt_dims != (n, h, d, lk)
        || (n3, h3) != (n, h)
        || lk < FLASH_MIN_KEYS
        || n * h * lq * d * dv == 0
    {
        return Ok(None);
    }
    let mask = match mask {
        None => None,
        Some(m) if m.rank() != 4 || !matches!(m.device(), Device::Cpu) => return Ok(None),
        Some(m) => {
            let Ok(broadcast) = m.to_dtype(DType::F32)?.contiguous()?.broadcast_as((n, h, lq, lk)) else { return Ok(None) };
            let (start, st) = (broadcast.layout().start_offset(), broadcast.stride());
            if st[3] != 1 {
                return Ok(None);
            }
            Some(MaskRows { start, strides: [st[0], st[1], st[2]], tensor: broadcast })
        }
    };
    let sizes = Sizes { heads: h, lq, lk, d, dv };
    let op = Flash { sizes, batch: n, scale: scale as f32, mask, lse: Mutex::new(vec![]) };
    q.contiguous()?.apply_op3(&k_t.contiguous()?, &v.contiguous()?, Node3(op)).map(Some)
}
