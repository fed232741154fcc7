//! Splitting `d_model` into heads and merging them back as one copy and one graph node each.
//!
//! `x.reshape((N, L, h, d_k)).transpose(1, 2).contiguous()` is three nodes of candle's graph, and
//! the keys' transposed layout two more; the backward pass gives each a zero-filled gradient of
//! the activations' size to add into. [`HeadsOp`] is the reshape, the permutation and the copy
//! in one node, whose backward pass is the inverse permutation: the same values moved to the same
//! places, so outputs and gradients equal the composed operations' to the bit.

use super::node::{Kernel1, Node1};
use super::unexpected::unexpected;
use candle_core::{DType, Device, Result, Shape, Tensor};

/// Views a contiguous input as `dims`, permutes its axes by `perm` (output axis `i` is input
/// axis `perm[i]`) and copies the result into `out` (any shape of the same size).
struct HeadsOp {
    dims: [usize; 4],
    perm: [usize; 4],
    out: Shape,
}

/// The number of elements of `dims`, `None` where it overflows.
fn elements(dims: [usize; 4]) -> Option<usize> {
    elements_of(&dims)
}

fn elements_of(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// The values of `x` (contiguous, viewed as `dims`) with their axes permuted by `perm`.
fn permute4(x: &[f32], dims: [usize; 4], perm: [usize; 4]) -> Vec<f32> {
    let strides = [dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1];
    let (od, os) = (perm.map(|p| dims[p]), perm.map(|p| strides[p]));
    let mut y = Vec::with_capacity(x.len());
    for a in 0..od[0] {
        for b in 0..od[1] {
            for c in 0..od[2] {
                let base = a * os[0] + b * os[1] + c * os[2];
                if os[3] == 1 {
                    y.extend_from_slice(&x[base..base + od[3]]);
                } else {
                    y.extend((0..od[3]).map(|d| x[base + d * os[3]]));
                }
            }
        }
    }
    y
}

impl Kernel1 for HeadsOp {
    const NAME: &'static str = "heads";
    const OP: &'static str = "heads";

    fn forward(&self, x: &[f32], _dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        if Some(x.len()) != elements(self.dims) || x.len() != self.out.elem_count() {
            return Err(unexpected(format!("heads: {} values do not make {:?} or {:?}", x.len(), self.dims, self.out.dims())));
        }
        Ok((permute4(x, self.dims, self.perm), self.out.clone()))
    }

    fn backward(&self, x: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let permuted = self.perm.map(|p| self.dims[p]);
        let mut inverse = [0usize; 4];
        for (i, &p) in self.perm.iter().enumerate() {
            inverse[p] = i;
        }
        let back = HeadsOp { dims: permuted, perm: inverse, out: x.shape().clone() };
        Ok(Some(grad.contiguous()?.apply_op1(Node1(back))?))
    }
}

/// `x` viewed as `dims`, its axes permuted by `perm`, copied contiguous and reshaped to `out`:
/// one graph node on the CPU in f32, candle's reshape, permute and copy otherwise.
fn heads(x: &Tensor, dims: [usize; 4], perm: [usize; 4], out: Shape) -> Result<Tensor> {
    if Some(x.elem_count()) != elements(dims) || Some(x.elem_count()) != elements_of(out.dims()) {
        return Err(unexpected(format!(
            "heads: a tensor of shape {:?} cannot be viewed as {dims:?} and copied as {:?}",
            x.dims(),
            out.dims()
        )));
    }
    if x.dtype() == DType::F32 && matches!(x.device(), Device::Cpu) {
        return x.contiguous()?.apply_op1(Node1(HeadsOp { dims, perm, out }));
    }
    x.reshape(dims.to_vec())?.permute(perm.to_vec())?.contiguous()?.reshape(out)
}

/// `(N, L, h * d_k)` -> `(N, h, L, d_k)`: the heads of the queries and values.
pub(crate) fn split_heads(x: &Tensor, h: usize, d_k: usize) -> Result<Tensor> {
    let (n, l, _) = x.dims3()?;
    heads(x, [n, l, h, d_k], [0, 2, 1, 3], Shape::from((n, h, l, d_k)))
}

/// `(N, L, h * d_k)` -> `(N, h, d_k, L)`: the heads of the keys, transposed as the scores read them.
pub(crate) fn split_heads_transposed(x: &Tensor, h: usize, d_k: usize) -> Result<Tensor> {
    let (n, l, _) = x.dims3()?;
    heads(x, [n, l, h, d_k], [0, 2, 3, 1], Shape::from((n, h, d_k, l)))
}

/// `(N, h, L, d_k)` -> `(N, L, h * d_k)`: the heads' outputs side by side again.
pub(crate) fn merge_heads(x: &Tensor) -> Result<Tensor> {
    let (n, h, l, d_k) = x.dims4()?;
    let Some(width) = h.checked_mul(d_k) else { return Err(unexpected(format!("merge_heads: {h} heads of {d_k} overflow"))) };
    heads(x, [n, h, l, d_k], [0, 2, 1, 3], Shape::from((n, l, width)))
}

#[cfg(test)]
mod tests {
    use super::{merge_heads, split_heads, split_heads_transposed};
    use candle_core::{Device, Tensor, Var};

    fn values(t: &Tensor) -> Vec<f32> {
        t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
    }

    /// Each node against candle's reshape, transpose and copy: values and gradients to the bit.
    #[test]
    fn equal_candles_reshape_transpose_and_copy() {
        let dev = Device::Cpu;
        let (n, l, h, d_k) = (3, 5, 4, 2);
        let x = Var::from_tensor(&Tensor::randn(0f32, 1.0, (n, l, h * d_k), &dev).unwrap()).unwrap();
        let four = || x.reshape((n, l, h, d_k)).unwrap();
        let cases = [
            (split_heads(&x, h, d_k).unwrap(), four().transpose(1, 2).unwrap().contiguous().unwrap()),
            (split_heads_transposed(&x, h, d_k).unwrap(), four().permute((0, 2, 3, 1)).unwrap().contiguous().unwrap()),
            (
                merge_heads(&split_heads(&x, h, d_k).unwrap()).unwrap(),
                four()
                    .transpose(1, 2)
                    .unwrap()
                    .contiguous()
                    .unwrap()
                    .transpose(1, 2)
                    .unwrap()
                    .contiguous()
                    .unwrap()
                    .reshape((n, l, h * d_k))
                    .unwrap(),
            ),
        ];
        for (fused, plain) in cases {
            assert_eq!((fused.dims(), values(&fused)), (plain.dims(), values(&plain)));
            let up = Tensor::randn(0f32, 1.0, fused.shape(), &dev).unwrap();
            let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
            let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
            assert_eq!(values(gf.get(&x).unwrap()), values(gp.get(&x).unwrap()));
        }
        assert_eq!(values(&merge_heads(&split_heads(&x, h, d_k).unwrap()).unwrap()), values(&x));
    }
}
