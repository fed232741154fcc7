//! Log-softmax over the last dimension as one graph node on the CPU in float32, for the
//! translators' cross-entropy: composed of candle operations (max, subtract, exp, sum, log,
//! subtract) it made five nodes and as many `(N, T, V)` tensors a batch, and libm's `expf` one value
//! at a time was 17% of a recurrent translator's training step. Here `exp` is
//! [`super::fast_math`]'s, in a loop the compiler vectorises; the backward pass is PyTorch's
//! (`grad - exp(output) * sum(grad)` row by row).

use super::fast_math::{exp, with_simd};
use super::in_place::with_f32_pair;
use super::kernels::fused;
use super::node::{Kernel1, Node1};
use super::unexpected::unexpected;
use candle_core::{Result, Shape, Tensor};

/// `x - max - ln(sum(exp(x - max)))` of each row of `n` values.
pub fn log_softmax_rows(x: &[f32], n: usize) -> Vec<f32> {
    let mut y = vec![0f32; x.len()];
    if n == 0 {
        return y;
    }
    for (xr, yr) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)) {
        let (max, log_sum) = row_stat(xr, yr);
        for (yv, &xv) in yr.iter_mut().zip(xr) {
            *yv = (xv - max) - log_sum;
        }
    }
    y
}

/// The gradient of [`log_softmax_rows`] from its output `y` and the output's gradient `g`:
/// `g - exp(y) * sum(g)` row by row.
pub fn log_softmax_rows_backward(y: &[f32], g: &[f32], n: usize) -> Vec<f32> {
    let mut dx = vec![0f32; y.len()];
    if n > 0 {
        backward_rows(y, g, &mut dx, n);
    }
    dx
}

with_simd!(fn backward_rows(y: &[f32], g: &[f32], dx: &mut [f32], n: usize) => backward_rows_body);

#[inline(always)]
fn backward_rows_body(y: &[f32], g: &[f32], dx: &mut [f32], n: usize) {
    for ((yr, gr), dr) in y.chunks_exact(n).zip(g.chunks_exact(n)).zip(dx.chunks_exact_mut(n)) {
        let total = sum(gr);
        for (d, &yv) in dr.iter_mut().zip(yr) {
            *d = exp(yv);
        }
        for (d, &gv) in dr.iter_mut().zip(gr) {
            *d = gv - *d * total;
        }
    }
}

/// A row's `(max, ln(sum(exp(x - max))))`, its log-softmax being `(x - max) - ln(...)`; `scratch`
/// (the row's length) receives the exponentials.
fn row_stat(xr: &[f32], scratch: &mut [f32]) -> (f32, f32) {
    let max = xr.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    exp_shifted(xr, max, 0.0, scratch);
    (max, sum(scratch).ln())
}

/// Every row's [`row_stat`], kept by the NLL node so that its log-probabilities round as
/// [`log_softmax_rows`]'.
fn row_stats(x: &[f32], n: usize, scratch: &mut [f32]) -> Vec<(f32, f32)> {
    x.chunks_exact(n).map(|xr| row_stat(xr, scratch)).collect()
}

with_simd!(fn exp_shifted(x: &[f32], max: f32, log_sum: f32, out: &mut [f32]) => exp_shifted_body);

#[inline(always)]
/// `exp((x - max) - log_sum)`: the softmax of a row given its stats (`log_sum` 0: the exponentials
/// the stats sum).
fn exp_shifted_body(x: &[f32], max: f32, log_sum: f32, out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = exp((v - max) - log_sum);
    }
}

/// The negative log-likelihood of each row's target, weighted: `-(log_softmax(x)[y] * w)`, with
/// its gradient `g w (softmax(x) - onehot(y))`, as one node: what the cross-entropy composed of
/// [`log_softmax_rows`], a gather and a product computes, to the same bits, without the `(N, C)`
/// log-probabilities and their gradient.
struct NllOp {
    n: usize,
    ids: Vec<u32>,
    weights: Vec<f32>,
    /// Each row's `(max, log_sum)`, kept by the forward pass for the backward one.
    stats: std::sync::Mutex<Vec<(f32, f32)>>,
}

impl Kernel1 for NllOp {
    const NAME: &'static str = "nll-of-log-softmax";
    const OP: &'static str = "cross-entropy";

    fn forward(&self, x: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let n = self.n;
        if n == 0 || x.len() != n * self.ids.len() || self.weights.len() != self.ids.len() {
            return Err(unexpected(format!(
                "cross-entropy: {} logits and {} weights for {} targets of {n} classes",
                x.len(),
                self.weights.len(),
                self.ids.len()
            )));
        }
        if let Some(y) = self.ids.iter().find(|&&y| y as usize >= n) {
            return Err(unexpected(format!("cross-entropy: target {y} outside the {n} classes")));
        }
        let stats = row_stats(x, n, &mut vec![0f32; n]);
        let nll = stats
            .iter()
            .zip(x.chunks_exact(n))
            .zip(self.ids.iter().zip(&self.weights))
            .map(|(((max, log_sum), xr), (&y, &w))| -(((xr[y as usize] - max) - log_sum) * w))
            .collect();
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = stats;
        Ok((nll, Shape::from(self.ids.len())))
    }

