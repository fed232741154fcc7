//! Part 2's exercises, both ways.

use super::{correct, incorrect, mistake, not_attempted};
use attention_zoo::practice::attention::*;
use attention_zoo::practice::solutions::attention as s;
use attention_zoo::prelude::*;

#[test]
fn q1_products() {
    let _serial = crate::common::serial();
    correct(q1.check(s::products));
    not_attempted(q1.check(|_, _| todo!()));
    mistake(q1.check(|query, keys| query.matmul(keys)), "not transposed");
    mistake(q1.check(|query, keys| keys.matmul(&query.permute((0, 2, 1))?)), "swapped");
    // the products of each key with the query, summed by hand: the keys' shape, (N, L, 1)
    mistake(q1.check(|query, keys| keys.broadcast_mul(query)?.sum_keepdim(2)), "swapped");
}

#[test]
fn q2_alphas() {
    let _serial = crate::common::serial();
    correct(q2.check(s::alphas_of));
    not_attempted(q2.check(|_| todo!()));
    mistake(q2.check(|products| candle_nn::ops::softmax(products, 1)), "wrong dimension");
    mistake(q2.check(|products| candle_nn::ops::softmax(products, 0)), "over the batch");
    mistake(q2.check(|products| Ok(products.clone())), "products themselves");
    mistake(
        q2.check(|products| {
            let total = products.sum_keepdim(D::Minus1)?;
            products.broadcast_div(&total)
        }),
        "not a softmax",
    );
}

#[test]
fn q3_context() {
    let _serial = crate::common::serial();
    correct(q3.check(s::context_of));
    not_attempted(q3.check(|_, _| todo!()));
    mistake(q3.check(|_alphas, values| values.sum_keepdim(1)), "without their alphas");
    mistake(
        q3.check(|_alphas, values| {
            let l = values.dim(1)?;
            values.sum_keepdim(1)? / l as f64
        }),
        "plain average",
    );
    mistake(q3.check(|alphas, values| values.broadcast_mul(&alphas.permute((0, 2, 1))?)), "alignment vectors");
    // values times alphas, in the wrong order: the shapes do not fit and candle says so
    incorrect(q3.check(|alphas, values| values.matmul(alphas)), "Your code returned an error");
}

#[test]
fn q4_scaled_alphas() {
    let _serial = crate::common::serial();
    correct(q4.check(s::scaled_alphas));
    not_attempted(q4.check(|_, _| todo!()));
    mistake(q4.check(|ks, q| softmax(&q.matmul(&ks.t()?)?)), "not scaled");
    mistake(
        q4.check(|ks, q| {
            let dims = q.dim(D::Minus1)?;
            softmax(&(q.matmul(&ks.t()?)? / dims as f64)?)
        }),
        "divided by d_k itself",
    );
    mistake(
        q4.check(|ks, q| {
            let (_, l, _) = ks.dims3()?;
            softmax(&(q.matmul(&ks.t()?)? / (l as f64).sqrt())?)
        }),
        "number of keys",
    );
    mistake(
        q4.check(|ks, q| {
            let scale = (q.dim(2)? as f64).sqrt();
            softmax(&(q.matmul(&ks.t()?)? * scale)?)
        }),
        "multiplied by sqrt(d_k)",
    );
}

#[test]
fn q5_general_scores() {
    let _serial = crate::common::serial();
    correct(q5.check(s::general_scores));
    not_attempted(q5.check(|_, _, _| todo!()));
    mistake(q5.check(|query, keys, w| w.forward(query)?.matmul(&keys.t()?)), "W went on the query");
    mistake(q5.check(|query, keys, _w| query.matmul(&keys.t()?)), "W is missing");
    mistake(q5.check(|query, keys, w| w.forward(query)?.matmul(&w.forward(keys)?.t()?)), "Both query and keys");
    mistake(
        q5.check(|query, keys, w| {
            let d_k = query.dim(D::Minus1)? as f64;
            query.matmul(&w.forward(keys)?.t()?)? / d_k.sqrt()
        }),
        "not scaled",
    );
}

