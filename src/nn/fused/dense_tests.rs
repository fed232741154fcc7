//! The dense products' tests: the transpose, the product against candle's, the linear map's node, and the
//! training step's transposed copies and gradient sink around it.

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

fn sunk(loss: &Tensor) -> candle_core::Result<candle_core::backprop::GradStore> {
    let (store, sunk) = super::grad_sink::with_grad_sink(|| loss.backward());
    let mut store = store?;
    sunk.merge_into(&mut store)?;
    Ok(store)
}

/// A wide and a lecture-sized linear map, a layer norm, a weight read twice by fused nodes and
/// a weight read by a fused node and by a plain candle operation: the same gradients with the
/// sink as without, to the bit, and the sink took the parameters' gradients from candle.
#[test]
fn the_same_gradients_through_the_sink() {
    let dev = Device::Cpu;
    let var = |dims: &[usize], std: f32| Var::from_tensor(&Tensor::randn(0f32, std, dims, &dev).unwrap()).unwrap();
    let x = var(&[6, 40], 1.0);
    let (w1, b1) = (var(&[30, 40], 0.2), var(&[30], 1.0));
    let (w2, b2) = (var(&[40, 30], 0.2), var(&[40], 1.0));
    let (gamma, beta) = (var(&[40], 1.0), var(&[40], 0.1));
    let (w3, b3) = (var(&[5, 8], 0.2), var(&[5], 1.0));
    let small = var(&[3, 8], 1.0);
    let up = Tensor::randn(0f32, 1.0, (6, 40), &dev).unwrap();
    let loss = || -> candle_core::Result<Tensor> {
        let h = super::dense::linear(&x, &w1, Some(&b1))?.relu()?;
        let y = super::layer_norm::layer_norm_node(&super::dense::linear(&h, &w2, Some(&b2))?, &gamma, &beta, 1e-5)?
            .expect("the fused layer norm");
        // w1 read a second time by the same kind of node, w2 by a plain operation too
        let again = super::dense::linear(&x, &w1, Some(&b1))?.sum_all()?;
        let plain = w2.sqr()?.sum_all()?;
        let lecture = super::dense::linear(&small, &w3, Some(&b3))?.sqr()?.sum_all()?;
        ((y * &up)?.sum_all()? + again + plain + lecture)?.sum_all()
    };
    let plain = loss().unwrap().backward().unwrap();
    let l = loss().unwrap();
    let (store, taken) = super::grad_sink::with_grad_sink(|| l.backward());
    let store = store.unwrap();
    for p in [&w1, &b1, &w2, &b2, &gamma, &beta, &w3, &b3] {
        // w2 is also read by a plain operation, whose gradient candle keeps
        let plain_too = std::ptr::eq(p, &w2);
        assert_eq!(store.get(p).is_some(), plain_too, "candle's store, parameter of {:?}", p.dims());
    }
    let mut store = store;
    taken.merge_into(&mut store).unwrap();
    let merged = sunk(&loss().unwrap()).unwrap();
    for (name, p) in
        [("x", &x), ("w1", &w1), ("b1", &b1), ("w2", &w2), ("b2", &b2), ("gamma", &gamma), ("beta", &beta), ("w3", &w3), ("b3", &b3)]
    {
        let want = values(plain.get(p).unwrap());
        assert!(values(store.get(p).unwrap()) == want, "{name}");
        assert!(values(merged.get(p).unwrap()) == want, "{name}, through the helper");
    }
}
