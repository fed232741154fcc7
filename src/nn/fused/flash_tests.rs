//! The attention kernel ([`super::flash`]) against the plain composition it replaces (a batched
//! product, `softmax(scores * scale + mask)` of candle's operations, a batched product): outputs
//! and the three inputs' gradients, with every kind of mask the Transformer makes, sizes
//! that are not multiples of the tiles, rows whose first key tiles are all masked, and a row whose
//! later tiles raise the maximum (random scores do, in most rows).

use super::flash::{FLASH_MIN_KEYS, flash_attention};
use candle_core::{Device, Tensor, Var};

fn values(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

/// The largest difference between `a` and `b` relative to `b`'s largest magnitude.
fn relative_gap(a: &Tensor, b: &Tensor) -> f32 {
    let (a, b) = (values(a), values(b));
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-30);
    a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max) / scale
}

fn additive(keep: impl Fn(usize, usize, usize) -> bool, (n, lq, lk): (usize, usize, usize)) -> Tensor {
    let v: Vec<f32> = (0..n)
        .flat_map(|b| (0..lq).flat_map(move |i| (0..lk).map(move |j| (b, i, j))))
        .map(|(b, i, j)| if keep(b, i, j) { 0.0 } else { f32::NEG_INFINITY })
        .collect();
    Tensor::from_vec(v, (n, 1, lq, lk), &Device::Cpu).unwrap()
}

/// Standard normals of `shape` from a generator of their own (the same every run: candle's CPU
/// generator cannot be seeded).
fn draw(seed: u64, shape: &[usize]) -> Tensor {
    crate::repro::Generator::new(seed).randn(shape).unwrap()
}
#[test]
fn equals_the_plain_composition() {
    let (n, h, d, dv) = (2, 3, 8, 12);
    for &(lq, lk) in &[(70, 200), (1, 64), (130, 130), (5, 257)] {
        let q = Var::from_tensor(&(draw(1, &[n, h, lq, d]) * 1.5).unwrap()).unwrap();
        let kt = Var::from_tensor(&(draw(2, &[n, h, d, lk]) * 1.5).unwrap()).unwrap();
        let v = Var::from_tensor(&draw(3, &[n, h, lk, dv])).unwrap();
        let up = draw(4, &[n, h, lq, dv]);
        let q_late = q.as_tensor().clone();
        let causal = additive(|_, i, j| j + lq <= i + lk, (1, lq, lk));
        let padding = additive(|b, _, j| j < lk - 3 * b, (n, 1, lk));
        // row 0 of batch 1 sees only the last keys: its first key tiles are all masked
        let late = additive(|b, i, j| b == 0 || i > 0 || j >= lk - 5, (n, lq, lk));
        for mask in [None, Some(causal), Some(padding), Some(late)] {
            let scale = 1.0 / (d as f64).sqrt();
            let plain = {
                let mut z = (q_late.matmul(kt.as_tensor()).unwrap() * scale).unwrap();
                if let Some(m) = &mask {
                    z = z.broadcast_add(m).unwrap();
                }
                crate::nn::softmax(&z).unwrap().matmul(v.as_tensor()).unwrap()
            };
            let fused = flash_attention(&q_late, kt.as_tensor(), v.as_tensor(), scale, mask.as_ref()).unwrap().unwrap();
            assert!(relative_gap(&fused, &plain) < 2e-6, "output {lq}x{lk}: {}", relative_gap(&fused, &plain));
            let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
            let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
            for (name, var) in [("q", q.as_tensor()), ("kt", kt.as_tensor()), ("v", v.as_tensor())] {
                let (a, b) = (gf.get(var).unwrap(), gp.get(var).unwrap());
                assert!(relative_gap(a, b) < 1e-5, "d{name} {lq}x{lk}: {}", relative_gap(a, b));
            }
        }
    }
}

#[test]
fn leaves_what_it_does_not_take_to_the_caller() {
    let dev = Device::Cpu;
    let short = FLASH_MIN_KEYS - 1;
    let q = Tensor::zeros((1, 1, 3, 4), candle_core::DType::F32, &dev).unwrap();
    let kt = Tensor::zeros((1, 1, 4, short), candle_core::DType::F32, &dev).unwrap();
    let v = Tensor::zeros((1, 1, short, 4), candle_core::DType::F32, &dev).unwrap();
    assert!(flash_attention(&q, &kt, &v, 0.5, None).unwrap().is_none(), "too few keys");
    let q64 = q.to_dtype(candle_core::DType::F64).unwrap();
    let kt = Tensor::zeros((1, 1, 4, 64), candle_core::DType::F32, &dev).unwrap();
    let v = Tensor::zeros((1, 1, 64, 4), candle_core::DType::F32, &dev).unwrap();
    assert!(flash_attention(&q64, &kt, &v, 0.5, None).unwrap().is_none(), "float64");
    let empty = Tensor::zeros((0, 1, 3, 4), candle_core::DType::F32, &dev).unwrap();
    assert!(flash_attention(&empty, &kt, &v, 0.5, None).unwrap().is_none(), "an empty batch");
    assert!(flash_attention(&q, &kt, &v, 0.5, None).unwrap().is_some());
}

/// A NaN score makes its row NaN, as in the plain softmax, even under the mask and in a tile
/// whose other keys are all masked.
#[test]
fn a_nan_score_makes_its_row_nan_as_the_plain_softmax_does() {
    let dev = Device::Cpu;
    let (lq, lk, d) = (3, 200, 4);
    let q = Tensor::randn(0f32, 1.0, (1, 1, lq, d), &dev).unwrap();
    let mut kt = values(&Tensor::randn(0f32, 1.0, (1, 1, d, lk), &dev).unwrap());
    kt[0] = f32::NAN; // key 0's first component: every query's score with key 0 is NaN
    let kt = Tensor::from_vec(kt, (1, 1, d, lk), &dev).unwrap();
    let v = Tensor::randn(0f32, 1.0, (1, 1, lk, d), &dev).unwrap();
    // the first tile all masked (key 0 among them), the rest open
    let mask = additive(|_, _, j| j >= 128, (1, 1, lk));
    let out = flash_attention(&q, &kt, &v, 0.5, Some(&mask)).unwrap().unwrap();
    let z = (q.matmul(&kt).unwrap() * 0.5).unwrap().broadcast_add(&mask).unwrap();
    let plain = crate::nn::softmax(&z).unwrap().matmul(&v).unwrap();
    assert!(values(&plain).iter().all(|v| v.is_nan()), "the plain composition's rows are NaN");
    assert!(values(&out).iter().all(|v| v.is_nan()), "so are the kernel's");
}
