//! The translation training pieces against PyTorch (tests/fixtures/cross_entropy.json):
//! `CrossEntropyLoss` and its gradients, `clip_grad_norm`, the warm-up schedule, and Adam steps
//! with both; then the errors for input PyTorch would reject or turn into NaN.

use crate::common;

use attention_zoo::prelude::*;
use common::fixtures::{f64s, load, max_diff, state, tensor, usizes, values};
use serde_json::Value;

const TOL: f64 = 1e-6;

fn targets(v: &Value, dims: &[usize], dtype: DType) -> Tensor {
    let ids: Vec<i64> = f64s(v).into_iter().map(|x| x as i64).collect();
    let t = Tensor::from_vec(ids, dims, &Device::Cpu).unwrap();
    if dtype == DType::U32 { t.to_dtype(DType::U32).unwrap() } else { t }
}

fn reduction(v: &Value) -> Reduction {
    match v.as_str().unwrap() {
        "mean" => Reduction::Mean,
        "sum" => Reduction::Sum,
        "none" => Reduction::None,
        r => panic!("unknown reduction {r}"),
    }
}

fn loss_fn(case: &Value) -> CrossEntropyLoss {
    let ignore = case["ignore_index"].as_i64();
    CrossEntropyLoss::with_options(ignore, case["label_smoothing"].as_f64().unwrap(), reduction(&case["reduction"])).unwrap()
}

/// The loss and the gradient of (loss * upstream).sum() (or of the loss itself) w.r.t. the logits.
fn loss_and_grad(ce: &CrossEntropyLoss, logits: &Tensor, targets: &Tensor, upstream: &Tensor) -> (Tensor, Tensor) {
    let x = Var::from_tensor(logits).unwrap();
    let loss = ce.forward(x.as_tensor(), targets).unwrap();
    let total = if ce.get_reduction() == Reduction::None { (&loss * upstream).unwrap().sum_all().unwrap() } else { loss.clone() };
    let grads = total.backward().unwrap();
    (loss, grads.get(x.as_tensor()).expect("a gradient for the logits").clone())
}

#[test]
fn cross_entropy_equals_pytorch_with_its_gradients() {
    let fx = load("cross_entropy");
    let (mut worst_loss, mut worst_grad) = (0f64, 0f64);
    let cases = fx["losses"].as_array().unwrap();
    for (k, case) in cases.iter().enumerate() {
        let logits = tensor(&case["logits"]);
        let dims = &logits.dims()[..logits.rank() - 1];
        let (want_loss, want_grad, upstream) = (tensor(&case["loss"]), tensor(&case["grad"]), tensor(&case["upstream"]));
        let ce = loss_fn(case);
        for dtype in [DType::I64, DType::U32] {
            let t = targets(&case["targets"], dims, dtype);
            let (loss, grad) = loss_and_grad(&ce, &logits, &t, &upstream);
            let what = format!("case {k} ({:?}, {ce:?}, {dtype:?})", logits.dims());
            assert_eq!(loss.dims(), want_loss.dims(), "{what}: loss shape");
            assert_eq!(grad.dims(), logits.dims(), "{what}: gradient shape");
            let (dl, dg) = (max_diff(&values(&loss), &values(&want_loss)), max_diff(&values(&grad), &values(&want_grad)));
            assert!(dl <= TOL && dg <= TOL, "{what}: loss differs by {dl}, gradient by {dg}");
            (worst_loss, worst_grad) = (worst_loss.max(dl), worst_grad.max(dg));
        }
    }
    assert!(cases.len() >= 70, "{} cases", cases.len());
    eprintln!("cross-entropy: {} cases, max |loss - PyTorch| {worst_loss:e}, max |grad - PyTorch| {worst_grad:e}", cases.len());
}

#[test]
fn the_loss_trait_gives_the_same_loss() {
    let fx = load("cross_entropy");
    let case = &fx["losses"][0];
    let logits = tensor(&case["logits"]);
    let t = targets(&case["targets"], &logits.dims()[..1], DType::I64);
    let via_trait = Loss::loss(&loss_fn(case), &logits, &t).unwrap();
    assert_eq!(values(&via_trait), values(&loss_fn(case).forward(&logits, &t).unwrap()));
}

