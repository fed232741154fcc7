//! Wrong answers to part 2's q5 to q9: the general, additive and cosine scores, the masked
//! alphas and the wide multi-head attention.

use super::super::{Wrong, wrong};
use attention_zoo::practice::attention::*;
use attention_zoo::prelude::*;

/// Every (query, key) pair side by side, `(N, Lq, L, 2H)`, the query first unless `key_first`.
fn pairs(query: &Tensor, keys: &Tensor, key_first: bool) -> Result<Tensor> {
    let (lq, l) = (query.dim(1)?, keys.dim(1)?);
    let q = query.unsqueeze(2)?.repeat((1, 1, l, 1))?;
    let k = keys.unsqueeze(1)?.repeat((1, lq, 1, 1))?;
    if key_first { Tensor::cat(&[k, q], 3) } else { Tensor::cat(&[q, k], 3) }
}

/// Each vector of `x` divided by its length over dimension `dim`.
fn unit(x: &Tensor, dim: usize) -> Result<Tensor> {
    x.broadcast_div(&x.sqr()?.sum_keepdim(dim)?.sqrt()?)
}

/// Every head's context, in order (or reversed), on the query with the mask.
fn contexts(heads: &mut [Attention], query: &Tensor, mask: Option<&Tensor>, reversed: bool) -> Result<Vec<Tensor>> {
    let mut out = vec![];
    for head in heads.iter_mut() {
        out.push(head.forward(query, mask)?);
    }
    if reversed {
        out.reverse();
    }
    Ok(out)
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 02.q5: general_scores(query, keys, w)
        wrong("W applied to the query", &["W went on the query"], q5.check(|q, k, w| w.forward(q)?.matmul(&k.t()?))),
        wrong("no W at all", &["W is missing", "plain dot products"], q5.check(|q, k, _| q.matmul(&k.t()?))),
        wrong("W on both", &["Both query and keys"], q5.check(|q, k, w| w.forward(q)?.matmul(&w.forward(k)?.t()?))),
        wrong(
            "the scores scaled by sqrt(H)",
            &["not scaled", "sqrt(d_k)", "√"],
            q5.check(|q, k, w| q.matmul(&w.forward(k)?.t()?)? / (q.dim(2)? as f64).sqrt()),
        ),
        wrong(
            "W's weight matrix used as it is stored, not transposed",
            &["transposed", "weight"],
            q5.check(|q, k, w| {
                let weight = w.weight.tensor();
                q.matmul(&k.broadcast_matmul(&weight)?.t()?)
            }),
        ),
        // 02.q6: additive_scores(query, keys, w, v)
        wrong(
            "the pairs made key first",
            &["[k; q]", "query comes first"],
            q6.check(|q, k, w, v| v.forward(&w.forward(&pairs(q, k, true)?)?.tanh()?)?.squeeze(3)),
        ),
        wrong("no tanh", &["tanh is missing"], q6.check(|q, k, w, v| v.forward(&w.forward(&pairs(q, k, false)?)?)?.squeeze(3))),
        wrong(
            "v's output dimension kept",
            &["squeeze", "extra dimension"],
            q6.check(|q, k, w, v| v.forward(&w.forward(&pairs(q, k, false)?)?.tanh()?)),
        ),
        wrong(
            "the tanh taken after v",
            &["after v", "tanh"],
            q6.check(|q, k, w, v| v.forward(&w.forward(&pairs(q, k, false)?)?)?.tanh()?.squeeze(3)),
        ),
        wrong(
            "a softmax over the keys added at the end",
            &["softmax"],
            q6.check(|q, k, w, v| softmax(&v.forward(&w.forward(&pairs(q, k, false)?)?.tanh()?)?.squeeze(3)?)),
        ),
        // 02.q7: cosine_scores(query, keys)
        wrong("plain dot products", &["plain dot products"], q7.check(|q, k| q.matmul(&k.t()?))),
        wrong("only the keys made unit", &["Only the keys"], q7.check(|q, k| q.matmul(&unit(k, 2)?.t()?))),
        wrong("only the query made unit", &["Only the query"], q7.check(|q, k| unit(q, 2)?.matmul(&k.t()?))),
        wrong(
            "each divided by its squared length",
            &["squared"],
            q7.check(|q, k| q.broadcast_div(&q.sqr()?.sum_keepdim(2)?)?.matmul(&k.broadcast_div(&k.sqr()?.sum_keepdim(2)?)?.t()?)),
        ),
        wrong(
            "the lengths taken over the steps (dimension 1) instead of the features",
            &["wrong dimension", "dimension 1", "over the steps"],
            q7.check(|q, k| unit(q, 1)?.matmul(&unit(k, 1)?.t()?)),
        ),
        // 02.q8: masked_alphas(scores, mask)
        wrong(
            "the scores hidden where the mask is 1",
            &["inverted"],
            q8.check(|s, m| {
                let hide = Tensor::full(-1e9f32, s.shape(), s.device())?;
                softmax(&m.broadcast_as(s.shape())?.where_cond(&hide, s)?)
            }),
        ),
        wrong(
            "-1e9 added where the mask is 1, not where it is 0",
            &["inverted"],
            q8.check(|s, m| softmax(&s.broadcast_add(&(m.to_dtype(DType::F32)? * -1e9)?)?)),
        ),
        wrong(
            "the alphas zeroed after the softmax",
            &["after the softmax"],
            q8.check(|s, m| softmax(s)?.broadcast_mul(&m.to_dtype(DType::F32)?)),
        ),
        wrong(
            "the padded scores set to 0",
            &["became 0", "huge negative"],
            q8.check(|s, m| softmax(&s.broadcast_mul(&m.to_dtype(DType::F32)?)?)),
        ),
        wrong("the padded alphas set to 0 after the softmax", &["after the softmax"], q8.check(|s, m| masked_fill(&softmax(s)?, m, 0.0))),
        wrong("the scores masked, the softmax forgotten", &["their softmax", "masked scores"], q8.check(|s, m| masked_fill(s, m, -1e9))),
        // 02.q9: multi_head_forward(attn_heads, linear_out, query, mask)
        wrong(
            "no output layer",
            &["output layer is missing"],
            q9.check(|heads, _, q, m| Tensor::cat(&contexts(heads, q, m, false)?, D::Minus1)),
        ),
        wrong(
            "the mask not passed on to the heads",
            &["mask never reached"],
            q9.check(|heads, out, q, _| out.forward(&Tensor::cat(&contexts(heads, q, None, false)?, D::Minus1)?)),
        ),
        wrong(
            "the contexts stacked then flattened, which interleaves them",
            &["interleaved", "interleaves"],
            q9.check(|heads, out, q, m| out.forward(&Tensor::stack(&contexts(heads, q, m, false)?, 3)?.flatten_from(2)?)),
        ),
        wrong(
            "the heads' contexts joined last head first",
            &["reverse", "order"],
            q9.check(|heads, out, q, m| out.forward(&Tensor::cat(&contexts(heads, q, m, true)?, D::Minus1)?)),
        ),
    ]
}