#[test]
fn q6_additive_scores() {
    let _serial = crate::common::serial();
    correct(q6.check(s::additive_scores));
    not_attempted(q6.check(|_, _, _, _| todo!()));
    // every (query, key) pair, the student's way: expand both to (N, Lq, L, H)
    let pairs = |query: &Tensor, keys: &Tensor, key_first: bool| -> Result<Tensor> {
        let (n, lq, h) = query.dims3()?;
        let l = keys.dim(1)?;
        let q = query.unsqueeze(2)?.expand((n, lq, l, h))?;
        let k = keys.unsqueeze(1)?.expand((n, lq, l, h))?;
        if key_first { Tensor::cat(&[k, q], D::Minus1) } else { Tensor::cat(&[q, k], D::Minus1) }
    };
    mistake(q6.check(|query, keys, w, v| v.forward(&w.forward(&pairs(query, keys, true)?)?.tanh()?)?.squeeze(3)), "[k; q]");
    mistake(q6.check(|query, keys, w, v| v.forward(&w.forward(&pairs(query, keys, false)?)?)?.squeeze(3)), "tanh is missing");
    mistake(q6.check(|query, keys, w, v| v.forward(&w.forward(&pairs(query, keys, false)?)?.tanh()?)), "squeeze it away");
}

#[test]
fn q7_cosine_scores() {
    let _serial = crate::common::serial();
    correct(q7.check(s::cosine_scores));
    not_attempted(q7.check(|_, _| todo!()));
    let norm = |x: &Tensor| x.powf(2.0)?.sum_keepdim(2)?.sqrt();
    mistake(q7.check(|query, keys| query.matmul(&keys.t()?)), "plain dot products");
    mistake(q7.check(|query, keys| query.matmul(&keys.broadcast_div(&norm(keys)?)?.t()?)), "Only the keys");
    mistake(q7.check(|query, keys| query.broadcast_div(&norm(query)?)?.matmul(&keys.t()?)), "Only the query");
    mistake(
        q7.check(|query, keys| {
            let q_sq = query.powf(2.0)?.sum_keepdim(2)?;
            let k_sq = keys.powf(2.0)?.sum_keepdim(2)?;
            query.broadcast_div(&q_sq)?.matmul(&keys.broadcast_div(&k_sq)?.t()?)
        }),
        "squared",
    );
}

#[test]
fn q8_masked_alphas() {
    let _serial = crate::common::serial();
    correct(q8.check(s::masked_alphas));
    not_attempted(q8.check(|_, _| todo!()));
    // keep where the mask is 0
    mistake(
        q8.check(|scores, mask| {
            let fill = Tensor::full(-1e9f32, scores.shape(), scores.device())?;
            let alphas = mask.broadcast_as(scores.shape())?.where_cond(&fill, scores)?;
            softmax(&alphas)
        }),
        "inverted",
    );
    mistake(q8.check(|scores, mask| softmax(scores)?.broadcast_mul(&mask.to_dtype(DType::F32)?)), "after the softmax");
    mistake(q8.check(|scores, mask| softmax(&scores.broadcast_mul(&mask.to_dtype(DType::F32)?)?)), "became 0");
    // -inf instead of -1e9: the same alphas
    correct(q8.check(|scores, mask| softmax(&masked_fill(scores, mask, f64::NEG_INFINITY)?)));
}

