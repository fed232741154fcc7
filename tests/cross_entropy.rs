//! The translation training pieces against PyTorch (tests/fixtures/cross_entropy.json):
//! `CrossEntropyLoss` and its gradients, `clip_grad_norm`, the warm-up schedule, and Adam steps
//! with both; then the errors for input PyTorch would reject or turn into NaN.

use crate::common;

use attention_zoo::prelude::*;
use common::fixtures::{Num, StateFx, TensorFx, load_as, max_diff, values};
use serde::Deserialize;

const TOL: f64 = 1e-6;

/// `tests/fixtures/cross_entropy.json` (tools/fixtures/cross_entropy.py).
#[derive(Deserialize)]
struct CrossEntropyFx {
    losses: Vec<LossCase>,
    clipping: Vec<ClipCase>,
    schedules: Vec<ScheduleCase>,
    adam: Vec<AdamRun>,
    /// PyTorch's mean cross-entropy when every target is ignored.
    all_ignored_mean: String,
}

/// One `nn.CrossEntropyLoss` call: its options, the loss and the gradient of
/// `(loss * upstream).sum()` (or of the loss) with respect to the logits.
#[derive(Deserialize)]
struct LossCase {
    logits: TensorFx,
    targets: Vec<i64>,
    ignore_index: Option<i64>,
    label_smoothing: f64,
    reduction: String,
    loss: TensorFx,
    grad: TensorFx,
    upstream: TensorFx,
}

#[derive(Deserialize)]
struct ClipCase {
    grads: Vec<TensorFx>,
    /// A number, or "inf" (nothing is clipped).
    max_norm: Num,
    /// 2.0, 1.0 or "inf".
    norm_type: Num,
    total_norm: f64,
    clipped: Vec<TensorFx>,
}

#[derive(Deserialize)]
struct ScheduleCase {
    d_model: usize,
    warmup: u64,
    factor: f64,
    steps: Vec<u64>,
    lr: Vec<f64>,
}

/// Adam with the warm-up schedule and clipping on a linear layer, step by step.
#[derive(Deserialize)]
struct AdamRun {
    start: StateFx,
    x: TensorFx,
    targets: Vec<i64>,
    target_shape: Vec<usize>,
    max_norm: f64,
    steps: Vec<AdamStep>,
}

#[derive(Deserialize)]
struct AdamStep {
    lr: f64,
    loss: f64,
    total_norm: f64,
    state: StateFx,
}

fn fixture() -> CrossEntropyFx {
    load_as("cross_entropy")
}

fn targets(ids: &[i64], dims: &[usize], dtype: DType) -> Tensor {
    let t = Tensor::from_vec(ids.to_vec(), dims, &Device::Cpu).unwrap();
    if dtype == DType::U32 { t.to_dtype(DType::U32).unwrap() } else { t }
}

fn reduction(name: &str) -> Reduction {
    match name {
        "mean" => Reduction::Mean,
        "sum" => Reduction::Sum,
        "none" => Reduction::None,
        r => panic!("unknown reduction {r}"),
    }
}

