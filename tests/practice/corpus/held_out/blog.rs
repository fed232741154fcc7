//! Held-out wrong answers to part 5 (05_attention_layers.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::blog::*;
use attention_zoo::prelude::*;

type Gates = fn(&[Tensor]) -> Result<(Tensor, Tensor, Tensor, Tensor)>;

/// One LSTM step with the gates read by `gates` (input, forget, candidate, output) and the hidden
/// state read through a tanh of the cell or not.
#[allow(clippy::too_many_arguments)]
fn lstm_step(
    x: &Tensor,
    h: &Tensor,
    c: &Tensor,
    w_ih: &Tensor,
    w_hh: &Tensor,
    b_ih: &Tensor,
    b_hh: &Tensor,
    gates: Gates,
    tanh: bool,
) -> Result<(Tensor, Tensor)> {
    let gx = x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)?;
    let gh = h.matmul(&w_hh.t()?)?.broadcast_add(b_hh)?;
    let (i, f, g, o) = gates(&(gx + gh)?.chunk(4, 1)?)?;
    let c_next = ((f * c)? + (i * g)?)?;
    let h_next = if tanh { (o * c_next.tanh()?)? } else { (o * &c_next)? };
    Ok((h_next, c_next))
}

fn sig(t: &Tensor) -> Result<Tensor> {
    candle_nn::ops::sigmoid(t)
}

