//! The dense products' tests: the transpose, the product against candle's, the linear map's node.

use candle_core::{Device, Tensor, Var};

#[test]
fn transpose_moves_every_element() {
    for (rows, cols) in [(384, 128), (17, 33), (1, 5), (5, 1), (0, 3)] {
        let a: Vec<f32> = (0..rows * cols).map(|v| v as f32).collect();
        let t = super::transposed::transpose(&a, rows, cols);
        for r in 0..rows {
            for c in 0..cols {
                assert_eq!(t[c * rows + r], a[r * cols + c], "({rows}, {cols}) at ({r}, {c})");
            }
        }
    }
}

fn values(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

/// The node against candle's own operations (product, bias, reshapes): the output and all
/// three gradients to the bit, for several row counts and widths.
#[test]
fn equals_candles_matmul_to_the_bit() {
    let dev = Device::Cpu;
    for (lead, n_in, n_out) in [(vec![3, 5], 40, 70), (vec![37], 64, 685), (vec![2, 1, 4], 17, 3), (vec![0, 4], 20, 6)] {
        let mut x_dims = lead.clone();
        x_dims.push(n_in);
        let x = Var::from_tensor(&Tensor::randn(0f32, 1.0, x_dims.as_slice(), &dev).unwrap()).unwrap();
        let w = Var::from_tensor(&Tensor::randn(0f32, 0.3, (n_out, n_in), &dev).unwrap()).unwrap();
        let b = Var::from_tensor(&Tensor::randn(0f32, 1.0, n_out, &dev).unwrap()).unwrap();
        let rows: usize = lead.iter().product();
        let mut y_dims = lead.clone();
        y_dims.push(n_out);
        let up = Tensor::randn(0f32, 1.0, y_dims.as_slice(), &dev).unwrap();
        let fused = crate::nn::fused::dense::linear(&x, &w, Some(&b)).unwrap();
        let plain = x
            .reshape((rows, n_in))
            .unwrap()
            .matmul(&w.t().unwrap())
            .unwrap()
            .broadcast_add(&b)
            .unwrap()
            .reshape(y_dims.as_slice())
            .unwrap();
        assert_eq!(fused.dims(), plain.dims());
        assert_eq!(values(&fused), values(&plain), "forward, x {x_dims:?}");
        let gf = (&fused * &up).unwrap().sum_all().unwrap().backward().unwrap();
        if rows == 0 {
            // an empty batch: zero gradients of the right shapes (candle's composed path gives none for the bias)
            for v in [&x, &w, &b] {
                let g = gf.get(v).unwrap();
                assert_eq!((g.dims(), values(g).iter().all(|&v| v == 0.0)), (v.dims(), true));
            }
            continue;
        }
        let gp = (&plain * &up).unwrap().sum_all().unwrap().backward().unwrap();
        for (name, v) in [("x", &x), ("w", &w), ("b", &b)] {
            let (f, p) = (gf.get(v).unwrap(), gp.get(v).unwrap());
            assert_eq!(f.dims(), p.dims());
            if name == "b" {
                // candle sums the bias gradient over the rows in its own order
                values(f).iter().zip(values(p)).for_each(|(a, b)| assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{name}: {a} vs {b}"));
            } else {
                assert_eq!(values(f), values(p), "gradient of {name}, x {x_dims:?}");
            }
        }
    }
}

/// Inside the scope the wide layer reads the copy, and gives the same bits, forward and
/// backward, for shapes that fill gemm's panels and shapes that leave remainders.
#[test]
fn the_copy_gives_the_same_bits() {
    let dev = Device::Cpu;
    for (rows, n_in, n_out) in [(300, 512, 700), (37, 33, 65), (1, 17, 1), (0, 40, 20)] {
        let x = Var::from_tensor(&Tensor::randn(0f32, 1.0, (rows, n_in), &dev).unwrap()).unwrap();
        let w = Var::from_tensor(&Tensor::randn(0f32, 0.1, (n_out, n_in), &dev).unwrap()).unwrap();
        let b = Var::from_tensor(&Tensor::randn(0f32, 1.0, n_out, &dev).unwrap()).unwrap();
        let weights = super::transposed::StepWeights::of(super::transposed::TransposedCopy::of(&w));
        let inside = super::transposed::with_transposed(weights.clone(), || {
            crate::nn::fused::in_place::with_f32(&w, |v| {
                super::transposed::with_copy_of(v, n_out, n_in, |c| assert!(c.is_some(), "the weight is in the table"))
            });
            crate::nn::fused::dense::linear(&x, &w, Some(&b)).unwrap()
        });
        let outside = crate::nn::fused::dense::linear(&x, &w, Some(&b)).unwrap();
        assert_eq!(values(&inside), values(&outside), "({rows}, {n_in}) -> {n_out}");
        let (gi, go) = (inside.sum_all().unwrap().backward().unwrap(), outside.sum_all().unwrap().backward().unwrap());
        for v in [&x, &w, &b] {
            assert_eq!(values(gi.get(v).unwrap()), values(go.get(v).unwrap()));
        }
        // closed after the pass: nothing is looked up
        crate::nn::fused::in_place::with_f32(&w, |v| super::transposed::with_copy_of(v, n_out, n_in, |c| assert!(c.is_none())));
    }
}
