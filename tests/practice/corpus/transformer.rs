//! Wrong answers to part 4's exercises, written from the notebook's statements alone.

mod decoding;
mod search;

use super::{Wrong, wrong};
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;
use decoding::{q8_wrongs, q9_wrongs};
use search::{q10_wrongs, q11_wrongs};

/// Attention as a student writes it: the scores divided by `scale` (a function of d_k), the mask
/// added when there is one, the softmax taken over `dim`.
fn attention(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: fn(f64) -> f64, dim: D) -> Result<(Tensor, Tensor)> {
    let d_k = q.dim(D::Minus1)? as f64;
    let mut scores = (q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)? / scale(d_k))?;
    if let Some(m) = mask {
        scores = scores.broadcast_add(m)?;
    }
    let weights = candle_nn::ops::softmax(&scores, dim)?;
    Ok((weights.matmul(v)?, weights))
}

fn q1_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "the scores not scaled at all",
            &["not scaled", "square root", "√d_k"],
            q1.check(|q, k, v, m| attention(q, k, v, m, |_| 1.0, D::Minus1)),
        ),
        wrong(
            "the scores divided by d_k rather than its square root",
            &["d_k itself", "square root"],
            q1.check(|q, k, v, m| attention(q, k, v, m, |d| d, D::Minus1)),
        ),
        wrong(
            "the scores multiplied by sqrt(d_k) instead of divided",
            &["multiplied", "times √d_k"],
            q1.check(|q, k, v, m| attention(q, k, v, m, |d| 1.0 / d.sqrt(), D::Minus1)),
        ),
        wrong(
            "the softmax over dimension 1 (the queries in 3-D)",
            &["over the queries", "dimension"],
            q1.check(|q, k, v, m| attention(q, k, v, m, f64::sqrt, D::Minus2)),
        ),
        wrong(
            "the mask never added",
            &["mask is not used", "mask hides"],
            q1.check(|q, k, v, _| attention(q, k, v, None, f64::sqrt, D::Minus1)),
        ),
        wrong(
            "the keys transposed over dimensions 1 and 2, which is wrong for a 4-D batch of heads",
            &["4-D", "last two"],
            q1.check(|q, k, v, m| {
                let d_k = q.dim(D::Minus1)? as f64;
                let mut scores = (q.matmul(&k.transpose(1, 2)?.contiguous()?)? / d_k.sqrt())?;
                if let Some(m) = m {
                    scores = scores.broadcast_add(m)?;
                }
                let weights = softmax(&scores)?;
                Ok((weights.matmul(v)?, weights))
            }),
        ),
    ]
}

fn q2_wrongs() -> Vec<Wrong> {
    let full = |keep: &Tensor, value: f32| Tensor::full(value, keep.shape(), keep.device());
    vec![
        wrong(
            "-inf where the keep mask is 1",
            &["inverted"],
            q2.check(move |keep| keep.where_cond(&full(keep, f32::NEG_INFINITY)?, &full(keep, 0.0)?)),
        ),
        wrong("the keep mask cast to float", &["keep mask as floats"], q2.check(|keep| keep.to_dtype(DType::F32))),
        wrong("-1e9 instead of -inf", &["-1e9", "-inf"], q2.check(move |keep| keep.where_cond(&full(keep, 0.0)?, &full(keep, -1e9)?))),
        wrong(
            "(1 - keep) times -inf, which gives 0 × -inf = NaN where the mask keeps",
            &["nan"],
            q2.check(|keep| keep.to_dtype(DType::F32)?.affine(-1.0, 1.0)?.affine(f32::NEG_INFINITY as f64, 0.0)),
        ),
        wrong(
            "the mask built from f64 values, float64",
            &["float64", "f64"],
            q2.check(|keep| {
                let zeros = Tensor::zeros(keep.shape(), DType::F64, keep.device())?;
                let minus_inf = Tensor::full(f64::NEG_INFINITY, keep.shape(), keep.device())?;
                keep.where_cond(&zeros, &minus_inf)
            }),
        ),
    ]
}

fn q3_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "a reshape straight to (N, h, L, d_k)",
            &["straight to (N, h, L, d_k)", "reshape"],
            q3.check(|x, h| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, h, l, d / h))
            }),
        ),
        wrong(
            "the reshape to (N, L, h, d_k) without the transpose",
            &["transpose"],
            q3.check(|x, h| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, l, h, d / h))
            }),
        ),
        wrong(
            "the width cut as (d_k, h), so that a head takes every h-th feature",
            &["every h-th", "(d_k, h)"],
            q3.check(|x, h| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, l, d / h, h))?.permute((0, 3, 1, 2))?.contiguous()
            }),
        ),
        wrong(
            "the heads put last, (N, L, d_k, h)... transposed over the last two after the cut",
            &["transpose", "permute", "dimensions in another order"],
            q3.check(|x, h| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, l, h, d / h))?.transpose(2, 3)?.contiguous()
            }),
        ),
    ]
}

