//! Data-parallel steps: a batch split into parts, each part's forward and backward pass on its
//! own thread of the training pool ([`super::pool`]), the gradients averaged with the parts'
//! weights (the parameters split between two threads).
//!
//! candle runs one operation at a time, and splitting the Transformer's small matrix products
//! over two threads costs more in synchronisation than it gains. Two whole half-batches, one a
//! thread, keep both cores busy instead. The result is the full batch's mean loss and gradient
//! up to float32 rounding: the loss is a mean over tokens, so each part counts by its tokens.
//! The threads are the pool's, kept from step to step: creating two threads a step cost about
//! 0.1 ms each here (0.2 s of a 900-step epoch).

use super::batches::Learner;
use super::loss::Loss;
use super::pool::{SPLIT_MIN, map_halves, pool};
use crate::nn::Param;
use crate::nn::fused::grad_sink::with_grad_sink;
use crate::nn::fused::in_place::{is_f32_in_place, update_f32, with_f32};
use crate::nn::fused::transposed::{COPY_MIN_VALUES, StepWeights, TransposedCopy, with_transposed};
use crate::nn::shape::{error, storage_address};
use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor};
use std::sync::Arc;

/// The weighted mean of the parts' losses and of their gradients of `params` (the store holds
/// only those): `parts` holds each part's batch and weight (its share of the mean, e.g. its
/// target tokens). Each part runs on its own copy of `model`, which shares the parameters.
pub fn parallel_grads<M, L, B>(model: &M, loss_fn: &L, parts: &[(B, f64)], params: &[Param]) -> Result<(f64, GradStore)>
where
    M: Learner<B> + Clone + Send,
    L: Loss,
    B: Sync,
{
    let total = check_weights(parts)?;
    let mut results = run_parts(model, loss_fn, parts, params)?;
    let loss = results.iter().zip(parts).map(|((v, _), (_, w))| v * w).sum::<f64>() / total;
    let shares: Vec<f32> = parts.iter().map(|(_, w)| (w / total) as f32).collect();
    // Every parameter's parts (moved out of the results: the first part's gradient becomes the
    // sum, no new buffer), then the float32 sums, the parameters split between two threads.
    let mut summed = vec![];
    let mut others = vec![];
    for (k, p) in params.iter().enumerate() {
        let part_grads: Vec<Option<Tensor>> = results.iter_mut().map(|(_, g)| g[k].take()).collect();
        if part_grads.iter().all(Option::is_some) {
            summed.push((p.tensor(), part_grads.into_iter().flatten().collect::<Vec<_>>()));
        } else if part_grads.iter().any(Option::is_some) {
            others.push((p.tensor(), part_grads));
        }
    }
    let sums = map_halves(
        summed,
        |(t, _)| t.elem_count(),
        SPLIT_MIN,
        |half| half.into_iter().map(|(t, grads)| (weighted_sum_in_place(&grads, &shares, &t), t, grads)).collect::<Vec<_>>(),
    );
    let mut combined = GradStore::default();
    for (in_place, t, grads) in sums.into_iter().flatten() {
        if !in_place {
            others.push((t, grads.into_iter().map(Some).collect()));
        } else if let Some(sum) = grads.into_iter().next() {
            // the sum is in the first part's gradient (an in-place sum has one); the other
            // parts' are dropped here
            combined.insert(&t, sum);
        }
    }
    for (t, grads) in others {
        let mut sum: Option<Tensor> = None;
        for (g, (_, w)) in grads.iter().zip(parts) {
            if let Some(g) = g {
                let g = (g * (w / total))?;
                sum = Some(match sum {
                    Some(s) => (s + g)?,
                    None => g,
                });
            }
        }
        if let Some(s) = sum {
            combined.insert(&t, s);
        }
    }
    Ok((loss, combined))
}

/// The name the data-parallel step's own errors carry (the model's and the loss's keep theirs).
const PARALLEL_STEP: &str = "StepByStep (data-parallel step)";

/// Checks that the parts weigh a positive total, and returns it.
fn check_weights<B>(parts: &[(B, f64)]) -> Result<f64> {
    let total: f64 = parts.iter().map(|(_, w)| w).sum();
    if parts.is_empty() || total.is_nan() || total <= 0.0 {
        return Err(error(
            PARALLEL_STEP,
            format!("expected parts with a positive total weight, got {} parts weighing {total}", parts.len()),
        ));
    }
    Ok(total)
}

/// Each part's loss and the gradients of `params` (`None` where a parameter got none), the
/// forward and backward passes on the training pool's threads (each part on its own copy of
/// `model`), or one after the other on this thread where the pool cannot be made. Each thread
/// drops the rest of its backward pass's store itself (the gradients of the graph's other
/// leaves; candle drops every intermediate tensor's during the pass). A part that panics is an
/// error, not a panic of the caller.
fn run_parts<M, L, B>(model: &M, loss_fn: &L, parts: &[(B, f64)], params: &[Param]) -> Result<Vec<PartGrads>>
where
    M: Learner<B> + Clone + Send,
    L: Loss,
    B: Sync,
{
    let tensors: Vec<Tensor> = params.iter().map(Param::tensor).collect();
    // made once for every part's forward products; dropped as the last part's forward pass ends
    let weights = step_weights(params, parts.len());
    let one = |mut replica: M, batch: &B, weights: Arc<StepWeights>| -> Result<PartGrads> {
        let run = std::panic::AssertUnwindSafe(|| -> Result<PartGrads> {
            let (yhat, y) = with_transposed(weights, || replica.forward_batch(batch))?;
            let loss = loss_fn.loss(&yhat, &y)?;
            let value = loss.to_scalar::<f32>()? as f64;
            let mut store = backward(&loss)?;
            Ok((value, tensors.iter().map(|t| store.remove(t)).collect()))
        });
        std::panic::catch_unwind(run).unwrap_or_else(|_| Err(error(PARALLEL_STEP, "a training thread panicked")))
    };
    let mut results: Vec<Option<Result<PartGrads>>> = parts.iter().map(|_| None).collect();
    match pool() {
        Some(pool) => {
            let replicas: Vec<M> = parts.iter().map(|_| model.clone()).collect();
            pool.scope(|s| {
                for ((slot, (batch, _)), replica) in results.iter_mut().zip(parts).zip(replicas) {
                    let (one, weights) = (&one, weights.clone());
                    s.spawn(move |_| *slot = Some(one(replica, batch, weights)));
                }
                drop(weights);
            })
        }
        None => {
            for (slot, (batch, _)) in results.iter_mut().zip(parts) {
                *slot = Some(one(model.clone(), batch, weights.clone()));
            }
        }
    }
    results.into_iter().map(|r| r.unwrap_or_else(|| Err(error(PARALLEL_STEP, "a part did not run")))).collect()
}