#[test]
fn clip_grad_norm_equals_pytorch() {
    let fx = load("cross_entropy");
    let (mut worst_norm, mut worst_grad) = (0f64, 0f64);
    for (k, case) in fx["clipping"].as_array().unwrap().iter().enumerate() {
        let grads: Vec<Tensor> = case["grads"].as_array().unwrap().iter().map(tensor).collect();
        let params: Vec<Param> = grads.iter().map(|g| Param::new(&g.zeros_like().unwrap()).unwrap()).collect();
        // A GradStore as backward() gives it: sum(p * g) has gradient g for every p.
        let mut total = Tensor::new(0f32, &Device::Cpu).unwrap();
        for (p, g) in params.iter().zip(&grads) {
            total = (total + (p.tensor() * g).unwrap().sum_all().unwrap()).unwrap();
        }
        let mut store = total.backward().unwrap();
        let norm_type = f64s(&Value::Array(vec![case["norm_type"].clone()]))[0];
        let max_norm = case["max_norm"].as_f64().unwrap();
        let norm = clip_grad_norm_with(&params, &mut store, max_norm, norm_type).unwrap();
        let want_norm = case["total_norm"].as_f64().unwrap();
        let dn = (norm - want_norm).abs();
        assert!(dn <= TOL * want_norm.max(1.0), "case {k}: total norm {norm}, PyTorch {want_norm}");
        worst_norm = worst_norm.max(dn);
        for (j, (p, want)) in params.iter().zip(case["clipped"].as_array().unwrap()).enumerate() {
            let got = store.get(&p.tensor()).unwrap();
            let d = max_diff(&values(got), &values(&tensor(want)));
            assert!(d <= TOL, "case {k}, gradient {j}: differs from PyTorch by {d}");
            worst_grad = worst_grad.max(d);
        }
    }
    eprintln!("clip_grad_norm: max |total norm - PyTorch| {worst_norm:e}, max |clipped grad - PyTorch| {worst_grad:e}");
}

#[test]
fn the_warmup_schedule_equals_the_annotated_transformer() {
    let fx = load("cross_entropy");
    for case in fx["schedules"].as_array().unwrap() {
        let d_model = case["d_model"].as_u64().unwrap() as usize;
        let warmup = case["warmup"].as_u64().unwrap();
        let schedule = NoamSchedule::new(d_model, warmup, case["factor"].as_f64().unwrap()).unwrap();
        for (step, want) in usizes(&case["steps"]).into_iter().zip(f64s(&case["lr"])) {
            let got = schedule.lr(step as u64);
            assert!((got - want).abs() <= 1e-15 * want, "d_model {d_model}, warmup {warmup}, step {step}: {got} vs {want}");
        }
        // The peak is at step `warmup`: factor * (d_model * warmup)^-0.5.
        let peak = schedule.lr(warmup);
        assert!(peak >= schedule.lr(warmup - 1) && peak >= schedule.lr(warmup + 1));
        let formula = schedule.factor() / ((d_model as f64) * warmup as f64).sqrt();
        assert!((peak - formula).abs() <= 1e-15 * formula, "peak {peak} vs {formula}");
    }
    assert!(NoamSchedule::new(0, 10, 1.0).unwrap_err().to_string().contains("NoamSchedule: d_model is 0"));
    assert!(NoamSchedule::new(8, 0, 1.0).unwrap_err().to_string().contains("NoamSchedule: warmup is 0"));
    assert!(NoamSchedule::new(8, 10, f64::NAN).unwrap_err().to_string().contains("NoamSchedule: invalid factor NaN"));
}