fn q4_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "a reshape without the transpose",
            &["without the transpose"],
            q4.check(|x| {
                let (n, h, l, d) = x.dims4()?;
                x.reshape((n, l, h * d))
            }),
        ),
        wrong(
            "the heads cut out in a loop and joined along the tokens, then reshaped",
            &["without the transpose"],
            q4.check(|x| {
                let (n, h, l, d) = x.dims4()?;
                let heads: Vec<Tensor> = (0..h).map(|i| x.i((.., i))).collect::<Result<_>>()?;
                Tensor::cat(&heads, 1)?.reshape((n, l, h * d))
            }),
        ),
        wrong(
            "permuted to (N, L, d_k, h) before the reshape",
            &["interleaved"],
            q4.check(|x| {
                let (n, h, l, d) = x.dims4()?;
                x.permute((0, 2, 3, 1))?.contiguous()?.reshape((n, l, h * d))
            }),
        ),
        wrong("the heads averaged instead of put side by side", &["average", "mean"], q4.check(|x| x.mean(1))),
    ]
}

fn q5_wrongs() -> Vec<Wrong> {
    let centered = |x: &Tensor| x.broadcast_sub(&x.mean_keepdim(D::Minus1)?);
    vec![
        wrong(
            "the unbiased variance",
            &["unbiased", "D - 1"],
            q5.check(move |x, w, b, eps| {
                let d = x.dim(D::Minus1)?;
                let c = centered(x)?;
                let var = (c.sqr()?.sum_keepdim(D::Minus1)? / (d - 1) as f64)?;
                c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
            }),
        ),
        wrong(
            "eps added to the standard deviation",
            &["after the square root", "inside"],
            q5.check(move |x, w, b, eps| {
                let c = centered(x)?;
                let std = c.sqr()?.mean_keepdim(D::Minus1)?.sqrt()?;
                c.broadcast_div(&(std + eps)?)?.broadcast_mul(w)?.broadcast_add(b)
            }),
        ),
        wrong(
            "the statistics over the tokens, dimension 1",
            &["over the tokens", "dimension 1"],
            q5.check(|x, w, b, eps| {
                let c = x.broadcast_sub(&x.mean_keepdim(1)?)?;
                let var = c.sqr()?.mean_keepdim(1)?;
                c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
            }),
        ),
        wrong(
            "divided by the variance, no square root",
            &["square root", "variance itself"],
            q5.check(move |x, w, b, eps| {
                let c = centered(x)?;
                let var = c.sqr()?.mean_keepdim(D::Minus1)?;
                c.broadcast_div(&(var + eps)?)?.broadcast_mul(w)?.broadcast_add(b)
            }),
        ),
        wrong(
            "eps left out",
            &["eps is missing", "without eps", "eps"],
            q5.check(move |x, w, b, _| {
                let c = centered(x)?;
                let var = c.sqr()?.mean_keepdim(D::Minus1)?;
                c.broadcast_div(&var.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
            }),
        ),
        wrong(
            "weight and bias swapped",
            &["weight and the bias", "swapped"],
            q5.check(move |x, w, b, eps| {
                let c = centered(x)?;
                let var = c.sqr()?.mean_keepdim(D::Minus1)?;
                c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(b)?.broadcast_add(w)
            }),
        ),
    ]
}

fn q6_wrongs() -> Vec<Wrong> {
    let new = |d_model: usize, p_drop: f64| -> Result<(LayerNorm, Dropout)> { Ok((LayerNorm::new(d_model)?, Dropout::new(p_drop)?)) };
    vec![
        wrong(
            "no residual connection",
            &["residual connection is missing"],
            q6.check(new, |(ln, dropout): &(LayerNorm, Dropout), x, _| dropout.forward(&ln.forward(x)?)),
        ),
        wrong(
            "the residual added after the norm",
            &["pre-norm", "after the norm", "norm(res_input + x)"],
            q6.check(new, |(ln, dropout): &(LayerNorm, Dropout), x, res| dropout.forward(&(res + ln.forward(x)?)?)),
        ),
        wrong(
            "the dropout on the sub-layer's output before the residual",
            &["paper's order", "before the addition"],
            q6.check(new, |(ln, dropout): &(LayerNorm, Dropout), x, res| ln.forward(&(res + dropout.forward(x)?)?)),
        ),
        wrong(
            "the dropout left out",
            &["dropout", "p_drop"],
            q6.check(new, |(ln, _): &(LayerNorm, Dropout), x, res| ln.forward(&(res + x)?)),
        ),
        wrong(
            "the dropout on the sum, before the norm",
            &["dropout", "before the norm"],
            q6.check(new, |(ln, dropout): &(LayerNorm, Dropout), x, res| ln.forward(&dropout.forward(&(res + x)?)?)),
        ),
    ]
}

fn q7_wrongs() -> Vec<Wrong> {
    type Ffn = (Linear, Dropout, Linear);
    let new = |d: usize, d_ff: usize, p: f64| -> Result<Ffn> { Ok((Linear::new(d, d_ff)?, Dropout::new(p)?, Linear::new(d_ff, d)?)) };
    vec![
        wrong("no ReLU", &["relu is missing"], q7.check(new, |(l1, drop, l2): &Ffn, x| l2.forward(&drop.forward(&l1.forward(x)?)?))),
        wrong(
            "the ReLU on the output",
            &["relu comes last"],
            q7.check(new, |(l1, drop, l2): &Ffn, x| l2.forward(&drop.forward(&l1.forward(x)?)?)?.relu()),
        ),
        wrong(
            "the narrowing layer created first",
            &["created first"],
            q7.check(
                |d: usize, d_ff: usize, p: f64| -> Result<Ffn> {
                    let l2 = Linear::new(d_ff, d)?;
                    Ok((Linear::new(d, d_ff)?, Dropout::new(p)?, l2))
                },
                |(l1, drop, l2): &Ffn, x| l2.forward(&drop.forward(&l1.forward(x)?.relu()?)?),
            ),
        ),
        wrong(
            "the dropout after the second layer",
            &["dropout", "p_drop"],
            q7.check(new, |(l1, drop, l2): &Ffn, x| drop.forward(&l2.forward(&l1.forward(x)?.relu()?)?)),
        ),
    ]
}

pub fn corpus() -> Vec<Wrong> {
    [
        q1_wrongs(),
        q2_wrongs(),
        q3_wrongs(),
        q4_wrongs(),
        q5_wrongs(),
        q6_wrongs(),
        q7_wrongs(),
        q8_wrongs(),
        q9_wrongs(),
        q10_wrongs(),
        q11_wrongs(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Correct answers written otherwise than the solutions: each checks Correct.
#[test]
fn other_correct_forms() {
    use super::super::correct;
    let _serial = crate::common::serial();
    // q1: the mask added before the scaling (-inf / sqrt(d_k) is still -inf)
    correct(q1.check(|q, k, v, m| {
        let mut scores = q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)?;
        if let Some(m) = m {
            scores = scores.broadcast_add(m)?;
        }
        let weights = candle_nn::ops::softmax_last_dim(&(scores / (q.dim(D::Minus1)? as f64).sqrt())?)?;
        Ok((weights.matmul(v)?, weights))
    }));
    // q2: the drop positions picked by comparing with 0
    correct(q2.check(|keep| {
        let minus_inf = Tensor::full(f32::NEG_INFINITY, keep.shape(), keep.device())?;
        keep.eq(0u8)?.where_cond(&minus_inf, &Tensor::zeros(keep.shape(), DType::F32, keep.device())?)
    }));
    // q3: every head narrowed out in a loop and stacked
    correct(q3.check(|x, h| {
        let d_k = x.dim(2)? / h;
        let heads: Vec<Tensor> = (0..h).map(|i| x.narrow(2, i * d_k, d_k)).collect::<Result<_>>()?;
        Tensor::stack(&heads, 1)
    }));
    // q4: the heads joined side by side in a loop
    correct(q4.check(|x| {
        let heads: Vec<Tensor> = (0..x.dim(1)?).map(|i| x.i((.., i))).collect::<Result<_>>()?;
        Tensor::cat(&heads, 2)
    }));
    // q5: the variance as E[x²] - E[x]²
    correct(q5.check(|x, w, b, eps| {
        let mean = x.mean_keepdim(D::Minus1)?;
        let var = (x.sqr()?.mean_keepdim(D::Minus1)? - mean.sqr()?)?;
        x.broadcast_sub(&mean)?.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
    }));
    // q6: the dropout made before the norm (neither draws), the sum written x + res_input
    correct(q6.check(
        |d: usize, p: f64| -> Result<(Dropout, LayerNorm)> { Ok((Dropout::new(p)?, LayerNorm::new(d)?)) },
        |(dropout, ln): &(Dropout, LayerNorm), x, res| dropout.forward(&ln.forward(&(x + res)?)?),
    ));
    // q7: the dropout before the ReLU (a positive scaling commutes with it)
    correct(q7.check(
        |d: usize, d_ff: usize, p: f64| -> Result<(Linear, Dropout, Linear)> {
            Ok((Linear::new(d, d_ff)?, Dropout::new(p)?, Linear::new(d_ff, d)?))
        },
        |(l1, drop, l2): &(Linear, Dropout, Linear), x| l2.forward(&drop.forward(&l1.forward(x)?)?.relu()?),
    ));
    // q8: the tokens kept apart from <sos>, the last row read with narrow
    correct(q8.check(|m, src, sos, eos, n| {
        let mut out: Vec<u32> = vec![];
        while out.len() < n {
            let ids: Vec<u32> = std::iter::once(sos).chain(out.iter().copied()).collect();
            let tgt = Tensor::new(ids.as_slice(), src.device())?.unsqueeze(0)?;
            let logits = m.forward(src, &tgt, None, None)?;
            let t = logits.dim(1)?;
            let next = logits.narrow(1, t - 1, 1)?.flatten_all()?.argmax(0)?.to_scalar::<u32>()?;
            if next == eos {
                break;
            }
            out.push(next);
        }
        Ok(out)
    }));
}
