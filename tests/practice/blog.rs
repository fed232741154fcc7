//! Part 5's exercises, both ways.

use super::{correct, mistake, not_attempted};
use attention_zoo::practice::blog::*;
use attention_zoo::practice::solutions::blog as s;
use attention_zoo::prelude::*;

#[test]
fn q1_attention_layer_forward() {
    let _serial = crate::common::serial();
    correct(q1.check(s::attention_layer_forward));
    not_attempted(q1.check(|_, _, _, _| todo!()));
    mistake(
        q1.check(|layer, q, k, v| {
            let (q, k) = (layer.query.forward(q)?, layer.key.forward(k)?);
            let d = q.dim(D::Minus1)? as f64;
            let scores = (q.matmul(&k.transpose(1, 2)?)? / d.sqrt())?;
            softmax(&scores)?.matmul(&layer.value.forward(v)?)
        }),
        "raw dot products",
    );
    mistake(
        q1.check(|layer, q, k, v| {
            let scores = layer.query.forward(q)?.matmul(&layer.key.forward(k)?.t()?)?;
            candle_nn::ops::softmax(&scores, 1)?.matmul(&layer.value.forward(v)?)
        }),
        "over the queries",
    );
    mistake(
        q1.check(|layer, q, k, v| {
            let scores = layer.query.forward(q)?.matmul(&layer.key.forward(k)?.t()?)?;
            softmax(&scores)?.matmul(v)
        }),
        "raw values",
    );
}

#[test]
fn q2_lstm_cell_step() {
    let _serial = crate::common::serial();
    correct(q2.check(s::lstm_cell_step));
    not_attempted(q2.check(|_, _, _, _, _, _, _| todo!()));
    let sig = |t: &Tensor| candle_nn::ops::sigmoid(t);
    // the gates in the order i, f, o, g
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
            let gates = ((x.matmul(&w_ih.t()?)? + h.matmul(&w_hh.t()?)?)?.broadcast_add(&(b_ih + b_hh)?))?;
            let hd = h.dim(1)?;
            let i = sig(&gates.narrow(1, 0, hd)?)?;
            let f = sig(&gates.narrow(1, hd, hd)?)?;
            let o = sig(&gates.narrow(1, 2 * hd, hd)?)?;
            let g = gates.narrow(1, 3 * hd, hd)?.tanh()?;
            let c2 = ((f * c)? + (i * g)?)?;
            Ok(((o * c2.tanh()?)?, c2))
        }),
        "order i, f, o, g",
    );
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
            let gates = (x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)? + h.matmul(&w_hh.t()?)?.broadcast_add(b_hh)?)?.chunk(4, 1)?;
            let c2 = ((sig(&gates[1])? * c)? + (sig(&gates[0])? * gates[2].tanh()?)?)?;
            let h2 = (sig(&gates[3])? * &c2)?;
            Ok((h2, c2))
        }),
        "the tanh is missing",
    );
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
            let gates = (x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)? + h.matmul(&w_hh.t()?)?.broadcast_add(b_hh)?)?;
            let all = sig(&gates)?.chunk(4, 1)?;
            let c2 = ((&all[1] * c)? + (&all[0] * &all[2])?)?;
            Ok(((&all[3] * c2.tanh()?)?, c2))
        }),
        "not sigmoid",
    );
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
            let (h2, c2) = s::lstm_cell_step(x, h, c, w_ih, w_hh, b_ih, b_hh)?;
            Ok((c2, h2))
        }),
        "returned as (c', h')",
    );
    // TensorFlow's order, i, g, f, o
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
            let g = (x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)? + h.matmul(&w_hh.t()?)?.broadcast_add(b_hh)?)?.chunk(4, 1)?;
            let c2 = ((sig(&g[2])? * c)? + (sig(&g[0])? * g[1].tanh()?)?)?;
            Ok(((sig(&g[3])? * c2.tanh()?)?, c2))
        }),
        "(TensorFlow's)",
    );
    // b_hh left out
    mistake(
        q2.check(|x, h, c, w_ih, w_hh, b_ih, _| {
            let g = (x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)? + h.matmul(&w_hh.t()?)?)?.chunk(4, 1)?;
            let c2 = ((sig(&g[1])? * c)? + (sig(&g[0])? * g[2].tanh()?)?)?;
            Ok(((sig(&g[3])? * c2.tanh()?)?, c2))
        }),
        "Only one bias",
    );
}

/// The vectorised attention with the heads split by `split` and merged by `merge`, scaled by `scale(d_k)`.
fn my_mha(
    mha: &VectorisedMultiHeadAttention,
    (q, k, v): (&Tensor, &Tensor, &Tensor),
    split: impl Fn(&Tensor, usize, usize) -> Result<Tensor>,
    merge: impl Fn(&Tensor, usize) -> Result<Tensor>,
    scale: f64,
) -> Result<Tensor> {
    let qh = split(&mha.query.forward(q)?, mha.n_heads, mha.d_k)?;
    let kh = split(&mha.key.forward(k)?, mha.n_heads, mha.d_k)?;
    let vh = split(&mha.value.forward(v)?, mha.n_heads, mha.d_k)?;
    let weights = candle_nn::ops::softmax_last_dim(&(qh.matmul(&kh.transpose(2, 3)?.contiguous()?)? / scale)?)?;
    mha.output.forward(&merge(&weights.matmul(&vh)?, mha.d_model)?)
}