    fn backward(&self, x: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let n = self.n;
        let stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        // The logits read where they lie: rows x C values, whatever their leading dims, often
        // 100,000s of them (the forward pass made them contiguous; a strided gradient is copied).
        let dx = with_f32_pair(x, grad, |x, g| {
            if g.len() != self.ids.len() || stats.len() != self.ids.len() || x.len() != n * self.ids.len() {
                return Err(unexpected(format!(
                    "cross-entropy backward: {} logits of {n} classes, {} gradients and {} kept rows for {} targets",
                    x.len(),
                    g.len(),
                    stats.len(),
                    self.ids.len()
                )));
            }
            let mut dx = vec![0f32; x.len()];
            for ((((xr, dr), &(max, log_sum)), (&y, &w)), &gr) in
                x.chunks_exact(n).zip(dx.chunks_exact_mut(n)).zip(stats.iter()).zip(self.ids.iter().zip(&self.weights)).zip(g)
            {
                let scale = gr * w;
                if scale == 0.0 {
                    continue;
                }
                exp_shifted(xr, max, log_sum, dr);
                for d in dr.iter_mut() {
                    *d *= scale;
                }
                dr[y as usize] -= scale;
            }
            Ok(dx)
        })??;
        Ok(Some(Tensor::from_vec(dx, x.shape(), grad.device())?))
    }
}

/// The cross-entropy's per-row `-(log_softmax(x)[ids] * weights)` of float32 CPU logits
/// `(..., C)` (`ids.len()` rows of `C` values, one id and weight each) as one node of shape
/// `(rows)`; `None` for other dtypes and devices (the caller composes it then).
pub(crate) fn nll_rows(x: &Tensor, ids: Vec<u32>, weights: Vec<f32>) -> Option<Result<Tensor>> {
    let &n = x.dims().last()?;
    fused(&[x]).then(|| x.contiguous()?.apply_op1(Node1(NllOp { n, ids, weights, stats: Default::default() })))
}

/// A sum in eight lanes (vectorised), then the lanes in order.
#[inline(always)]
fn sum(v: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += x;
        }
    }
    lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

struct LogSoftmaxOp {
    n: usize,
}

impl Kernel1 for LogSoftmaxOp {
    const NAME: &'static str = "log-softmax-last-dim";
    const OP: &'static str = "log_softmax";

    fn forward(&self, x: &[f32], dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        Ok((log_softmax_rows(x, self.n), Shape::from(dims)))
    }

    fn backward(&self, _x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let dx = with_f32_pair(res, grad, |y, g| {
            if y.len() != g.len() {
                return Err(unexpected(format!("log_softmax backward: {} outputs and {} gradients", y.len(), g.len())));
            }
            Ok(log_softmax_rows_backward(y, g, self.n))
        })??;
        Ok(Some(Tensor::from_vec(dx, res.shape(), res.device())?))
    }
}