/// Other correct ways to write q5 to q9.
pub fn other_correct_forms() {
    use super::super::super::correct;
    // q5: the mapped keys times the query, transposed back
    correct(q5.check(|q, k, w| w.forward(k)?.matmul(&q.t()?)?.t()));
    // q6: the pairs made with expand-like repeats (the helper), the last dimension squeezed by index
    correct(q6.check(|q, k, w, v| v.forward(&w.forward(&pairs(q, k, false)?)?.tanh()?)?.squeeze(D::Minus1)));
    // q7: the dot products divided by the product of the lengths
    correct(q7.check(|q, k| {
        let ql = q.sqr()?.sum_keepdim(2)?.sqrt()?;
        let kl = k.sqr()?.sum_keepdim(2)?.sqrt()?;
        q.matmul(&k.t()?)?.broadcast_div(&ql.matmul(&kl.t()?)?)
    }));
    // q8: -inf instead of -1e9; or the softmax renormalised over the kept keys
    correct(q8.check(|s, m| softmax(&masked_fill(s, m, f64::NEG_INFINITY)?)));
    correct(q8.check(|s, m| {
        let kept = s.exp()?.broadcast_mul(&m.to_dtype(DType::F32)?)?;
        kept.broadcast_div(&kept.sum_keepdim(D::Minus1)?)
    }));
    // q9: stacked before the last dimension, then flattened: head after head, as the cat
    correct(q9.check(|heads, out, q, m| out.forward(&Tensor::stack(&contexts(heads, q, m, false)?, 2)?.flatten_from(2)?)));
    // q9: a fold over the heads, the output layer's input grown one context at a time
    correct(q9.check(|heads, out, q, m| {
        let mut joined: Option<Tensor> = None;
        for head in heads.iter_mut() {
            let c = head.forward(q, m)?;
            joined = Some(match joined {
                None => c,
                Some(j) => Tensor::cat(&[j, c], 2)?,
            });
        }
        out.forward(&joined.unwrap())
    }));
}