#[test]
fn q3_vectorised_attention() {
    let _serial = crate::common::serial();
    correct(q3.check(s::vectorised_attention));
    not_attempted(q3.check(|_, _, _, _| todo!()));
    let split = |x: &Tensor, h: usize, d_k: usize| {
        let (n, l, _) = x.dims3()?;
        x.reshape((n, l, h, d_k))?.permute((0, 2, 1, 3))?.contiguous()
    };
    let merge = |x: &Tensor, d: usize| {
        let (n, _, l, _) = x.dims4()?;
        x.permute((0, 2, 1, 3))?.contiguous()?.reshape((n, l, d))
    };
    let view_only = |x: &Tensor, h: usize, d_k: usize| {
        let (n, l, _) = x.dims3()?;
        x.reshape((n, h, l, d_k))
    };
    let merge_view_only = |x: &Tensor, d: usize| {
        let (n, _, l, _) = x.dims4()?;
        x.reshape((n, l, d))
    };
    mistake(q3.check(|m, q, k, v| my_mha(m, (q, k, v), view_only, merge, (m.d_k as f64).sqrt())), "split by a reshape");
    mistake(q3.check(|m, q, k, v| my_mha(m, (q, k, v), split, merge_view_only, (m.d_k as f64).sqrt())), "merged by a reshape");
    mistake(q3.check(|m, q, k, v| my_mha(m, (q, k, v), split, merge, 1.0)), "not scaled");
    mistake(q3.check(|m, q, k, v| my_mha(m, (q, k, v), split, merge, (m.d_model as f64).sqrt())), "sqrt(d_model)");
    // the heads merged, but never through mha.output
    mistake(
        q3.check(|m, q, k, v| {
            let qh = split(&m.query.forward(q)?, m.n_heads, m.d_k)?;
            let kh = split(&m.key.forward(k)?, m.n_heads, m.d_k)?;
            let weights = softmax(&(qh.matmul(&kh.t()?)? / (m.d_k as f64).sqrt())?)?;
            merge(&weights.matmul(&split(&m.value.forward(v)?, m.n_heads, m.d_k)?)?, m.d_model)
        }),
        "output projection is missing",
    );
}

#[test]
fn q4_bidirectional_outputs() {
    let _serial = crate::common::serial();
    correct(q4.check(s::bidirectional_outputs));
    not_attempted(q4.check(|_, _, _| todo!()));
    mistake(
        q4.check(|fwd, bwd, x| {
            let (f_out, _) = fwd.forward(x, None)?;
            let (b_out, _) = bwd.forward(&reverse_time(x)?, None)?;
            Tensor::cat(&[f_out, b_out], 2)
        }),
        "still back to front",
    );
    mistake(
        q4.check(|fwd, bwd, x| {
            let f_out = fwd.forward(x, None)?.0;
            let b_out = bwd.forward(x, None)?.0;
            Tensor::cat(&[&f_out, &b_out], D::Minus1)
        }),
        "read the sequence front to back",
    );
    mistake(
        q4.check(|fwd, bwd, x| {
            let f_out = fwd.forward(x, None)?.0;
            let b_out = reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?;
            Tensor::cat(&[f_out, b_out], 1)
        }),
        "joined on the steps",
    );
    mistake(
        q4.check(|fwd, bwd, x| {
            let f_out = fwd.forward(x, None)?.0;
            let b_out = reverse_time(&bwd.forward(&reverse_time(x)?, None)?.0)?;
            Tensor::cat(&[b_out, f_out], 2)
        }),
        "wrong order",
    );
    mistake(
        q4.check(|fwd, bwd, x| Tensor::cat(&[fwd.forward(x, None)?.0, reverse_time(&bwd.forward(x, None)?.0)?], 2)),
        "flipped but not its input",
    );
}

#[test]
fn q5_key_padding_mask() {
    let _serial = crate::common::serial();
    correct(q5.check(s::key_padding_mask));
    not_attempted(q5.check(|_, _| todo!()));
    mistake(q5.check(|ids, pad| ids.ne(pad)), "inverted");
    // the layout of the crate's additive padding mask
    mistake(q5.check(|ids, pad| ids.eq(pad)?.unsqueeze(1)), "(N, 1, L)");
    mistake(q5.check(|ids, pad| ids.eq(pad)?.transpose(0, 1)), "sequence-first");
    mistake(q5.check(|ids, _| ids.eq(PAD_ID)), "not always 0");
    mistake(q5.check(|ids, pad| ids.eq(pad)?.to_dtype(DType::F32)), "The mask is float32");
}