fn loss_fn(case: &LossCase) -> CrossEntropyLoss {
    CrossEntropyLoss::with_options(case.ignore_index, case.label_smoothing, reduction(&case.reduction)).unwrap()
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
    let cases = fixture().losses;
    let (mut worst_loss, mut worst_grad) = (0f64, 0f64);
    for (k, case) in cases.iter().enumerate() {
        let logits = case.logits.tensor();
        let dims = &logits.dims()[..logits.rank() - 1];
        let (want_loss, want_grad, upstream) = (case.loss.tensor(), case.grad.tensor(), case.upstream.tensor());
        let ce = loss_fn(case);
        for dtype in [DType::I64, DType::U32] {
            let t = targets(&case.targets, dims, dtype);
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
    let fx = fixture();
    let case = &fx.losses[0];
    let logits = case.logits.tensor();
    let t = targets(&case.targets, &logits.dims()[..1], DType::I64);
    let via_trait = Loss::loss(&loss_fn(case), &logits, &t).unwrap();
    assert_eq!(values(&via_trait), values(&loss_fn(case).forward(&logits, &t).unwrap()));
}

#[test]
fn clip_grad_norm_equals_pytorch() {
    let (mut worst_norm, mut worst_grad) = (0f64, 0f64);
    for (k, case) in fixture().clipping.iter().enumerate() {
        let grads: Vec<Tensor> = case.grads.iter().map(TensorFx::tensor).collect();
        let params: Vec<Param> = grads.iter().map(|g| Param::new(&g.zeros_like().unwrap()).unwrap()).collect();
        // A GradStore as backward() gives it: sum(p * g) has gradient g for every p.
        let mut total = Tensor::new(0f32, &Device::Cpu).unwrap();
        for (p, g) in params.iter().zip(&grads) {
            total = (total + (p.tensor() * g).unwrap().sum_all().unwrap()).unwrap();
        }
        let mut store = total.backward().unwrap();
        let (norm_type, max_norm) = (case.norm_type.get(), case.max_norm.get());
        let norm = clip_grad_norm_with(&params, &mut store, max_norm, norm_type).unwrap();
        let want_norm = case.total_norm;
        let dn = (norm - want_norm).abs();
        assert!(dn <= TOL * want_norm.max(1.0), "case {k}: total norm {norm}, PyTorch {want_norm}");
        worst_norm = worst_norm.max(dn);
        for (j, (p, want)) in params.iter().zip(&case.clipped).enumerate() {
            let got = store.get(&p.tensor()).unwrap();
            let d = max_diff(&values(got), &values(&want.tensor()));
            assert!(d <= TOL, "case {k}, gradient {j}: differs from PyTorch by {d}");
            worst_grad = worst_grad.max(d);
        }
    }
    eprintln!("clip_grad_norm: max |total norm - PyTorch| {worst_norm:e}, max |clipped grad - PyTorch| {worst_grad:e}");
}

#[test]
fn the_warmup_schedule_equals_the_annotated_transformer() {
    for case in fixture().schedules {
        let (d_model, warmup) = (case.d_model, case.warmup);
        let schedule = NoamSchedule::new(d_model, warmup, case.factor).unwrap();
        for (&step, &want) in case.steps.iter().zip(&case.lr) {
            let got = schedule.lr(step);
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
    let (mut worst_param, mut worst_loss) = (0f64, 0f64);
    for run in fixture().adam {
        let model = Linear::new(4, 5).unwrap();
        for ((name, p), (want_name, value)) in model.named_parameters().iter().zip(run.start.tensors()) {
            assert_eq!(name, &want_name);
            p.set(&value).unwrap();
        }
        let x = run.x.tensor();
        let t = targets(&run.targets, &run.target_shape, DType::U32);
        let ce = CrossEntropyLoss::new().ignore_index(0).label_smoothing(0.1).unwrap();
        let mut adam = Adam::with_betas(model.parameters(), 0.0, (0.9, 0.98), 1e-9).unwrap();
        let mut schedule = NoamSchedule::new(8, 3, 1.0).unwrap();
        let max_norm = run.max_norm;
        for (k, step) in run.steps.iter().enumerate() {
            let lr = schedule.step(&mut adam).unwrap();
            assert_eq!((lr, adam.lr(), schedule.step_count()), (step.lr, lr, k as u64 + 1));
            let loss = ce.forward(&model.forward(&x).unwrap(), &t).unwrap();
            let mut grads = loss.backward().unwrap();
            let norm = clip_grad_norm(&model.parameters(), &mut grads, max_norm).unwrap();
            adam.step(&grads).unwrap();
            let dl = (loss.to_scalar::<f32>().unwrap() as f64 - step.loss).abs();
            let dn = (norm - step.total_norm).abs();
            assert!(dl <= TOL && dn <= TOL, "max_norm {max_norm}, step {}: loss differs by {dl}, norm by {dn}", k + 1);
            for ((name, p), (_, want)) in model.named_parameters().iter().zip(step.state.tensors()) {
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
    assert_eq!(fixture().all_ignored_mean, "nan", "PyTorch's mean over no targets");
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
