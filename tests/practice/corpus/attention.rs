//! Wrong answers to part 2's exercises, written from the notebook's statements alone.

use super::{Wrong, wrong};
use attention_zoo::practice::attention::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 02.q4: scaled alphas, `calc_alphas(ks, q)`
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
    ]
}
