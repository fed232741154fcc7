//! `nn.CrossEntropyLoss`: a log-softmax and the negative log-likelihood of the target classes,
//! with PyTorch's `ignore_index`, `label_smoothing` and reductions.

use super::loss::Loss;
use crate::nn::errors_as;
use crate::nn::shape::{check_float, invalid};
use candle_core::{D, DType, Result, Tensor};

/// How a loss over many targets becomes one value, as PyTorch's `reduction=` argument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reduction {
    /// `'mean'`: the mean over the targets that are not ignored.
    #[default]
    Mean,
    /// `'sum'`: the sum over the targets that are not ignored.
    Sum,
    /// `'none'`: one loss per target, shaped like the targets; ignored targets give 0.
    None,
}

/// `nn.CrossEntropyLoss(ignore_index=..., label_smoothing=..., reduction=...)`: PyTorch's
/// `F.cross_entropy` on class ids, gradients included, within a few float32 ulps (on the CPU in
/// float32 its exponentials are `nn::fast_math`'s, not libm's).
///
/// **The class dimension is the last one.** PyTorch takes `(N, C)` or `(N, C, T)`; the crate's
/// sequence models return `(N, T, C)` (one row of logits per position), so this loss takes
/// logits `(..., C)` and targets `(...)`: `(N, T, C)` here is PyTorch's
/// `F.cross_entropy(logits.permute(0, 2, 1), targets)`. A single row `(C)` with a scalar target
/// works too.
///
/// With label smoothing `eps` and `C` classes the loss of one target `y` is, as in PyTorch,
/// `(1 - eps) * -log p[y] + eps / C * sum_c -log p[c]`: the target distribution gives
/// `1 - eps + eps / C` to `y` and `eps / C` to every other class. An ignored target adds nothing
/// to either part, and `'mean'` divides by the number of targets that are not ignored.
///
/// Differences from PyTorch, each an error rather than a silent result:
/// - `ignore_index` is off by default (PyTorch ignores `-100`: pass `Some(-100)` for that);
///   translation pads with [`PAD_ID`](crate::models::PAD_ID) (0), so `CrossEntropyLoss::new().ignore_index(0)`.
/// - With `'mean'`, when every target is ignored (or there are none) PyTorch returns NaN
///   (0 / 0); here it is an error naming the number of targets. `'sum'` gives 0 and `'none'`
///   zeros, as in PyTorch.
/// - `label_smoothing` must be in `[0, 1)`; PyTorch also takes 1.0, where the targets no longer
///   matter.
/// - Targets are `u32` or `i64` class ids (no class probabilities, no class weights).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrossEntropyLoss {
    ignore_index: Option<i64>,
    label_smoothing: f64,
    reduction: Reduction,
}

impl CrossEntropyLoss {
    /// PyTorch's defaults but no ignored id: mean reduction, no label smoothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every setting at once (`ignore_index=None` ignores nothing).
    pub fn with_options(ignore_index: Option<i64>, label_smoothing: f64, reduction: Reduction) -> Result<Self> {
        let loss = CrossEntropyLoss { ignore_index, label_smoothing: 0.0, reduction };
        loss.label_smoothing(label_smoothing)
    }

    /// Targets equal to `index` (the padding id) add nothing to the loss or its gradient.
    pub fn ignore_index(mut self, index: i64) -> Self {
        self.ignore_index = Some(index);
        self
    }

    /// Label smoothing `eps` in `[0, 1)`; anything else (NaN included) is an error.
    #[errors_as("CrossEntropyLoss")]
    pub fn label_smoothing(mut self, eps: f64) -> Result<Self> {
        if !(0.0..1.0).contains(&eps) {
            return Err(invalid(format!("label_smoothing {eps} is out of range: expected a value in [0, 1)")));
        }
        self.label_smoothing = eps;
        Ok(self)
    }

