//! The fused kernels against candle's own operations: same values, same gradients.

use attention_zoo::nn::kernels::{linear, softmax_last_dim};
use attention_zoo::repro::Generator;
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
