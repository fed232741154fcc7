//! `softmax(scores * scale + mask)` over the last dimension as one graph node: the attention
//! weights of a scaled dot product with an additive mask.
//!
//! As tensor operations that is three nodes (the scaling, the broadcast addition of the mask,
//! the softmax), and candle's backward pass gives each of them, and the broadcast mask too, a
//! zero-filled gradient of the scores' size to add into. Here the backward pass is the softmax's
//! followed by the scale. The arithmetic is that of the three operations (`x * scale`, then `+ m`,
//! then [`softmax_rows`]), so the weights and gradients are theirs to the bit.

use super::node::{Kernel1, Node1};
use super::unexpected::unexpected;
use crate::nn::fused::in_place::with_f32_pair;
use crate::nn::fused::kernels::{softmax_rows, softmax_rows_backward};
use candle_core::{CpuStorage, DType, Device, Result, Shape, Storage, Tensor};

/// The mask broadcast to the scores: its values and, per dimension of the scores, its stride
/// (0 where it broadcasts).
struct Mask {
    values: Vec<f32>,
    strides: Vec<usize>,
}

impl Mask {
    /// The mask's value for every entry of the scores (`dims`), in the scores' order.
    fn offsets(&self, dims: &[usize]) -> impl Iterator<Item = usize> + '_ {
        let count: usize = dims.iter().product();
        let dims = dims.to_vec();
        let mut index = vec![0usize; dims.len()];
        let mut offset = 0usize;
        (0..count).map(move |_| {
            let here = offset;
            for d in (0..dims.len()).rev() {
                index[d] += 1;
                offset += self.strides[d];
                if index[d] < dims[d] {
                    break;
                }
                offset -= self.strides[d] * dims[d];
                index[d] = 0;
            }
            here
        })
    }
}

struct MaskedSoftmax {
    scale: f32,
    mask: Option<Mask>,
    n: usize,
}

impl Kernel1 for MaskedSoftmax {
    const NAME: &'static str = "masked-softmax";
    const OP: &'static str = "masked_softmax";

    fn forward(&self, x: &[f32], dims: &[usize]) -> Result<(Vec<f32>, Shape)> {
        let mut z: Vec<f32> = x.iter().map(|v| v * self.scale).collect();
        if let Some(mask) = &self.mask {
            for (z, o) in z.iter_mut().zip(mask.offsets(dims)) {
                *z += mask.values[o];
            }
        }
        Ok((softmax_rows(&z, self.n)?, Shape::from(dims)))
    }

    fn backward(&self, _x: &Tensor, res: &Tensor, grad: &Tensor) -> Result<Option<Tensor>> {
        let dz = with_f32_pair(res, grad, |y, g| softmax_rows_backward(y, g, self.n))??;
        let dx: Vec<f32> = dz.iter().map(|v| v * self.scale).collect();
        Ok(Some(Tensor::from_vec(dx, res.shape(), res.device())?))
    }
}

/// `softmax(scores * scale + mask)` over the last dimension, differentiable in `scores`; `mask`
/// (additive, broadcasting to the scores) receives no gradient. One graph node for f32 CPU
/// tensors, candle's operations otherwise.
///
/// # Shapes
/// - `scores`: `(..., Lq, Lk)`; `mask`: broadcasting to it
/// - returns the weights, shaped like `scores`
pub(crate) fn masked_softmax(scores: &Tensor, scale: f64, mask: Option<&Tensor>) -> Result<Tensor> {
    let Some(&n) = scores.dims().last() else { return Err(unexpected("masked_softmax: expected scores (..., Lk), got a scalar")) };
    let cpu = |t: &Tensor| t.dtype() == DType::F32 && matches!(t.device(), Device::Cpu);
    if !cpu(scores) || mask.is_some_and(|m| !matches!(m.device(), Device::Cpu)) || scores.elem_count() == 0 {
        let mut z = (scores * scale)?;
        if let Some(m) = mask {
            z = z.broadcast_add(&m.to_dtype(z.dtype())?)?;
        }
        return crate::nn::softmax(&z);
    }
    let mask = match mask {
        None => None,
        Some(m) => {
            let broadcast = m.to_dtype(DType::F32)?.contiguous()?.broadcast_as(scores.shape())?;
            let (storage, layout) = broadcast.storage_and_layout();
            let Storage::Cpu(CpuStorage::F32(data)) = &*storage else {
                return Err(unexpected("masked_softmax: expected the mask on the CPU"));
            };
            let start = layout.start_offset();
            Some(Mask { values: data[start..].to_vec(), strides: layout.stride().to_vec() })
        }
    };
    scores.contiguous()?.apply_op1(Node1(MaskedSoftmax { scale: scale as f32, mask, n }))
}

#[cfg(test)]
mod tests {
    use super::masked_softmax;
    use candle_core::{Device, Tensor, Var};

    fn values(t: &Tensor) -> Vec<f32> {
        t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
    }

    /// The node against the three tensor operations it replaces: weights and the scores'
    /// gradient to the bit, for masks that broadcast over heads, queries or both, and no mask.
    #[test]
    fn equals_scale_mask_and_softmax_to_the_bit() {
        let dev = Device::Cpu;
        let scores = Var::from_tensor(&Tensor::randn(0f32, 2.0, (3, 2, 4, 5), &dev).unwrap()).unwrap();
        let up = Tensor::randn(0f32, 1.0, (3, 2, 4, 5), &dev).unwrap();
        let causal = Tensor::new(&[0f32, f32::NEG_INFINITY], &dev).unwrap().index_select(
            &Tensor::from_vec((0..4u32).flat_map(|q| (0..5u32).map(move |k| u32::from(k > q))).collect::<Vec<u32>>(), 20, &dev).unwrap(),
            0,
        );
        let causal = causal.unwrap().reshape((1, 1, 4, 5)).unwrap();
        let padding = Tensor::randn(0f32, 1.0, (3, 1, 1, 5), &dev).unwrap();
        for mask in [None, Some(causal), Some(padding)] {
            let scale = 1.0 / 8f64.sqrt();
            let fused = masked_softmax(&scores, scale, mask.as_ref()).unwrap();
            let mut z = (scores.as_tensor() * scale).unwrap();
            if let Some(m) = &mask {
                z = z.broadcast_add(m).unwrap();
            }
            let plain = crate::nn::softmax(&z).unwrap();
            assert_eq!(values(&fused), values(&plain));
            let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
            let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
            assert_eq!(values(gf.get(&scores).unwrap()), values(gp.get(&scores).unwrap()));
        }
    }
}