#[test]
fn q6_masked_cross_entropy() {
    let _serial = crate::common::serial();
    correct(q6.check(s::masked_cross_entropy));
    not_attempted(q6.check(|_, _, _| todo!()));
    let losses = |logits: &Tensor, targets: &Tensor| -> Result<Tensor> {
        let log_probs = candle_nn::ops::log_softmax(logits, D::Minus1)?;
        log_probs.gather(&targets.unsqueeze(2)?, 2)?.squeeze(2)?.neg()
    };
    mistake(q6.check(|logits, targets, _| losses(logits, targets)?.mean_all()), "padding is counted");
    mistake(q6.check(|logits, targets, _| CrossEntropyLoss::new().forward(logits, targets)), "padding is counted");
    mistake(
        q6.check(|logits, targets, pad| {
            let keep = targets.ne(pad)?.to_dtype(DType::F32)?;
            (losses(logits, targets)? * keep)?.mean_all()
        }),
        "divides by every position",
    );
    mistake(
        q6.check(|logits, targets, pad| {
            CrossEntropyLoss::new().ignore_index(pad as i64).reduction(Reduction::Sum).forward(logits, targets)
        }),
        "sum of the words",
    );
    mistake(
        q6.check(|logits, targets, _| CrossEntropyLoss::new().ignore_index(0).forward(logits, targets)),
        "those whose target is pad_id",
    );
    mistake(
        q6.check(|logits, targets, pad| {
            let picked = candle_nn::ops::log_softmax(logits, 1)?.gather(&targets.unsqueeze(2)?, 2)?.squeeze(2)?;
            let keep = targets.ne(pad)?.to_dtype(DType::F32)?;
            (picked * &keep)?.sum_all()?.neg()?.broadcast_div(&keep.sum_all()?)
        }),
        "log-softmax runs over the positions",
    );
    mistake(
        q6.check(|logits, targets, pad| {
            let keep = targets.ne(pad)?.to_dtype(DType::F32)?;
            let each = CrossEntropyLoss::new().reduction(Reduction::None).forward(logits, targets)?;
            (each * &keep)?.sum(1)?.div(&keep.sum(1)?)?.mean_all()
        }),
        "mean of each sentence's mean",
    );
}

#[test]
fn q7_teacher_forcing_targets() {
    let _serial = crate::common::serial();
    correct(q7.check(s::teacher_forcing_targets));
    not_attempted(q7.check(|_| todo!()));
    mistake(q7.check(|tgt| Ok((tgt.clone(), tgt.clone()))), "not shifted");
    mistake(
        q7.check(|tgt| {
            let t = tgt.dim(1)?;
            Ok((tgt.narrow(1, 1, t - 1)?, tgt.narrow(1, 0, t - 1)?))
        }),
        "swapped",
    );
    mistake(
        q7.check(|tgt| {
            let t = tgt.dim(1)?;
            Ok((tgt.i((.., 1..))?, tgt.i((.., 1..t))?))
        }),
        "lost <sos>",
    );
    mistake(
        q7.check(|tgt| {
            let t = tgt.dim(1)?;
            let input = tgt.i((.., ..t - 1))?;
            Ok((input.clone(), input))
        }),
        "still starts with <sos>",
    );
    mistake(
        q7.check(|tgt| {
            let pad = Tensor::zeros((tgt.dim(0)?, 1), DType::U32, tgt.device())?;
            Ok((tgt.clone(), Tensor::cat(&[&tgt.i((.., 1..))?, &pad], 1)?))
        }),
        "keep all T steps",
    );
}

#[test]
fn q8_encoder_block_forward() {
    let _serial = crate::common::serial();
    correct(q8.check(s::encoder_block_forward));
    not_attempted(q8.check(|_, _, _| todo!()));
    let ffn = |b: &TransformerEncoderBlock, x: &Tensor| b.ffn_out.forward(&b.ffn_in.forward(x)?.relu()?);
    mistake(
        q8.check(|b, x, _mask| {
            let attended = b.attention.forward(x, x, x, None)?.output;
            let x = (x + attended)?;
            &x + ffn(b, &x)?
        }),
        "never reached the attention",
    );
    mistake(
        q8.check(|b, x, mask| {
            let x = b.attention.forward(x, x, x, mask)?.output;
            &x + ffn(b, &x)?
        }),
        "replaced x",
    );
    mistake(
        q8.check(|b, x, mask| {
            let x = (x + b.attention.forward(x, x, x, mask)?.output)?;
            &x + b.ffn_out.forward(&b.ffn_in.forward(&x)?)?
        }),
        "no ReLU",
    );
    mistake(
        q8.check(|b, x, mask| {
            let h = (x + b.attention.forward(x, x, x, mask)?.output)?;
            x + ffn(b, &h)?
        }),
        "adds the feed-forward output to the block's input",
    );
    mistake(q8.check(|b, x, mask| ffn(b, &(x + b.attention.forward(x, x, x, mask)?.output)?)), "output replaced the sum");
    mistake(q8.check(|b, x, mask| (x + b.attention.forward(x, x, x, mask)?.output)? + ffn(b, x)?), "reads the block's input x");
}