#[test]
fn adam_with_the_schedule_and_clipping_equals_pytorch() {
    let _serial = common::serial(); // it draws from the shared default generator
    let fx = load("cross_entropy");
    let (mut worst_param, mut worst_loss) = (0f64, 0f64);
    for run in fx["adam"].as_array().unwrap() {
        let model = Linear::new(4, 5).unwrap();
        for ((name, p), (want_name, value)) in model.named_parameters().iter().zip(state(&run["start"])) {
            assert_eq!(name, &want_name);
            p.set(&value).unwrap();
        }
        let x = tensor(&run["x"]);
        let t = targets(&run["targets"], &usizes(&run["target_shape"]), DType::U32);
        let ce = CrossEntropyLoss::new().ignore_index(0).label_smoothing(0.1).unwrap();
        let mut adam = Adam::with_betas(model.parameters(), 0.0, (0.9, 0.98), 1e-9).unwrap();
        let mut schedule = NoamSchedule::new(8, 3, 1.0).unwrap();
        let max_norm = run["max_norm"].as_f64().unwrap();
        for (k, step) in run["steps"].as_array().unwrap().iter().enumerate() {
            let lr = schedule.step(&mut adam).unwrap();
            assert_eq!((lr, adam.lr(), schedule.step_count()), (step["lr"].as_f64().unwrap(), lr, k as u64 + 1));
            let loss = ce.forward(&model.forward(&x).unwrap(), &t).unwrap();
            let mut grads = loss.backward().unwrap();
            let norm = clip_grad_norm(&model.parameters(), &mut grads, max_norm).unwrap();
            adam.step(&grads).unwrap();
            let dl = (loss.to_scalar::<f32>().unwrap() as f64 - step["loss"].as_f64().unwrap()).abs();
            let dn = (norm - step["total_norm"].as_f64().unwrap()).abs();
            assert!(dl <= TOL && dn <= TOL, "max_norm {max_norm}, step {}: loss differs by {dl}, norm by {dn}", k + 1);
            for ((name, p), (_, want)) in model.named_parameters().iter().zip(state(&step["state"])) {
                let d = max_diff(&values(&p.tensor()), &values(&want));
                assert!(d <= TOL, "max_norm {max_norm}, step {}: {name} differs from PyTorch by {d}", k + 1);
                worst_param = worst_param.max(d);
            }
            worst_loss = worst_loss.max(dl).max(dn);
        }
    }
    eprintln!("Adam + schedule + clipping: max |param - PyTorch| {worst_param:e}, max |loss or norm - PyTorch| {worst_loss:e}");
}

