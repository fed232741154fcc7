//! The solutions of part 2 (notebooks/exercises/02_attention.ipynb), as `q1.solution()` to
//! `q9.solution()` show them. Each compiles in a notebook cell as written, after
//! `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    // N, 1, H x N, H, L -> N, 1, L
    query.matmul(&keys.transpose(1, 2)?)
}

pub fn alphas_of(products: &Tensor) -> Result<Tensor> {
    candle_nn::ops::softmax(products, D::Minus1)
}

pub fn context_of(alphas: &Tensor, values: &Tensor) -> Result<Tensor> {
    // N, 1, L x N, L, H -> N, 1, H
    alphas.matmul(values)
}

pub fn scaled_alphas(ks: &Tensor, q: &Tensor) -> Result<Tensor> {
    let dims = q.dim(D::Minus1)?;
    let products = q.matmul(&ks.transpose(1, 2)?)?;
    let scaled_products = (products / (dims as f64).sqrt())?;
    softmax(&scaled_products)
}

pub fn general_scores(query: &Tensor, keys: &Tensor, w: &Linear) -> Result<Tensor> {
    // q · (W k): W maps the keys, then dot products with the query
    let proj_keys = w.forward(keys)?;
    query.matmul(&proj_keys.transpose(1, 2)?)
}

pub fn additive_scores(query: &Tensor, keys: &Tensor, w: &Linear, v: &Linear) -> Result<Tensor> {
    let (n, lq, h) = query.dims3()?;
    let l = keys.dim(1)?;
    // every (query, key) pair side by side: N, Lq, L, 2H
    let q = query.unsqueeze(2)?.broadcast_as((n, lq, l, h))?;
    let k = keys.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
    let pairs = Tensor::cat(&[q, k], 3)?;
    // N, Lq, L, 2H -> N, Lq, L, H -> N, Lq, L, 1 -> N, Lq, L
    v.forward(&w.forward(&pairs)?.tanh()?)?.squeeze(3)
}

pub fn cosine_scores(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    let q_len = query.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // N, Lq, 1
    let k_len = keys.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // N, L, 1
    let q_unit = query.broadcast_div(&q_len)?;
    let k_unit = keys.broadcast_div(&k_len)?;
    q_unit.matmul(&k_unit.transpose(1, 2)?)
}

pub fn masked_alphas(scores: &Tensor, mask: &Tensor) -> Result<Tensor> {
    // masked_fill(mask == 0, -1e9): where the mask is 0 the score becomes -1e9
    let fill = Tensor::full(-1e9f32, scores.shape(), scores.device())?;
    let masked = mask.broadcast_as(scores.shape())?.where_cond(scores, &fill)?;
    softmax(&masked)
}

pub fn multi_head_forward(attn_heads: &mut [Attention], linear_out: &Linear, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
    let mut contexts = vec![];
    for attn in attn_heads.iter_mut() {
        contexts.push(attn.forward(query, mask)?);
    }
    // N, Lq, n_heads * D -> N, Lq, D
    let concatenated = Tensor::cat(&contexts, D::Minus1)?;
    linear_out.forward(&concatenated)
}