    /// How the losses of the targets are combined (`Reduction::Mean` by default).
    pub fn reduction(mut self, reduction: Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The ignored target id, if any.
    pub fn get_ignore_index(&self) -> Option<i64> {
        self.ignore_index
    }

    /// The label smoothing.
    pub fn get_label_smoothing(&self) -> f64 {
        self.label_smoothing
    }

    /// The reduction.
    pub fn get_reduction(&self) -> Reduction {
        self.reduction
    }

    /// The loss of `logits` against the class ids `targets`, with a recorded backward pass.
    ///
    /// # Shapes
    /// - `logits`: `(..., C)`, floating point, the classes last (e.g. `(N, C)` or `(N, T, C)`)
    /// - `targets`: `(...)`, `u32` or `i64` class ids in `0..C` or the ignore index
    /// - returns a scalar for `Mean` and `Sum`, `(...)` for `None`
    #[errors_as]
    pub fn forward(&self, logits: &Tensor, targets: &Tensor) -> Result<Tensor> {
        let (rows, classes) = check_shapes(logits, targets)?;
        let (ids, weights, kept) = self.check_targets(targets, rows, classes)?;
        let device = logits.device();
        if rows == 0 {
            // No targets: 'sum' is 0 and 'none' empty, as in PyTorch; the gradient is empty.
            // Made from the logits so that the backward pass still reaches them.
            let zero = logits.flatten_all()?.sum_all()?;
            return match self.reduction {
                Reduction::None => logits.sum(D::Minus1)?.reshape(targets.dims()),
                _ => Ok(zero),
            };
        }
        let eps = self.label_smoothing;
        let reduce = |per_target: Tensor| match self.reduction {
            // A true division, as PyTorch's (`x / n` here would multiply by a rounded `1 / n`).
            Reduction::Mean => per_target.sum_all()?.div(&Tensor::new(kept as f32, device)?.to_dtype(per_target.dtype())?),
            Reduction::Sum => per_target.sum_all(),
            Reduction::None => per_target.reshape(targets.dims()),
        };
        if eps == 0.0 {
            // On the CPU in float32 the log-softmax, the gather and the weights are one node, which
            // reads the logits in their own shape: a reshape would be one more node, whose gradient
            // candle zero-fills and adds into (a translator's logits are its largest tensor).
            if let Some(nll) = crate::nn::fused::log_softmax::nll_rows(logits, ids.clone(), weights.clone()) {
                return reduce(nll?);
            }
        }
        let x = logits.reshape((rows, classes))?;
        let log_p = log_softmax(&x)?;
        let ids = Tensor::from_vec(ids, (rows, 1), device)?;
        let weights = Tensor::from_vec(weights, rows, device)?.to_dtype(x.dtype())?;
        // -log p[y] per row, 0 where ignored.
        let nll = (log_p.gather(&ids, 1)?.squeeze(1)? * &weights)?.neg()?;
        if eps == 0.0 {
            return reduce(nll);
        }
        // sum_c -log p[c] per row, 0 where ignored; each part reduced first, as PyTorch does.
        let smooth = (log_p.sum(1)? * &weights)?.neg()?;
        (reduce(nll)? * (1.0 - eps))? + (reduce(smooth)? * (eps / classes as f64))?
    }

    /// Checks the `rows` targets (class ids in `0..classes` or the ignore index; some kept for
    /// `Mean`) and returns the class ids as `u32` (0 where ignored), a 1/0 weight per target, and
    /// the number kept.
    fn check_targets(&self, targets: &Tensor, rows: usize, classes: usize) -> Result<(Vec<u32>, Vec<f32>, usize)> {
        let flat = targets.flatten_all()?;
        let values: Vec<i64> = match targets.dtype() {
            DType::U32 => flat.to_vec1::<u32>()?.into_iter().map(i64::from).collect(),
            DType::I64 => flat.to_vec1::<i64>()?,
            d => return Err(invalid(format!("expected targets of dtype u32 or i64 (class ids), got {d:?}"))),
        };
        let (mut ids, mut weights, mut kept) = (Vec::with_capacity(values.len()), Vec::with_capacity(values.len()), 0);
        for (i, &v) in values.iter().enumerate() {
            if Some(v) == self.ignore_index {
                ids.push(0);
                weights.push(0.0);
            } else if (0..classes as i64).contains(&v) {
                ids.push(v as u32);
                weights.push(1.0);
                kept += 1;
            } else {
                let ignore = self.ignore_index.map_or(String::new(), |k| format!(" or the ignore_index {k}"));
                return Err(invalid(format!(
                    "target {v} at flat position {i} of targets {:?} is out of range: expected a class id in 0..{classes}{ignore}",
                    targets.dims()
                )));
            }
        }
        if self.reduction == Reduction::Mean && kept == 0 {
            let why = match self.ignore_index {
                Some(k) if rows > 0 => format!("every target is the ignore_index {k}"),
                _ => "there are no targets".to_string(),
            };
            let dims = targets.dims();
            return Err(invalid(format!(
                "{why} ({rows} targets of shape {dims:?}): the mean over no targets is undefined (PyTorch gives NaN)"
            )));
        }
        Ok((ids, weights, kept))
    }
}

/// Checks logits `(..., C)` against targets `(...)` and returns the number of targets and `C`.
fn check_shapes(logits: &Tensor, targets: &Tensor) -> Result<(usize, usize)> {
    check_float(logits)?;
    let Some((&classes, lead)) = logits.dims().split_last() else {
        return Err(invalid("expected logits of shape (..., C) with the classes last, got a scalar"));
    };
    if lead != targets.dims() {
        return Err(invalid(format!(
            "logits {:?} (..., C = {classes}) need targets of shape {lead:?}, got targets {:?}",
            logits.dims(),
            targets.dims()
        )));
    }
    if classes == 0 {
        return Err(invalid(format!("logits {:?} have no classes (C = 0)", logits.dims())));
    }
    Ok((lead.iter().product(), classes))
}

/// A numerically stable log-softmax over the last dimension, with a recorded backward pass:
/// `x - max - log(sum(exp(x - max)))`, the max detached (its gradient cancels out). On the CPU in
/// float32 one graph node (`nn::log_softmax`, within a few float32 ulps of libm's `exp`); composed
/// of candle operations otherwise.
#[errors_as]
pub fn log_softmax(x: &Tensor) -> Result<Tensor> {
    check_float(x)?;
    if x.rank() == 0 {
        return Err(invalid("expected a tensor (..., C), got a scalar"));
    }
    if x.elem_count() == 0 {
        return Ok(x.clone()); // as PyTorch: nothing to normalise
    }
    if let Some(y) = crate::nn::fused::log_softmax::log_softmax_last_dim(x) {
        return y;
    }
    let max = x.max_keepdim(D::Minus1)?.detach();
    let shifted = x.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(D::Minus1)?.log()?;
    shifted.broadcast_sub(&log_sum)
}

impl Loss for CrossEntropyLoss {
    /// [`CrossEntropyLoss::forward`]: `prediction` holds the logits `(..., C)`, `target` the ids `(...)`.
    fn loss(&self, prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
        self.forward(prediction, target)
    }
}
