//! Greedy decoding: from `<sos>`, append the most likely next token until `<eos>` or `max_len`.

use super::support::{argmax, check_request, for_each_row, prefix_tensor};
use crate::models::translate::{Translate, in_eval};
use crate::nn::errors_as;
use candle_core::{Result, Tensor};

/// Decodes every source sentence greedily: starting from `<sos>`, each step appends the token of
/// the largest logit (the first one on ties) until every sentence has produced `<eos>` or
/// `max_len` tokens have been produced. The source is encoded once; sentences that have ended
/// leave the batch. The model runs in evaluation mode and is put back in the mode it was in.
///
/// Each returned sequence excludes `<sos>` and stops before `<eos>` (which is not included); a
/// sequence of `max_len` tokens may have been cut short.
///
/// An empty batch (`N = 0`) gives no sequences. Errors name `greedy_decode` and the sizes: a
/// source that is not `(N, S)` integer ids with `S > 0`, `max_len` 0, `sos` or `eos` outside the target vocabulary, `sos` equal to the
/// padding id, a source or `max_len` beyond the model's `max_len`.
///
/// A search frees and makes the same tensors at every step: a program that decodes much may opt
/// into [`crate::tuning::keep_freed_memory`] (the notebook kernel does).
///
/// # Shapes
/// - `src`: source ids `(N, S)`
/// - returns `N` sequences of at most `max_len` target ids each
#[errors_as]
pub fn greedy_decode<M: Translate>(model: &mut M, src: &Tensor, sos: u32, eos: u32, max_len: usize) -> Result<Vec<Vec<u32>>> {
    let (n, _) = check_request(model, src, sos, eos, max_len)?;
    if n == 0 {
        return Ok(vec![]);
    }
    in_eval(model, |m| run(m, src, sos, eos, max_len, n))
}

fn run<M: Translate>(model: &mut M, src: &Tensor, sos: u32, eos: u32, max_len: usize, n: usize) -> Result<Vec<Vec<u32>>> {
    let vocab = model.tgt_vocab();
    let mut out: Vec<Vec<u32>> = vec![vec![]; n];
    // The sentences still being decoded, and the state of exactly those rows.
    let mut live: Vec<usize> = (0..n).collect();
    let mut state = model.encode_src(src)?;
    for step in 0..max_len {
        let prefixes: Vec<Vec<u32>> = live.iter().map(|&i| std::iter::once(sos).chain(out[i].iter().copied()).collect()).collect();
        let logits = model.next_logits(&mut state, &prefix_tensor(&prefixes, src.device())?)?;
        let next_tokens = most_likely(&logits, live.len(), vocab, step)?;
        let mut still = Vec::with_capacity(live.len());
        let mut keep = Vec::with_capacity(live.len());
        for (r, (&i, &next)) in live.iter().zip(&next_tokens).enumerate() {
            if next != eos {
                out[i].push(next);
                still.push(i);
                keep.push(r as u32);
            }
        }
        if still.is_empty() {
            break;
        }
        if still.len() < live.len() {
            let k = keep.len();
            state = model.select_rows(&state, &Tensor::from_vec(keep, k, src.device())?)?;
        }
        live = still;
    }
    Ok(out)
}

/// Every row's most likely next token (not generic over the model: compiled once in the crate).
fn most_likely(logits: &Tensor, rows: usize, vocab: usize, step: usize) -> Result<Vec<u32>> {
    let mut next = Vec::with_capacity(rows);
    for_each_row(logits, rows, vocab, step, |_, row| next.push(argmax(row)))?;
    Ok(next)
}