/// The wide weights among `params` in transposed copies for a step's forward passes
/// (`nn::fused::transposed`: the same products, faster), only those of [`COPY_MIN_VALUES`] or more,
/// for which the copy pays; made on the training pool's two threads given `threads` 2 or more,
/// else on this thread.
pub(crate) fn step_weights(params: &[Param], threads: usize) -> Arc<StepWeights> {
    let tensors: Vec<Tensor> = params.iter().map(Param::tensor).filter(|t| t.elem_count() >= COPY_MIN_VALUES).collect();
    let min = if threads >= 2 { SPLIT_MIN } else { usize::MAX };
    let copies = map_halves(tensors, Tensor::elem_count, min, |half| half.iter().filter_map(TransposedCopy::of).collect::<Vec<_>>());
    StepWeights::of(copies.into_iter().flatten())
}

/// The gradients of `loss`'s backward pass, the parameters' handed past candle's store by the
/// input-weight-bias nodes (`nn::fused::grad_sink`: no zeros tensor and add for each) and put in
/// the store after it.
pub(crate) fn backward(loss: &Tensor) -> Result<GradStore> {
    let (store, sunk) = with_grad_sink(|| loss.backward());
    let mut store = store?;
    sunk.merge_into(&mut store)?;
    Ok(store)
}

/// A part's loss and its gradient of each parameter, in the parameters' order.
type PartGrads = (f64, Vec<Option<Tensor>>);

/// `sum_k shares[k] * grads[k]` written over `grads[0]` (the same float32 products and
/// left-to-right sums as the tensor operations), without a new buffer: the parts' gradients are
/// this step's own, removed from their stores, so nothing else reads them. `false`, and nothing
/// changed, unless every part is a contiguous float32 CPU tensor of one length, in a storage of
/// its own (not the parameter's, not another part's).
fn weighted_sum_in_place(grads: &[Tensor], shares: &[f32], param: &Tensor) -> bool {
    let Some((first, rest)) = grads.split_first() else { return false };
    let n = first.elem_count();
    let (own, param) = (storage_address(first), storage_address(param));
    let shared = |g: &Tensor| storage_address(g) == own || storage_address(g) == param;
    if !is_f32_in_place(first) || own == param || rest.iter().any(|g| !is_f32_in_place(g) || g.elem_count() != n || shared(g)) {
        return false;
    }
    update_f32(first, |sum| {
        sum.iter_mut().for_each(|v| *v *= shares[0]);
        for (g, &share) in rest.iter().zip(&shares[1..]) {
            // checked above: contiguous float32 of the same length
            let _ = with_f32(g, |g| sum.iter_mut().zip(g).for_each(|(s, v)| *s += v * share));
        }
    })
    .is_ok()
}

/// Splits `n` rows into `parts` runs of consecutive rows, as even as can be (no empty run):
/// the row ranges of the parts.
pub fn split_rows(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let parts = parts.clamp(1, n.max(1));
    let (base, extra) = (n / parts, n % parts);
    let mut start = 0;
    (0..parts)
        .map(|k| {
            let len = base + usize::from(k < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{split_rows, step_weights};
    use crate::nn::Param;
    use crate::nn::fused::in_place::with_f32;
    use crate::nn::fused::transposed::{COPY_MIN_VALUES, with_copy_of, with_transposed};
    use candle_core::{Device, Tensor};

    /// A step copies the weights of 2^18 values or more (a (512, 512) one here), not a smaller
    /// weight or a row, on one thread as on two.
    #[test]
    fn a_step_copies_only_the_large_weights() {
        let dev = Device::Cpu;
        let shapes = [(512, 512), (64, 128), (1, 512)];
        let params: Vec<Param> =
            shapes.iter().map(|&s| Param::new(&Tensor::zeros(s, candle_core::DType::F32, &dev).unwrap()).unwrap()).collect();
        for threads in [1, 2] {
            with_transposed(step_weights(&params, threads), || {
                for (p, &(n_out, n_in)) in params.iter().zip(&shapes) {
                    let copied = with_f32(&p.tensor(), |v| with_copy_of(v, n_out, n_in, |c| c.is_some())).unwrap();
                    assert_eq!(copied, n_out * n_in >= COPY_MIN_VALUES, "{n_out} x {n_in} on {threads} thread(s)");
                }
            });
        }
    }

    #[test]
    fn rows_split_evenly_without_empty_parts() {
        assert_eq!(split_rows(5, 2), vec![0..3, 3..5]);
        assert_eq!(split_rows(1, 2), vec![0..1]);
        assert_eq!(split_rows(4, 1), vec![0..4]);
        assert!(split_rows(0, 2).is_empty());
    }
}