#[test]
fn q9_multi_head_forward() {
    let _serial = crate::common::serial();
    correct(q9.check(s::multi_head_forward));
    not_attempted(q9.check(|_, _, _, _| todo!()));
    mistake(
        q9.check(|heads, _linear_out, query, mask| {
            let contexts = heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<Vec<_>>>()?;
            Tensor::cat(&contexts, 2)
        }),
        "output layer is missing",
    );
    mistake(
        q9.check(|heads, linear_out, query, _mask| {
            let contexts = heads.iter_mut().map(|h| h.forward(query, None)).collect::<Result<Vec<_>>>()?;
            linear_out.forward(&Tensor::cat(&contexts, 2)?)
        }),
        "mask never reached",
    );
    // joined on the queries' dimension: the output layer refuses the width
    incorrect(
        q9.check(|heads, linear_out, query, mask| {
            let contexts = heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<Vec<_>>>()?;
            linear_out.forward(&Tensor::cat(&contexts, 1)?)
        }),
        "Your code returned an error",
    );
}

/// The sentences added for the wrong-answer corpus, each reached by an answer of its own.
#[test]
fn more_named_mistakes() {
    let _serial = crate::common::serial();
    let scale = |t: &Tensor| (t.dim(D::Minus1).unwrap() as f64).sqrt();
    mistake(q1.check(|query, keys| (keys * query.broadcast_as(keys.shape())?)?.sum_keepdim(1)), "summed over the keys");
    mistake(q1.check(|query, keys| candle_nn::ops::softmax(&query.matmul(&keys.t()?)?, 2)), "alphas already");
    mistake(q2.check(|p| candle_nn::ops::softmax(p, 2)?.log()), "log-softmax");
    mistake(q2.check(|p| p.exp()), "not divided by their sum");
    mistake(q2.check(|p| (p.neg()?.exp()? + 1.0)?.recip()), "sigmoid");
    mistake(q4.check(|ks, q| softmax(&(q.matmul(&ks.t()?)? / scale(q).trunc())?)), "rounded down");
    mistake(q4.check(|ks, q| softmax(&q.matmul(&ks.t()?)?)? / scale(q)), "after the softmax");
    mistake(q4.check(|ks, q| candle_nn::ops::softmax(&(q.matmul(&ks.t()?)? / scale(q))?, 1)), "queries' dimension");
    let pairs = |query: &Tensor, keys: &Tensor| -> Result<Tensor> {
        let (lq, l) = (query.dim(1)?, keys.dim(1)?);
        Tensor::cat(&[query.unsqueeze(2)?.repeat((1, 1, l, 1))?, keys.unsqueeze(1)?.repeat((1, lq, 1, 1))?], 3)
    };
    mistake(q6.check(|query, keys, w, v| v.forward(&w.forward(&pairs(query, keys)?)?)?.squeeze(3)?.tanh()), "comes after v");
    mistake(
        q6.check(|query, keys, w, v| candle_nn::ops::softmax(&v.forward(&w.forward(&pairs(query, keys)?)?.tanh()?)?.squeeze(3)?, 2)),
        "turned the scores into alphas",
    );
    let across = |x: &Tensor| x.broadcast_div(&x.sqr()?.sum_keepdim(1)?.sqrt()?);
    mistake(q7.check(move |query, keys| across(query)?.matmul(&across(keys)?.t()?)), "over dimension 1");
    mistake(
        q8.check(|scores, mask| {
            let fill = Tensor::full(-1e9f32, scores.shape(), scores.device())?;
            mask.broadcast_as(scores.shape())?.where_cond(scores, &fill)
        }),
        "masked scores",
    );
    mistake(
        q9.check(|heads, linear_out, query, mask| {
            let contexts = heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<Vec<_>>>()?;
            let joined = Tensor::stack(&contexts, D::Minus1)?;
            let (n, lq, d, k) = joined.dims4()?;
            linear_out.forward(&joined.reshape((n, lq, d * k))?)
        }),
        "interleaved",
    );
    mistake(
        q9.check(|heads, linear_out, query, mask| {
            let contexts = heads.iter_mut().rev().map(|h| h.forward(query, mask)).collect::<Result<Vec<_>>>()?;
            linear_out.forward(&Tensor::cat(&contexts, 2)?)
        }),
        "reverse order",
    );
}
