//! Held-out wrong answers to part 2 (02_attention.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::attention::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 02.q1 products
        wrong(
            "matching entries multiplied and summed with keepdim: (N, L, 1), transposed",
            &["transposed", "transpose", "(n, l, 1)", "swapped"],
            q1.check(|query, keys| query.broadcast_mul(keys)?.sum_keepdim(2)),
        ),
        wrong(
            "the entries multiplied but never summed over the dimensions",
            &["sum", "summed", "not summed", "add up"],
            q1.check(|query, keys| query.broadcast_mul(keys)),
        ),
        // 02.q2 alphas_of
        wrong(
            "the exponentials divided by the sum over the whole batch",
            &["every", "all", "whole", "over the keys", "each query", "per query"],
            q2.check(|p| p.exp()?.broadcast_div(&p.exp()?.sum_all()?)),
        ),
        wrong(
            "the max subtracted in the numerator only",
            &["max", "shift", "subtract"],
            q2.check(|p| {
                let e = p.broadcast_sub(&p.max_keepdim(2)?)?.exp()?;
                e.broadcast_div(&p.exp()?.sum_keepdim(2)?)
            }),
        ),
        // 02.q3 context_of
        wrong(
            "the alphas transposed before the product",
            &["transpose", "transposed"],
            q3.check(|alphas, values| alphas.t()?.matmul(values)),
        ),
        wrong(
            "a softmax taken again on the alphas",
            &["softmax", "twice", "again"],
            q3.check(|alphas, values| softmax(alphas)?.matmul(values)),
        ),
        // 02.q4 scaled_alphas
        wrong(
            "keys times query: (N, L, 1), then the softmax over a dimension of one",
            &["order", "swapped", "transposed", "keys and query"],
            q4.check(|ks, q| {
                let d = q.dim(D::Minus1)? as f64;
                softmax(&(ks.matmul(&q.t()?)? / d.sqrt())?)
            }),
        ),
        wrong(
            "the scale applied after the softmax",
            &["after the softmax", "before the softmax", "after"],
            q4.check(|ks, q| {
                let d = q.dim(D::Minus1)? as f64;
                softmax(&q.matmul(&ks.t()?)?)? / d.sqrt()
            }),
        ),
        // 02.q5 general_scores
        wrong(
            "w maps the query instead of the keys",
            &["maps the query", "mapped the query", "query instead", "wᵀ", "w transposed", "transpose of w"],
            q5.check(|query, keys, w| w.forward(query)?.matmul(&keys.t()?)),
        ),
        wrong(
            "w maps both the query and the keys",
            &["both", "twice", "query and the keys", "as well"],
            q5.check(|query, keys, w| w.forward(query)?.matmul(&w.forward(keys)?.t()?)),
        ),
        // 02.q6 additive_scores
        wrong(
            "the key first in each pair",
            &["key first", "keys first", "order", "query first", "swapped"],
            q6.check(|query, keys, w, v| {
                let (n, lq, h) = query.dims3()?;
                let l = keys.dim(1)?;
                let q = query.unsqueeze(2)?.broadcast_as((n, lq, l, h))?;
                let k = keys.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
                let pairs = Tensor::cat(&[k, q], 3)?;
                v.forward(&w.forward(&pairs)?.tanh()?)?.squeeze(3)
            }),
        ),
        wrong(
            "no tanh between w and v",
            &["tanh"],
            q6.check(|query, keys, w, v| {
                let (n, lq, h) = query.dims3()?;
                let l = keys.dim(1)?;
                let q = query.unsqueeze(2)?.broadcast_as((n, lq, l, h))?;
                let k = keys.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
                let pairs = Tensor::cat(&[q, k], 3)?;
                v.forward(&w.forward(&pairs)?)?.squeeze(3)
            }),
        ),
        // 02.q7 cosine_scores
        wrong(
            "only the keys divided by their lengths",
            &["query's length", "query length", "both lengths", "only the keys", "one length"],
            q7.check(|query, keys| {
                let k_len = keys.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?;
                query.matmul(&keys.broadcast_div(&k_len)?.t()?)
            }),
        ),
        wrong(
            "divided by the squared lengths, no square root",
            &["square root", "sqrt", "squared length", "squared"],
            q7.check(|query, keys| {
                let q_len = query.sqr()?.sum_keepdim(D::Minus1)?;
                let k_len = keys.sqr()?.sum_keepdim(D::Minus1)?;
                query.broadcast_div(&q_len)?.matmul(&keys.broadcast_div(&k_len)?.t()?)
            }),
        ),
        // 02.q8 masked_alphas
        wrong(
            "the mask inverted: the real keys filled",
            &["inverted", "reversed", "the other way", "real keys", "swap"],
            q8.check(|scores, mask| {
                let fill = Tensor::full(-1e9f32, scores.shape(), scores.device())?;
                softmax(&mask.broadcast_as(scores.shape())?.where_cond(&fill, scores)?)
            }),
        ),
        wrong(
            "the alphas multiplied by the mask after the softmax, not renormalised",
            &["renormal", "add up to one", "sum to one", "after the softmax", "normalis"],
            q8.check(|scores, mask| softmax(scores)?.broadcast_mul(&mask.to_dtype(DType::F32)?)),
        ),
        // 02.q9 multi_head_forward
        wrong(
            "the heads run without the mask",
            &["mask"],
            q9.check(|attn_heads, linear_out, query, _mask| {
                let mut contexts = vec![];
                for attn in attn_heads.iter_mut() {
                    contexts.push(attn.forward(query, None)?);
                }
                linear_out.forward(&Tensor::cat(&contexts, D::Minus1)?)
            }),
        ),
        wrong(
            "the joined contexts returned without linear_out",
            &["linear_out", "output layer", "map back", "not mapped"],
            q9.check(|attn_heads, _linear_out, query, mask| {
                let mut contexts = vec![];
                for attn in attn_heads.iter_mut() {
                    contexts.push(attn.forward(query, mask)?);
                }
                Tensor::cat(&contexts, D::Minus1)
            }),
        ),
    ]
}
