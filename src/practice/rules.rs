//! The rules every exercise's hidden cases keep, so that no wrong answer passes by an accident the
//! cases share: sizes that are not all perfect squares or powers of two, a size of one somewhere
//! (a batch of one, one step, one key), a padding id other than 0 where the function takes one,
//! masks whose rows differ. Checked in debug builds each time
//! a check runs (so by every test of an exercise, one added later included).

use super::answer::Answer;
use super::cases::Case;
use candle_core::{DType, Tensor};

/// A size that a wrong answer may get right by accident: `√n`, `n / 2` or `log2 n` exact.
fn accidental(n: usize) -> bool {
    n.is_power_of_two() || n.isqrt().pow(2) == n
}

/// What the cases break of the rules, in words (empty when they keep them all).
pub(crate) fn broken<I, A: Answer>(cases: &[Case<I>], wants: &[&A]) -> Vec<String> {
    let mut broken = vec![];
    // the sizes of the first tensor of every reference answer, when all cases have one
    let shapes: Vec<Vec<usize>> = wants.iter().filter_map(|w| w.tensors().first().map(|t| t.dims().to_vec())).collect();
    if shapes.len() == cases.len() && !shapes.is_empty() {
        let rank = shapes[0].len();
        if shapes.iter().all(|s| s.len() == rank) {
            for p in 0..rank {
                let sizes: Vec<usize> = shapes.iter().map(|s| s[p]).collect();
                let free = sizes.iter().any(|&n| n != sizes[0]);
                if free && sizes.iter().any(|&n| n > 2) && sizes.iter().all(|&n| accidental(n)) {
                    broken.push(format!("dimension {p} of the answer is {sizes:?}: all perfect squares or powers of two"));
                }
            }
            let varying: Vec<usize> = (0..rank).filter(|&p| shapes.iter().any(|s| s[p] != shapes[0][p])).collect();
            if rank >= 2 && !varying.is_empty() && !shapes.iter().any(|s| varying.iter().any(|&p| s[p] == 1)) {
                broken.push(format!(
                    "no case has a size of one (a batch of one, one step or one key) in the answer's dimensions {varying:?}"
                ));
            }
        }
    }
    let mut names: Vec<&str> = cases.iter().flat_map(|c| c.facts.sizes.iter().map(|(n, _)| *n)).collect();
    names.dedup();
    for name in names {
        let values: Vec<usize> = cases.iter().flat_map(|c| c.facts.sizes.iter().filter(|(n, _)| *n == name).map(|(_, v)| *v)).collect();
        if values.iter().all(|&v| accidental(v)) {
            broken.push(format!("the size {name} is {values:?} in the cases: all perfect squares or powers of two"));
        }
    }
    let pads: Vec<u32> = cases.iter().filter_map(|c| c.facts.pad).collect();
    if !pads.is_empty() && pads.iter().all(|&p| p == 0) {
        broken.push("every case pads with id 0: let some case pad with another id, and use 0 as a word there".into());
    }
    let masks: Vec<&Tensor> = cases.iter().filter_map(|c| c.facts.mask.as_ref()).collect();
    if !masks.is_empty() && !masks.iter().any(|m| rows_differ(m)) {
        broken.push("every case's mask has the same row everywhere: let the masks' rows differ".into());
    }
    broken
}

/// Whether some two rows (the last dimension's vectors) of `mask` differ.
fn rows_differ(mask: &Tensor) -> bool {
    let Some(&width) = mask.dims().last() else {
        return false;
    };
    let Ok(values) = mask.flatten_all().and_then(|m| m.to_dtype(DType::F64)).and_then(|m| m.to_vec1::<f64>()) else {
        return false;
    };
    let rows: Vec<&[f64]> = values.chunks(width.max(1)).collect();
    rows.iter().any(|r| *r != rows[0])
}
