//! Wrong answers to part 4's q10 (one step of beam search) and q11 (the encoder layer's padding
//! mask for any pad id), written from the notebook's statements alone.

use super::super::{Wrong, wrong};
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;

/// Every extension `(score, beam, token)` of the beams, in the flat order.
fn all(scores: &Tensor, log_probs: &Tensor) -> Result<Vec<(f32, usize, u32)>> {
    let (s, rows) = (scores.to_vec1::<f32>()?, log_probs.to_vec2::<f32>()?);
    let mut out = vec![];
    for (b, r) in rows.iter().enumerate() {
        out.extend(r.iter().enumerate().map(|(v, lp)| (s[b] + lp, b, v as u32)));
    }
    Ok(out)
}

pub fn q10_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "ranked by the token's log-probability, the beams' scores never added",
            &["log-probability alone", "beam's score plus"],
            q10.check(|_scores, log_probs, width| {
                let flat = log_probs.flatten_all()?;
                let order = flat.arg_sort_last_dim(false)?.to_vec1::<u32>()?;
                let values = flat.to_vec1::<f32>()?;
                let v = log_probs.dim(1)?;
                Ok(order.iter().take(width).map(|&i| (values[i as usize], i as usize / v, i % v as u32)).collect())
            }),
        ),
        wrong(
            "the best token of each beam, then the best of those",
            &["own best tokens", "compete together"],
            q10.check(|scores, log_probs, width| {
                let mut kept: Vec<(f32, usize, u32)> = vec![];
                let ext = all(scores, log_probs)?;
                for row in ext.chunks(log_probs.dim(1)?) {
                    let best = row.iter().copied().max_by(|x, y| x.0.total_cmp(&y.0)).expect("a row");
                    kept.push(best);
                }
                kept.sort_by(|x, y| y.0.total_cmp(&x.0));
                kept.truncate(width);
                Ok(kept)
            }),
        ),
        wrong(
            "the flat index read with the number of beams: beam = i / k, token = i % k",
            &["flat index", "index / V"],
            q10.check(|scores, log_probs, width| {
                let k = scores.dim(0)?;
                let mut ext = all(scores, log_probs)?;
                let v = log_probs.dim(1)?;
                ext.sort_by(|x, y| y.0.total_cmp(&x.0));
                Ok(ext
                    .iter()
                    .take(width)
                    .map(|&(s, b, t)| {
                        let i = b * v + t as usize;
                        (s, i / k, (i % k) as u32)
                    })
                    .collect())
            }),
        ),
        wrong(
            "sorted ascending: the lowest scores kept",
            &["worst candidates", "highest first"],
            q10.check(|scores, log_probs, width| {
                let mut ext = all(scores, log_probs)?;
                ext.sort_by(|x, y| x.0.total_cmp(&y.0));
                ext.truncate(width);
                Ok(ext)
            }),
        ),
        wrong(
            "probabilities multiplied in place of log-probabilities added",
            &["plus", "log-probability", "log-probabilities"],
            q10.check(|scores, log_probs, width| {
                let mut ext: Vec<(f32, usize, u32)> = vec![];
                let (s, rows) = (scores.to_vec1::<f32>()?, log_probs.to_vec2::<f32>()?);
                for (b, r) in rows.iter().enumerate() {
                    for (v, lp) in r.iter().enumerate() {
                        ext.push((s[b] * lp, b, v as u32));
                    }
                }
                ext.sort_by(|x, y| y.0.total_cmp(&x.0));
                ext.truncate(width);
                Ok(ext)
            }),
        ),
    ]
}

pub fn q11_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "the padding assumed to be id 0",
            &["pad_id, not always 0", "not always 0"],
            q11.check(|layer, x, src, _pad_id| {
                let mask = src.eq(0u32)?.to_dtype(DType::F32)?.affine(-1e9, 0.0)?.unsqueeze(1)?;
                Ok(layer.forward(x, Some(&mask))?.output)
            }),
        ),
        wrong(
            "the mask made but never passed to the layer",
            &["without the mask"],
            q11.check(|layer, x, src, pad_id| {
                let _mask = padding_mask(src, pad_id)?;
                Ok(layer.forward(x, None)?.output)
            }),
        ),
        wrong(
            "a keep mask (1 for words, 0 for padding) passed as the additive mask",
            &["keep mask of 1 and 0", "additive mask holds 0"],
            q11.check(|layer, x, src, pad_id| {
                let keep = src.ne(pad_id)?.to_dtype(DType::F32)?.unsqueeze(1)?;
                Ok(layer.forward(x, Some(&keep))?.output)
            }),
        ),
        wrong(
            "the mask laid out (N, L, 1), over the queries",
            &["(N, L, 1)", "queries"],
            q11.check(|layer, x, src, pad_id| {
                let mask = src.eq(pad_id)?.to_dtype(DType::F32)?.affine(-1e9, 0.0)?.unsqueeze(2)?;
                Ok(layer.forward(x, Some(&mask))?.output)
            }),
        ),
    ]
}
