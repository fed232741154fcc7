//! `nn.LayerNorm` with a backward pass (candle's own layer norm records none).

use super::kernels::{self, Fused3, XwbKernel};
use super::module::{Walk, Walker};
use super::param::Param;
use super::shape::{check_input_dtype, check_last_dim, check_size};
use candle_core::{D, DType, Device, Result, Tensor, bail};

/// `nn.LayerNorm(d_model)` over the last dimension, with a backward pass (candle's own layer
/// norm records none). Parameters `weight` (ones) and `bias` (zeros); eps 1e-5.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    pub weight: Param,
    pub bias: Param,
    pub eps: f64,
    pub d_model: usize,
}

impl LayerNorm {
    pub fn new(d_model: usize) -> Result<Self> {
        if d_model == 0 {
            bail!("LayerNorm: d_model must be positive")
        }
        check_size("LayerNorm", &[d_model])?;
        Ok(LayerNorm {
            weight: Param::new(&Tensor::ones(d_model, DType::F32, &Device::Cpu)?)?,
            bias: Param::new(&Tensor::zeros(d_model, DType::F32, &Device::Cpu)?)?,
            eps: 1e-5,
            d_model,
        })
    }

    /// Normalises over the last dimension, then scales by `weight` and shifts by `bias`.
    ///
    /// # Shapes
    /// - `x`: `(..., D)` with `D = d_model`
    /// - returns `(..., D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        check_last_dim("LayerNorm", x, self.d_model, "d_model")?;
        let weight = self.weight.tensor();
        check_input_dtype("LayerNorm", x, weight.dtype())?;
        layer_norm(x, &weight, &self.bias.tensor(), self.eps)
    }
}

/// Layer normalisation over the last dimension (biased variance), differentiable: on the CPU in
/// f32 one graph node with the hand-written backward of `layer_norm_backward`; otherwise
/// candle's tensor operations.
pub fn layer_norm(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Tensor> {
    let Some(&n) = x.dims().last() else { bail!("layer_norm: expected x (..., D), got a scalar") };
    // PyTorch accepts any eps >= 0 (0 divides a constant row by zero, there as here); a negative,
    // NaN or infinite eps turns every row into NaN or zeros without a word
    if !(eps.is_finite() && eps >= 0.0) {
        bail!("layer_norm: eps must be a finite number >= 0 (PyTorch's default is 1e-5), got {eps}")
    }
    if weight.dims() != [n] || bias.dims() != [n] {
        bail!("layer_norm: expected weight and bias ({n}) for x {:?}, got {:?} and {:?}", x.dims(), weight.dims(), bias.dims())
    }
    if kernels::fused(&[x, weight, bias]) && n > 0 {
        return x.contiguous()?.apply_op3(&weight.contiguous()?, &bias.contiguous()?, Fused3(LayerNormOp { n, eps }));
    }
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
    let normed = centered.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(weight)?.broadcast_add(bias)
}

/// The normalised rows of `x` (rows of `n`) and each row's `1 / sqrt(var + eps)`:
/// `xhat = (x - mean) / sqrt(var + eps)` with the biased variance.
pub fn layer_norm_rows(x: &[f32], n: usize, eps: f64) -> (Vec<f32>, Vec<f32>) {
    let mut xhat = Vec::with_capacity(x.len());
    let mut rstd = Vec::with_capacity(x.len() / n.max(1));
    for row in x.chunks_exact(n) {
        let mean = row.iter().sum::<f32>() / n as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n as f32;
        let std = (var + eps as f32).sqrt();
        xhat.extend(row.iter().map(|v| (v - mean) / std));
        rstd.push(1.0 / std);
    }
    (xhat, rstd)
}

/// The gradients `(dx, dweight, dbias)` of `y = xhat * weight + bias` from the output's gradient
/// `g`, given [`layer_norm_rows`]' `xhat` and `rstd`:
/// `dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))` with `dxhat = g * weight`.
pub fn layer_norm_backward(xhat: &[f32], rstd: &[f32], weight: &[f32], g: &[f32], n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut dx = vec![0f32; xhat.len()];
    let (mut dw, mut db) = (vec![0f32; n], vec![0f32; n]);
    for (((xr, gr), dr), r) in xhat.chunks_exact(n).zip(g.chunks_exact(n)).zip(dx.chunks_exact_mut(n)).zip(rstd) {
        let (mut sum_d, mut sum_dx) = (0f32, 0f32);
        for k in 0..n {
            let d = gr[k] * weight[k];
            sum_d += d;
            sum_dx += d * xr[k];
            dw[k] += gr[k] * xr[k];
            db[k] += gr[k];
        }
        let (mean_d, mean_dx) = (sum_d / n as f32, sum_dx / n as f32);
        for k in 0..n {
            dr[k] = r * (gr[k] * weight[k] - mean_d - xr[k] * mean_dx);
        }
    }
    (dx, dw, db)
}

struct LayerNormOp {
    n: usize,
    eps: f64,
}

impl XwbKernel for LayerNormOp {
    const NAME: &'static str = "layer-norm";
    const OP: &'static str = "layer_norm";

    fn forward(&self, x: &[f32], w: &[f32], b: &[f32], x_dims: &[usize]) -> Result<(Vec<f32>, Vec<usize>)> {
        if w.len() != self.n || b.len() != self.n || !x.len().is_multiple_of(self.n) {
            bail!(
                "{}: expected rows of {} and weight, bias ({}), got {}, {} and {} values",
                Self::OP,
                self.n,
                self.n,
                x.len(),
                w.len(),
                b.len()
            )
        }
        let (mut y, _) = layer_norm_rows(x, self.n, self.eps);
        for row in y.chunks_exact_mut(self.n) {
            for ((v, wv), bv) in row.iter_mut().zip(w).zip(b) {
                *v = *v * wv + bv;
            }
        }
        Ok((y, x_dims.to_vec()))
    }

    fn backward(&self, x: &[f32], w: &[f32], g: &[f32]) -> Result<(Vec<f32>, Vec<f32>, Vec<f32>)> {
        let (xhat, rstd) = layer_norm_rows(x, self.n, self.eps);
        Ok(layer_norm_backward(&xhat, &rstd, w, g, self.n))
    }
}

impl Walk for LayerNorm {
    fn walk(&self, w: &mut Walker) {
        w.param("weight", &self.weight);
        w.param("bias", &self.bias);
    }
}
