//! Unit tests of the fused kernels (crate-private): values and gradients equal to candle's own
//! operations, and raw slices checked before use.

use super::dense::linear;
use super::kernels::{add_bias, linear_backward, linear_forward, relu, softmax_last_dim, softmax_rows, softmax_rows_backward};
use crate::repro::Generator;
use candle_core::{D, Device, Tensor, Var};

fn close(what: &str, a: &Tensor, b: &Tensor) {
    let (a, b) = (a.flatten_all().unwrap().to_vec1::<f32>().unwrap(), b.flatten_all().unwrap().to_vec1::<f32>().unwrap());
    assert_eq!(a.len(), b.len(), "{what}: sizes");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{what}[{i}]: fused {x}, candle {y}");
    }
}

#[test]
fn fused_linear_has_candles_values_and_gradients() {
    let mut g = Generator::new(7);
    for (n_in, n_out) in [(2, 2), (2, 10), (10, 2), (6, 3)] {
        let x = Var::from_tensor(&g.randn((16, 2, n_in)).unwrap()).unwrap();
        let w = Var::from_tensor(&g.randn((n_out, n_in)).unwrap()).unwrap();
        let b = Var::from_tensor(&g.randn(n_out).unwrap()).unwrap();
        let up = g.randn((16, 2, n_out)).unwrap();
        let fused = linear(&x, &w, Some(&b)).unwrap();
        let plain =
            x.reshape((32, n_in)).unwrap().matmul(&w.t().unwrap()).unwrap().broadcast_add(&b).unwrap().reshape((16, 2, n_out)).unwrap();
        close("linear forward", &fused, &plain);
        let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
        let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
        for (name, v) in [("x", &x), ("weight", &w), ("bias", &b)] {
            close(&format!("linear({n_in}, {n_out}) d{name}"), gf.get(v).unwrap(), gp.get(v).unwrap());
        }
    }
}