fn vectorised(
    mha: &VectorisedMultiHeadAttention,
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    scale: bool,
    permute: bool,
) -> Result<Tensor> {
    let split = |x: &Tensor| -> Result<Tensor> {
        let (n, l, _) = x.dims3()?;
        if permute {
            x.reshape((n, l, mha.n_heads, mha.d_k))?.permute((0, 2, 1, 3))?.contiguous()
        } else {
            x.reshape((n, mha.n_heads, l, mha.d_k))
        }
    };
    let q = split(&mha.query.forward(query)?)?;
    let k = split(&mha.key.forward(key)?)?;
    let v = split(&mha.value.forward(value)?)?;
    let mut scores = q.matmul(&k.t()?.contiguous()?)?;
    if scale {
        scores = (scores / (mha.d_k as f64).sqrt())?;
    }
    let attended = softmax(&scores)?.matmul(&v)?;
    let (n, lq, _) = query.dims3()?;
    mha.output.forward(&attended.permute((0, 2, 1, 3))?.contiguous()?.reshape((n, lq, mha.d_model))?)
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 05.q1 attention_layer_forward
        wrong(
            "the scores scaled by the square root of the width, which the post does not do",
            &["scale", "scaled", "square root", "sqrt"],
            q1.check(|layer, query, key, value| {
                let q = layer.query.forward(query)?;
                let d = q.dim(D::Minus1)? as f64;
                let scores = (q.matmul(&layer.key.forward(key)?.t()?.contiguous()?)? / d.sqrt())?;
                softmax(&scores)?.matmul(&layer.value.forward(value)?)
            }),
        ),
        wrong(
            "the values projected with the key map (copy and paste)",
            &["layer.key", "key map", "key layer", "value map", "value's map", "projected the values with"],
            q1.check(|layer, query, key, value| {
                let scores = layer.query.forward(query)?.matmul(&layer.key.forward(key)?.t()?.contiguous()?)?;
                softmax(&scores)?.matmul(&layer.key.forward(value)?)
            }),
        ),
        // 05.q2 lstm_cell_step
        wrong(
            "the gates read as input, forget, output, candidate",
            &["order", "gate order", "gates' order", "pytorch's order", "swapped"],
            q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
                lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, |g| Ok((sig(&g[0])?, sig(&g[1])?, g[3].tanh()?, sig(&g[2])?)), true)
            }),
        ),
        wrong(
            "the new hidden state without the tanh of the cell",
            &["tanh"],
            q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
                lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, |g| Ok((sig(&g[0])?, sig(&g[1])?, g[2].tanh()?, sig(&g[3])?)), false)
            }),
        ),
        // 05.q3 vectorised_attention
        wrong(
            "the scores not scaled",
            &["scale", "square root", "sqrt", "√d_k", "not scaled"],
            q3.check(|mha, query, key, value| vectorised(mha, query, key, value, false, true)),
        ),
        wrong(
            "the heads split by a plain reshape to (N, heads, L, d_k)",
            &["permute", "transpose", "reshape", "view"],
            q3.check(|mha, query, key, value| vectorised(mha, query, key, value, true, false)),
        ),
        // 05.q4 bidirectional_outputs
        wrong(
            "the backward direction's outputs not reversed back",
            &["reverse", "reversed", "flip", "back"],
            q4.check(|forward_lstm, backward_lstm, x| {
                let (f, _) = forward_lstm.forward(x, None)?;
                let (b, _) = backward_lstm.forward(&reverse_time(x)?, None)?;
                Tensor::cat(&[f, b], 2)
            }),
        ),
        wrong(
            "the backward direction's features first",
            &["order", "first", "backward first", "swapped"],
            q4.check(|forward_lstm, backward_lstm, x| {
                let (f, _) = forward_lstm.forward(x, None)?;
                let (b, _) = backward_lstm.forward(&reverse_time(x)?, None)?;
                Tensor::cat(&[reverse_time(&b)?, f], 2)
            }),
        ),
        // 05.q5 key_padding_mask
        wrong(
            "1 at the words, 0 at the padding: the lecture's convention",
            &["inverted", "reversed", "the other way", "non-padding", "1 at the words"],
            q5.check(|ids, pad_id| ids.ne(pad_id)),
        ),
        wrong(
            "made sequence-first, (L, N), like the block's input",
            &["transpose", "sequence-first", "(l, n)", "transposed"],
            q5.check(|ids, pad_id| ids.eq(pad_id)?.t()),
        ),
        // 05.q6 masked_cross_entropy
        wrong(
            "divided by every position, padding included",
            &["all positions", "every position", "including the padding", "denominator", "divided by"],
            q6.check(|logits, targets, pad_id| {
                let log_probs = candle_nn::ops::log_softmax(logits, D::Minus1)?;
                let picked = log_probs.gather(&targets.unsqueeze(D::Minus1)?, D::Minus1)?.squeeze(D::Minus1)?;
                let keep = targets.ne(pad_id)?.to_dtype(DType::F32)?;
                (picked * keep)?.mean_all()?.neg()
            }),
        ),
        wrong(
            "the raw logits picked, no log-softmax",
            &["log_softmax", "log-softmax", "softmax", "log-probability", "log-probabilities", "raw logits"],
            q6.check(|logits, targets, pad_id| {
                let picked = logits.gather(&targets.unsqueeze(D::Minus1)?, D::Minus1)?.squeeze(D::Minus1)?;
                let keep = targets.ne(pad_id)?.to_dtype(DType::F32)?;
                (picked * &keep)?.sum_all()?.neg()? / keep.sum_all()?
            }),
        ),
        // 05.q7 teacher_forcing_targets
        wrong(
            "the target returned before the input",
            &["swapped", "order", "the other way"],
            q7.check(|tgt| {
                let t = tgt.dim(1)?;
                Ok((tgt.i((.., 1..))?, tgt.i((.., ..t - 1))?))
            }),
        ),
        wrong(
            "the target not shifted: the same tokens as the input",
            &["shift", "shifted", "same", "identical"],
            q7.check(|tgt| {
                let t = tgt.dim(1)?;
                Ok((tgt.i((.., ..t - 1))?, tgt.i((.., ..t - 1))?))
            }),
        ),
        // 05.q8 encoder_block_forward
        wrong(
            "the attention's output not added to its input",
            &["residual", "added to its input", "skip"],
            q8.check(|block, x, mask| {
                let attended = block.attention.forward(x, x, x, mask)?.output;
                let ffn = block.ffn_out.forward(&block.ffn_in.forward(&attended)?.relu()?)?;
                attended + ffn
            }),
        ),
        wrong(
            "the key-padding mask not passed to the attention",
            &["mask"],
            q8.check(|block, x, _mask| {
                let x = (x + block.attention.forward(x, x, x, None)?.output)?;
                let ffn = block.ffn_out.forward(&block.ffn_in.forward(&x)?.relu()?)?;
                x + ffn
            }),
        ),
    ]
}
