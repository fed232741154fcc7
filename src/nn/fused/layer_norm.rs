//! Layer normalisation over the last dimension as one graph node on the CPU in float32, with a
//! hand-written backward pass; `nn::layer_norm` composes the same of candle's operations
//! wherever this node does not apply, and `tests/fused_kernels.rs` checks one against the other.

use super::kernels::fused;
use super::node::{Fused3, Node3, XwbKernel};
use super::unexpected::unexpected;
use candle_core::{Result, Tensor};
use std::sync::OnceLock;

/// `layer_norm(x, weight, bias, eps)` as one graph node, or `None` where it does not apply (not
/// float32 on the CPU, or rows of no values). The caller has checked the shapes and `eps`.
pub(crate) fn layer_norm_node(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Option<Tensor>> {
    let n = x.dims().last().copied().unwrap_or(0);
    if !fused(&[x, weight, bias]) || n == 0 {
        return Ok(None);
    }
    let op = Node3(Fused3(LayerNormOp { n, eps, kept: OnceLock::new() }));
    x.contiguous()?.apply_op3(&weight.contiguous()?, &bias.contiguous()?, op).map(Some)
}

/// The normalised rows of `x` (rows of `n`) and each row's `1 / sqrt(var + eps)`:
/// `xhat = (x - mean) / sqrt(var + eps)` with the biased variance.
///
/// Each row's sums are taken in order, one addition after the other (the arithmetic of a plain
/// loop over the row), but eight rows at a time side by side: the additions of one row wait on
/// each other, those of eight rows do not.
pub fn layer_norm_rows(x: &[f32], n: usize, eps: f64) -> (Vec<f32>, Vec<f32>) {
    let rows = x.len().checked_div(n).unwrap_or(0);
    let mut xhat = Vec::with_capacity(x.len());
    let mut rstd = Vec::with_capacity(rows);
    let mut blocks = x[..rows * n].chunks_exact(BLOCK * n);
    for block in &mut blocks {
        normalise_block::<BLOCK>(block, n, eps as f32, &mut xhat, &mut rstd);
    }
    for row in blocks.remainder().chunks_exact(n) {
        normalise_block::<1>(row, n, eps as f32, &mut xhat, &mut rstd);
    }
    (xhat, rstd)
}

/// Rows a layer-norm pass takes side by side.
const BLOCK: usize = 8;

/// [`layer_norm_rows`] of `R` rows (`block`: `R * n` values), appended to `xhat` and `rstd`.
fn normalise_block<const R: usize>(block: &[f32], n: usize, eps: f32, xhat: &mut Vec<f32>, rstd: &mut Vec<f32>) {
    // `-0.0`: where `Iterator::sum` of floats starts.
    let mut mean = [-0.0f32; R];
    for k in 0..n {
        for (j, m) in mean.iter_mut().enumerate() {
            *m += block[j * n + k];
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f32);
    let mut var = [-0.0f32; R];
    for k in 0..n {
        for (j, v) in var.iter_mut().enumerate() {
            let d = block[j * n + k] - mean[j];
            *v += d * d;
        }
    }
    for (j, row) in block.chunks_exact(n).enumerate() {
        let std = (var[j] / n as f32 + eps).sqrt();
        xhat.extend(row.iter().map(|v| (v - mean[j]) / std));
        rstd.push(1.0 / std);
    }
}

/// The gradients `(dx, dweight, dbias)` of `y = xhat * weight + bias` from the output's gradient
/// `g`, given [`layer_norm_rows`]' `xhat` and `rstd`:
/// `dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))` with `dxhat = g * weight`.
/// Sums are taken in order as in [`layer_norm_rows`], eight rows side by side (`dweight` and
/// `dbias` still add the rows in order).
pub fn layer_norm_backward(xhat: &[f32], rstd: &[f32], weight: &[f32], g: &[f32], n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut dx = vec![0f32; xhat.len()];
    let (mut dw, mut db) = (vec![0f32; n], vec![0f32; n]);
    let rows = xhat.len().checked_div(n).unwrap_or(0).min(rstd.len()).min(g.len().checked_div(n).unwrap_or(0));
    let mut start = 0;
    while start < rows {
        let r = if rows - start >= BLOCK { BLOCK } else { 1 };
        let span = start * n..(start + r) * n;
        let (x, gr, d, s) = (&xhat[span.clone()], &g[span.clone()], &mut dx[span], &rstd[start..start + r]);
        if r == BLOCK {
            backward_block::<BLOCK>(x, gr, weight, s, d, &mut dw, &mut db, n);
        } else {
            backward_block::<1>(x, gr, weight, s, d, &mut dw, &mut db, n);
        }
        start += r;
    }
    (dx, dw, db)
}

/// [`layer_norm_backward`] of `R` rows.
#[allow(clippy::too_many_arguments)]
fn backward_block<const R: usize>(
    xhat: &[f32],
    g: &[f32],
    weight: &[f32],
    rstd: &[f32],
    dx: &mut [f32],
    dw: &mut [f32],
    db: &mut [f32],
    n: usize,
) {
    let (mut sum_d, mut sum_dx) = ([0f32; R], [0f32; R]);
    for k in 0..n {
        for j in 0..R {
            let d = g[j * n + k] * weight[k];
            sum_d[j] += d;
            sum_dx[j] += d * xhat[j * n + k];
        }
    }
    // Row by row, so that the additions into `dw[k]` and `db[k]` of one row do not wait on each
    // other (and the rows still come in order).
    for (gr, xr) in g.chunks_exact(n).zip(xhat.chunks_exact(n)) {
        for (((dw, db), &gv), &xv) in dw.iter_mut().zip(db.iter_mut()).zip(gr).zip(xr) {
            *dw += gv * xv;
            *db += gv;
        }
    }
    for j in 0..R {
        let (mean_d, mean_dx) = (sum_d[j] / n as f32, sum_dx[j] / n as f32);
        let span = j * n..(j + 1) * n;
        for ((d, (&gv, &xv)), &wv) in dx[span.clone()].iter_mut().zip(g[span.clone()].iter().zip(&xhat[span])).zip(weight) {
            *d = rstd[j] * (gv * wv - mean_d - xv * mean_dx);
        }
    }
}

struct LayerNormOp {
    n: usize,
    eps: f64,
    /// The forward pass's `xhat` and `rstd`, for the backward pass (which otherwise takes them
    /// again from `x`): one more copy of the input's size, alive as long as the graph node.
    kept: OnceLock<(Vec<f32>, Vec<f32>)>,
}

impl XwbKernel for LayerNormOp {
    const NAME: &'static str = "layer-norm";
    const OP: &'static str = "layer_norm";

    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Vec<usize>)> {
        if w.len() != self.n || b.len() != self.n || !x.len().is_multiple_of(self.n) {
            return Err(unexpected(format!(
                "{}: expected rows of {} and weight, bias ({}), got {}, {} and {} values",
                Self::OP,
                self.n,
                self.n,
                x.len(),
                w.len(),
                b.len()
            )));
        }
        let (xhat, rstd) = layer_norm_rows(x, self.n, self.eps);
        let mut y = Vec::with_capacity(xhat.len());
        for row in xhat.chunks_exact(self.n) {
            y.extend(row.iter().zip(w).zip(b).map(|((v, wv), bv)| v * wv + bv));
        }
        // A second forward pass of the same node (none in candle) keeps the first one's values.
        let _ = self.kept.set((xhat, rstd));
        Ok((y, x_dims.to_vec()))
    }

    fn backward(&self, x: &[f32], w: &[f32], g: &[f32]) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        match self.kept.get().filter(|(xhat, _)| xhat.len() == x.len()) {
            Some((xhat, rstd)) => Ok(layer_norm_backward(xhat, rstd, w, g, self.n)),
            None => {
                let (xhat, rstd) = layer_norm_rows(x, self.n, self.eps);
                Ok(layer_norm_backward(&xhat, &rstd, w, g, self.n))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{layer_norm_backward, layer_norm_rows};

    /// One row at a time, each sum a plain loop: the arithmetic the blocked passes must keep.
    fn rows_one_by_one(x: &[f32], n: usize, eps: f64) -> (Vec<f32>, Vec<f32>) {
        let (mut xhat, mut rstd) = (vec![], vec![]);
        for row in x.chunks_exact(n) {
            let mean = row.iter().sum::<f32>() / n as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n as f32;
            let std = (var + eps as f32).sqrt();
            xhat.extend(row.iter().map(|v| (v - mean) / std));
            rstd.push(1.0 / std);
        }
        (xhat, rstd)
    }

    fn backward_one_by_one(xhat: &[f32], rstd: &[f32], w: &[f32], g: &[f32], n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let mut dx = vec![0f32; xhat.len()];
        let (mut dw, mut db) = (vec![0f32; n], vec![0f32; n]);
        for (((xr, gr), dr), r) in xhat.chunks_exact(n).zip(g.chunks_exact(n)).zip(dx.chunks_exact_mut(n)).zip(rstd) {
            let (mut sum_d, mut sum_dx) = (0f32, 0f32);
            for k in 0..n {
                let d = gr[k] * w[k];
                sum_d += d;
                sum_dx += d * xr[k];
                dw[k] += gr[k] * xr[k];
                db[k] += gr[k];
            }
            let (mean_d, mean_dx) = (sum_d / n as f32, sum_dx / n as f32);
            for k in 0..n {
                dr[k] = r * (gr[k] * w[k] - mean_d - xr[k] * mean_dx);
            }
        }
        (dx, dw, db)
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn eight_rows_side_by_side_give_the_bits_of_one_row_at_a_time() {
        // Uneven values (sums that round), rows of -0.0 and of one repeated value, an infinity.
        let value = |i: usize| ((i * 7919 % 1000) as f32 / 37.0 - 13.0) * if i.is_multiple_of(3) { 1e-3 } else { 1.0 };
        for (rows, n) in [(19, 64), (8, 5), (3, 1), (17, 3), (0, 4)] {
            let mut x: Vec<f32> = (0..rows * n).map(value).collect();
            if rows > 9 {
                x[2 * n..3 * n].fill(-0.0);
                x[9 * n..10 * n].fill(0.3);
                x[4 * n] = f32::INFINITY;
            }
            let (xhat, rstd) = layer_norm_rows(&x, n, 1e-5);
            let (xhat1, rstd1) = rows_one_by_one(&x, n, 1e-5);
            assert_eq!((bits(&xhat), bits(&rstd)), (bits(&xhat1), bits(&rstd1)), "{rows} rows of {n}");
            let w: Vec<f32> = (0..n).map(|k| 0.5 + k as f32 / 9.0).collect();
            let g: Vec<f32> = (0..rows * n).map(|i| value(i + 5) / 3.0).collect();
            let ours = layer_norm_backward(&xhat1, &rstd1, &w, &g, n);
            let theirs = backward_one_by_one(&xhat1, &rstd1, &w, &g, n);
            assert_eq!((bits(&ours.0), bits(&ours.1), bits(&ours.2)), (bits(&theirs.0), bits(&theirs.1), bits(&theirs.2)));
        }
    }
}