#[test]
fn fused_relu_has_candles_values_and_pytorchs_gradient() {
    let mut g = Generator::new(9);
    let x = Var::from_tensor(&g.randn((4, 5, 6)).unwrap()).unwrap();
    let up = g.randn((4, 5, 6)).unwrap();
    let fused = relu(&x).unwrap();
    let plain = x.relu().unwrap();
    let bits = |t: &Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    assert_eq!(bits(&fused), bits(&plain));
    let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
    let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
    assert_eq!(bits(gf.get(&x).unwrap()), bits(gp.get(&x).unwrap()), "random inputs hold no exact zero");
    // at exactly 0 PyTorch passes no gradient (candle's relu passes it); on a transposed view too
    let x = Var::from_tensor(&Tensor::new(&[[-1f32, 0.0], [2.0, 0.5]], &Device::Cpu).unwrap()).unwrap();
    let y = relu(&x.t().unwrap()).unwrap();
    assert_eq!(bits(&y), [0.0, 2.0, 0.0, 0.5]);
    let gx = y.sum_all().unwrap().backward().unwrap();
    assert_eq!(bits(gx.get(&x).unwrap()), [0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn fused_softmax_has_candles_values_and_gradients() {
    let mut g = Generator::new(8);
    for n in [1, 2, 5] {
        let x = Var::from_tensor(&(g.randn((16, 3, n)).unwrap() * 3.0).unwrap()).unwrap();
        let up = g.randn((16, 3, n)).unwrap();
        let fused = softmax_last_dim(&x).unwrap();
        let plain = candle_nn::ops::softmax(&x, D::Minus1).unwrap();
        close("softmax forward", &fused, &plain);
        let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
        let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
        close(&format!("softmax({n}) dx"), gf.get(&x).unwrap(), gp.get(&x).unwrap());
    }
}

#[test]
fn fused_linear_rejects_mismatched_shapes() {
    let x = Tensor::zeros((4, 3), candle_core::DType::F32, &Device::Cpu).unwrap();
    let w = Tensor::zeros((2, 5), candle_core::DType::F32, &Device::Cpu).unwrap();
    let b = Tensor::zeros(2, candle_core::DType::F32, &Device::Cpu).unwrap();
    let err = linear(&x, &w, Some(&b)).unwrap_err().to_string();
    assert!(err.contains("linear") && err.contains("(..., 5)") && err.contains("[4, 3]"), "{err}");
}

/// `f` must return an error (not panic) whose text holds every needle.
fn refused_slice<T: std::fmt::Debug>(what: &str, f: impl FnOnce() -> candle_core::Result<T>, needles: &[&str]) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let Ok(result) = outcome else { panic!("{what}: panicked instead of returning an error") };
    let e = result.expect_err(what).to_string();
    for n in needles {
        assert!(e.contains(n), "{what}: expected `{n}` in the error: {e}");
    }
}

#[test]
fn raw_slice_kernels_check_their_slices() {
    refused_slice("linear_forward with a short weight", || linear_forward(&[1., 2.], &[1.], &[0., 0.], 2, 2), &["linear_forward", "`w`"]);
    refused_slice("linear_forward with a short bias", || linear_forward(&[1., 2.], &[1.; 4], &[0.], 2, 2), &["`b`"]);
    refused_slice("linear_forward with a ragged x", || linear_forward(&[1., 2., 3.], &[1.; 4], &[0.; 2], 2, 2), &["whole rows"]);
    refused_slice("linear_forward with n_in 0", || linear_forward(&[], &[], &[0.; 2], 0, 2), &["linear_forward"]);
    refused_slice("linear_backward with a short gradient", || linear_backward(&[1., 2.], &[1.; 4], &[1.], 2, 2), &["linear_backward"]);
    refused_slice("softmax_rows with a ragged row", || softmax_rows(&[1., 2., 3.], 2), &["softmax_rows"]);
    refused_slice("softmax_rows_backward with a short g", || softmax_rows_backward(&[0.5, 0.5], &[1.], 2), &["`g`"]);
    assert_eq!(linear_forward(&[1., 2.], &[1., 1., 0., 1.], &[0., 1.], 2, 2).unwrap(), vec![3., 3.]);
}

#[test]
fn an_empty_weight_is_refused() {
    let zeros = |shape: (usize, usize)| Tensor::zeros(shape, candle_core::DType::F32, &Device::Cpu).unwrap();
    refused_slice("linear with an empty weight", || linear(&zeros((2, 0)), &zeros((3, 0)), None), &["linear"]);
}

#[test]
fn fused_bias_has_candles_values_and_gradients() {
    let mut g = Generator::new(11);
    for dims in [vec![3, 5], vec![2, 3, 4], vec![1, 1], vec![0, 4]] {
        let n = *dims.last().unwrap();
        let y = Var::from_tensor(&g.randn(dims.as_slice()).unwrap()).unwrap();
        let b = Var::from_tensor(&g.randn(n).unwrap()).unwrap();
        let up = g.randn(dims.as_slice()).unwrap();
        let fused = add_bias(&y, &b).unwrap();
        let plain = y.broadcast_add(&b).unwrap();
        assert_eq!(fused.dims(), plain.dims());
        close(&format!("add_bias {dims:?}"), &fused, &plain);
        let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
        let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
        for (name, v) in [("y", &y), ("bias", &b)] {
            let (f, p) = (gf.get(v), gp.get(v));
            match (f, p) {
                (Some(f), Some(p)) => close(&format!("add_bias {dims:?} d{name}"), f, p),
                // an empty y: no gradient reaches either (candle's sum over no values)
                (f, p) => assert!(
                    dims[0] == 0
                        && f.is_none_or(|t| t.sum_all().unwrap().to_scalar::<f32>().unwrap() == 0.0)
                        && p.is_none_or(|t| t.sum_all().unwrap().to_scalar::<f32>().unwrap() == 0.0),
                    "add_bias {dims:?} d{name}"
                ),
            }
        }
    }
    // a transposed (non-contiguous) y, and a wrong bias, as candle and as an error
    let y = g.randn((4, 3)).unwrap().t().unwrap();
    let b = g.randn(4).unwrap();
    close("add_bias transposed", &add_bias(&y, &b).unwrap(), &y.broadcast_add(&b).unwrap());
    let e = add_bias(&y, &g.randn(3).unwrap()).unwrap_err().to_string();
    assert!(e.contains("add_bias: expected a bias (4)"), "{e}");
}
