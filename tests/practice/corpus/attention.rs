//! Wrong answers to part 2's exercises, written from the notebook's statements alone: q1 to q4
//! here, q5 to q9 in `attention/scores.rs`.

mod scores;

use super::{Wrong, wrong};
use attention_zoo::practice::attention::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    let mut all = vec![
        // 02.q1: products(query (N, 1, H), keys (N, L, H)) -> (N, 1, L)
        wrong("the keys not transposed", &["not transposed"], q1.check(|query, keys| query.matmul(keys))),
        wrong("the keys times the query", &["swapped", "last two swapped"], q1.check(|query, keys| keys.matmul(&query.transpose(1, 2)?))),
        wrong(
            "products of matching entries summed over the keys instead of the dimensions",
            &["over the keys", "wrong dimension", "dimension 1"],
            q1.check(|query, keys| query.broadcast_mul(keys)?.sum_keepdim(1)),
        ),
        wrong(
            "the products scaled by sqrt(H), as in the scaled attention",
            &["√h", "sqrt", "square root"],
            q1.check(|query, keys| {
                let h = query.dim(2)? as f64;
                query.matmul(&keys.t()?)? / h.sqrt()
            }),
        ),
        wrong("the softmax taken already: alphas, not products", &["softmax"], q1.check(|query, keys| softmax(&query.matmul(&keys.t()?)?))),
        // 02.q2: alphas_of(products (N, Lq, L)) -> (N, Lq, L)
        wrong("the softmax over dimension 1", &["wrong dimension", "another dimension"], q2.check(|p| candle_nn::ops::softmax(p, 1))),
        wrong("the softmax over the batch", &["over the batch", "dimension 0"], q2.check(|p| candle_nn::ops::softmax(p, 0))),
        wrong(
            "the products divided by their sum, no exponential",
            &["exponentiate", "not a softmax"],
            q2.check(|p| p.broadcast_div(&p.sum_keepdim(2)?)),
        ),
        wrong("the exponentials left unnormalised", &["divided by their sum", "add up to one", "normalis"], q2.check(|p| p.exp())),
        wrong("the log-softmax", &["log"], q2.check(|p| candle_nn::ops::log_softmax(p, D::Minus1))),
        wrong("a sigmoid of each product", &["sigmoid", "add up to one"], q2.check(candle_nn::ops::sigmoid)),
        // 02.q3: context_of(alphas (N, Lq, L), values (N, L, H)) -> (N, Lq, H)
        wrong("the values summed, alphas ignored", &["without their alphas"], q3.check(|_, values| values.sum_keepdim(1))),
        wrong("the values averaged, alphas ignored", &["plain average", "uniform"], q3.check(|_, values| values.mean_keepdim(1))),
        wrong(
            "every value weighted, never summed",
            &["alignment vectors", "sum over the values"],
            q3.check(|alphas, values| values.broadcast_mul(&alphas.transpose(1, 2)?)),
        ),
        wrong(
            "the weighted sum divided by the number of values, as an average",
            &["1/l", "number of values"],
            q3.check(|alphas, values| {
                let l = values.dim(1)? as f64;
                alphas.matmul(values)? / l
            }),
        ),
        wrong(
            "the product taken transposed, Vᵀ Aᵀ, and not transposed back",
            &["last two swapped", "another order"],
            q3.check(|alphas, values| values.t()?.matmul(&alphas.t()?)),
        ),
        // 02.q4: scaled_alphas(ks, q), the lecture's calc_alphas
        wrong(
            "the products divided by d_k, not by its square root",
            &["square root", "√d_k"],
            q4.check(|ks, q| {
                let d_k = q.dim(D::Minus1)? as f64;
                softmax(&(q.matmul(&ks.transpose(1, 2)?)? / d_k)?)
            }),
        ),
        wrong(
            "the square root taken in integers",
            &["square root", "√d_k", "sqrt"],
            q4.check(|ks, q| {
                let d_k = (q.dim(D::Minus1)? as f64).sqrt().floor();
                softmax(&(q.matmul(&ks.transpose(1, 2)?)? / d_k)?)
            }),
        ),
        wrong("no scale at all", &["not scaled"], q4.check(|ks, q| softmax(&q.matmul(&ks.t()?)?))),
        wrong(
            "the scale from the number of keys",
            &["number of keys"],
            q4.check(|ks, q| softmax(&(q.matmul(&ks.t()?)? / (ks.dim(1)? as f64).sqrt())?)),
        ),
        wrong(
            "the alphas divided by sqrt(d_k), after the softmax",
            &["after the softmax"],
            q4.check(|ks, q| softmax(&q.matmul(&ks.t()?)?)? / (q.dim(2)? as f64).sqrt()),
        ),
        wrong(
            "the softmax over the queries' dimension",
            &["queries' dimension", "wrong dimension", "dimension 1"],
            q4.check(|ks, q| candle_nn::ops::softmax(&(q.matmul(&ks.t()?)? / (q.dim(2)? as f64).sqrt())?, 1)),
        ),
    ];
    all.extend(scores::corpus());
    all
}

/// Other correct ways to write part 2's exercises: each checks Correct.
#[test]
fn other_correct_forms() {
    let _serial = crate::common::serial();
    use super::super::correct;
    // q1: t() transposes the last two dimensions; or products by hand
    correct(q1.check(|query, keys| query.matmul(&keys.t()?)));
    correct(q1.check(|query, keys| keys.broadcast_mul(query)?.sum_keepdim(2)?.transpose(1, 2)));
    // q2: the softmax by hand, the largest product subtracted first
    correct(q2.check(|p| {
        let e = p.broadcast_sub(&p.max_keepdim(D::Minus1)?)?.exp()?;
        e.broadcast_div(&e.sum_keepdim(D::Minus1)?)
    }));
    correct(q2.check(|p| {
        let e = p.exp()?;
        e.broadcast_div(&e.sum_keepdim(2)?)
    }));
    // q3: (A V)ᵀ = Vᵀ Aᵀ; or the weighted values summed over the values
    correct(q3.check(|alphas, values| values.t()?.matmul(&alphas.t()?)?.t()));
    correct(q3.check(|alphas, values| {
        let (n, lq, l) = alphas.dims3()?;
        let h = values.dim(2)?;
        let a = alphas.unsqueeze(3)?.broadcast_as((n, lq, l, h))?;
        let v = values.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
        (a * v)?.sum(2)
    }));
    // q4: the query scaled before the product
    correct(q4.check(|ks, q| {
        let scale = 1.0 / (q.dim(D::Minus1)? as f64).sqrt();
        softmax(&(q * scale)?.matmul(&ks.t()?)?)
    }));
    scores::other_correct_forms();
}