/// Log-softmax over the last dimension of a float32 CPU tensor as one node; `None` for other
/// dtypes and devices (the caller composes it then).
pub(crate) fn log_softmax_last_dim(x: &Tensor) -> Option<Result<Tensor>> {
    let &n = x.dims().last()?;
    fused(&[x]).then(|| x.contiguous()?.apply_op1(Node1(LogSoftmaxOp { n })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of varied logits, a row with `-inf` entries, and widths that leave remainders.
    fn cases() -> Vec<(usize, Vec<f32>)> {
        let wave = |n: usize, k: usize| (0..n * k).map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.37).collect::<Vec<_>>();
        let mut masked = wave(9, 2);
        masked[3] = f32::NEG_INFINITY;
        vec![(685, wave(685, 3)), (7, wave(7, 4)), (9, masked), (1, vec![3.0, -2.0])]
    }

    #[test]
    fn equals_the_formula_in_f64() {
        for (n, x) in cases() {
            let y = log_softmax_rows(&x, n);
            let g: Vec<f32> = (0..x.len()).map(|i| ((i * 13 % 7) as f32 - 3.0) * 0.25).collect();
            let dx = log_softmax_rows_backward(&y, &g, n);
            for (r, xr) in x.chunks(n).enumerate() {
                let max = xr.iter().map(|&v| v as f64).fold(f64::NEG_INFINITY, f64::max);
                let lse = max + xr.iter().map(|&v| (v as f64 - max).exp()).sum::<f64>().ln();
                let gsum: f64 = g[r * n..(r + 1) * n].iter().map(|&v| v as f64).sum();
                for (j, &xv) in xr.iter().enumerate() {
                    let want = xv as f64 - lse;
                    let got = y[r * n + j] as f64;
                    assert!(got == want || (got - want).abs() <= 2e-6 * want.abs().max(1.0), "row {r}, {j}: {got} against {want}");
                    let want_dx = g[r * n + j] as f64 - want.exp() * gsum;
                    assert!((dx[r * n + j] as f64 - want_dx).abs() <= 1e-6, "row {r}, {j}: gradient {} against {want_dx}", dx[r * n + j]);
                }
            }
        }
    }

    #[test]
    fn the_nll_node_is_the_composed_nll_and_its_gradient_the_formula() {
        use candle_core::{Device, Var};
        for (n, x) in cases() {
            let rows = x.len() / n;
            let ids: Vec<u32> = (0..rows).map(|r| ((r * 5 + 1) % n) as u32).collect();
            let weights: Vec<f32> = (0..rows).map(|r| if r % 3 == 2 { 0.0 } else { 1.0 }).collect();
            let xt = Var::from_vec(x.clone(), (rows, n), &Device::Cpu).unwrap();
            let nll = nll_rows(&xt, ids.clone(), weights.clone()).unwrap().unwrap();
            let got = nll.to_vec1::<f32>().unwrap();
            let lp = log_softmax_rows(&x, n);
            for r in 0..rows {
                let want = -(lp[r * n + ids[r] as usize] * weights[r]);
                assert_eq!(got[r].to_bits(), want.to_bits(), "row {r}: {} against {want}", got[r]);
            }
            let g = nll.sum_all().unwrap().backward().unwrap();
            let dx = g.get(&xt).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
            for r in 0..rows {
                for c in 0..n {
                    let p = (lp[r * n + c] as f64).exp();
                    let want = weights[r] as f64 * (p - if c == ids[r] as usize { 1.0 } else { 0.0 });
                    assert!((dx[r * n + c] as f64 - want).abs() <= 1e-6, "row {r}, class {c}: {} against {want}", dx[r * n + c]);
                }
            }
        }
    }

    #[test]
    fn logits_of_any_leading_shape_give_the_same_bits_and_a_gradient_of_their_shape() {
        use candle_core::{Device, Var};
        let (n, rows) = (5, 6);
        let x: Vec<f32> = (0..rows * n).map(|i| ((i * 7 % 11) as f32 - 5.0) * 0.3).collect();
        let ids: Vec<u32> = (0..rows).map(|r| (r % n) as u32).collect();
        let weights = vec![1.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        let flat = Var::from_vec(x.clone(), (rows, n), &Device::Cpu).unwrap();
        let cube = Var::from_vec(x, (2, 3, n), &Device::Cpu).unwrap();
        // a strided view of the same values: the node's input is then a contiguous copy
        let strided = Var::from_vec(cube.flatten_all().unwrap().to_vec1::<f32>().unwrap(), (3, 2, n), &Device::Cpu).unwrap();
        let strided_view = strided.transpose(0, 1).unwrap();
        // row (i, j) of the view is row 2 j + i of the values
        let order = [0, 2, 4, 1, 3, 5];
        let reordered: Vec<u32> = order.iter().map(|&r| ids[r]).collect();
        let reweighted: Vec<f32> = order.iter().map(|&r| weights[r]).collect();
        let bits = |t: &Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let a = nll_rows(&flat, ids.clone(), weights.clone()).unwrap().unwrap();
        let b = nll_rows(&cube, ids, weights).unwrap().unwrap();
        assert_eq!(bits(&a), bits(&b));
        let (ga, gb) = (a.sum_all().unwrap().backward().unwrap(), b.sum_all().unwrap().backward().unwrap());
        let (ga, gb) = (ga.get(&flat).unwrap(), gb.get(&cube).unwrap());
        assert_eq!(gb.dims(), &[2, 3, n]);
        assert_eq!(bits(ga), bits(gb));
        let c = nll_rows(&strided_view, reordered, reweighted).unwrap().unwrap();
        let gc = c.sum_all().unwrap().backward().unwrap();
        let gc = gc.get(&strided).unwrap();
        let (a_bits, c_bits) = (bits(&a), bits(&c));
        assert_eq!(c_bits, order.iter().map(|&r| a_bits[r]).collect::<Vec<_>>());
        assert_eq!(bits(gc), bits(ga));
    }

    #[test]
    fn targets_outside_the_classes_are_an_error() {
        let x = Tensor::zeros((2, 3), candle_core::DType::F32, &candle_core::Device::Cpu).unwrap();
        let e = nll_rows(&x, vec![0, 3], vec![1.0, 1.0]).unwrap().unwrap_err().to_string();
        assert!(e.contains("target 3 outside the 3 classes"), "{e}");
    }
}