fn err(r: Result<Tensor>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn bad_input_is_an_error_naming_the_module_and_sizes() {
    let dev = &Device::Cpu;
    let logits = Tensor::zeros((2, 3, 5), DType::F32, dev).unwrap();
    let ce = CrossEntropyLoss::new();
    let ids = |v: &[i64], dims: &[usize]| Tensor::from_vec(v.to_vec(), dims, dev).unwrap();

    let e = err(ce.forward(&logits, &Tensor::zeros((2, 3), DType::F32, dev).unwrap()));
    assert!(e.starts_with("CrossEntropyLoss:") && e.contains("u32 or i64") && e.contains("F32"), "{e}");

    let e = err(ce.forward(&logits, &ids(&[0, 1, 2, 3, 4, 5], &[2, 3])));
    assert!(e.starts_with("CrossEntropyLoss:") && e.contains("target 5") && e.contains("0..5") && e.contains("[2, 3]"), "{e}");
    let e = err(ce.forward(&logits, &ids(&[0, 1, -1, 3, 4, 0], &[2, 3])));
    assert!(e.contains("target -1 at flat position 2"), "{e}");
    // -100 is only ignored when asked for (PyTorch's default ignore_index).
    assert!(err(ce.forward(&logits, &ids(&[0, -100, 1, 1, 1, 1], &[2, 3]))).contains("target -100"));
    assert!(ce.ignore_index(-100).forward(&logits, &ids(&[0, -100, 1, 1, 1, 1], &[2, 3])).is_ok());

    let e = err(ce.forward(&logits, &ids(&[0; 8], &[2, 4])));
    assert!(e.starts_with("CrossEntropyLoss:") && e.contains("[2, 3, 5]") && e.contains("[2, 3]") && e.contains("[2, 4]"), "{e}");
    let e = err(ce.forward(&logits, &ids(&[0; 6], &[6])));
    assert!(e.contains("need targets of shape [2, 3], got targets [6]"), "{e}");
    let e = err(ce.forward(&Tensor::zeros((2, 3), DType::U32, dev).unwrap(), &ids(&[0, 1], &[2])));
    assert!(e.starts_with("CrossEntropyLoss:") && e.contains("floating-point"), "{e}");
    let e = err(ce.forward(&Tensor::zeros((2, 0), DType::F32, dev).unwrap(), &ids(&[0, 1], &[2])));
    assert!(e.contains("no classes"), "{e}");

    for eps in [1.0, -0.1, 1.5, f64::NAN] {
        let e = CrossEntropyLoss::new().label_smoothing(eps).unwrap_err().to_string();
        assert!(e.starts_with("CrossEntropyLoss: label_smoothing") && e.contains("[0, 1)"), "{e}");
        assert!(CrossEntropyLoss::with_options(None, eps, Reduction::Mean).is_err());
    }
}

#[test]
fn all_targets_ignored_is_an_error_for_the_mean_where_pytorch_gives_nan() {
    let fx = load("cross_entropy");
    assert_eq!(fx["all_ignored_mean"].as_str(), Some("nan"), "PyTorch's mean over no targets");
    let logits = Tensor::ones((2, 3, 4), DType::F32, &Device::Cpu).unwrap();
    let padding = Tensor::zeros((2, 3), DType::U32, &Device::Cpu).unwrap();
    let ce = CrossEntropyLoss::new().ignore_index(0);
    let e = err(ce.forward(&logits, &padding));
    assert!(e.starts_with("CrossEntropyLoss: every target is the ignore_index") && e.contains("6 targets of shape [2, 3]"), "{e}");
    let empty = Tensor::zeros((0, 4), DType::F32, &Device::Cpu).unwrap();
    let e = err(ce.forward(&empty, &Tensor::zeros(0, DType::U32, &Device::Cpu).unwrap()));
    assert!(e.contains("there are no targets"), "{e}");
    // 'sum' and 'none' are PyTorch's: 0 and zeros.
    assert_eq!(values(&ce.reduction(Reduction::Sum).forward(&logits, &padding).unwrap()), vec![0.0]);
    assert_eq!(values(&ce.reduction(Reduction::None).forward(&logits, &padding).unwrap()), vec![0.0; 6]);
}

#[test]
fn clipping_refuses_bad_bounds_and_non_finite_gradients() {
    let p = Param::new(&Tensor::zeros(3, DType::F32, &Device::Cpu).unwrap()).unwrap();
    let g = Tensor::new(&[1f32, f32::NAN, 2.], &Device::Cpu).unwrap();
    let mut store = (p.tensor() * &g).unwrap().sum_all().unwrap().backward().unwrap();
    let e = clip_grad_norm(std::slice::from_ref(&p), &mut store, 1.0).unwrap_err().to_string();
    assert!(e.starts_with("clip_grad_norm: the total norm") && e.contains("NaN"), "{e}");
    assert!(values(store.get(&p.tensor()).unwrap())[1].is_nan(), "the gradients are left as they were");
    for (max_norm, norm_type) in [(-1.0, 2.0), (f64::NAN, 2.0), (1.0, 0.0), (1.0, -2.0)] {
        let e = clip_grad_norm_with(std::slice::from_ref(&p), &mut store, max_norm, norm_type).unwrap_err().to_string();
        assert!(e.starts_with("clip_grad_norm: invalid"), "{e}");
    }
    // No gradients at all: the total norm is 0.
    let other = Param::new(&Tensor::zeros(2, DType::F32, &Device::Cpu).unwrap()).unwrap();
    assert_eq!(clip_grad_norm(&[other], &mut store, 1.0).unwrap(), 0.0);
}
