//! Part 4's exercises, both ways.

use super::{correct, incorrect, mistake, not_attempted};
use attention_zoo::practice::solutions::transformer as s;
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;

#[test]
fn q1_masked_attention() {
    let _serial = crate::common::serial();
    correct(q1.check(s::masked_attention));
    not_attempted(q1.check(|_, _, _, _| todo!()));
    let attention = |q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: bool, dim: D| -> Result<(Tensor, Tensor)> {
        let mut scores = q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)?;
        if scale {
            scores = (scores / (q.dim(D::Minus1)? as f64).sqrt())?;
        }
        if let Some(m) = mask {
            scores = scores.broadcast_add(m)?;
        }
        let weights = candle_nn::ops::softmax(&scores, dim)?;
        Ok((weights.matmul(v)?, weights))
    };
    mistake(q1.check(|q, k, v, m| attention(q, k, v, m, false, D::Minus1)), "not scaled");
    mistake(q1.check(|q, k, v, m| attention(q, k, v, m, true, D::Minus2)), "over the queries");
    mistake(q1.check(|q, k, v, _| attention(q, k, v, None, true, D::Minus1)), "mask is not used");
    mistake(
        q1.check(|q, k, v, m| {
            let d_k = q.dim(D::Minus1)? as f64;
            let mut scores = (q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)? / d_k)?;
            if let Some(m) = m {
                scores = scores.broadcast_add(m)?;
            }
            let weights = softmax(&scores)?;
            Ok((weights.matmul(v)?, weights))
        }),
        "divided by d_k itself",
    );
    // the mask added with `+`, which does not broadcast: the padding mask (N, 1, L) is an error of theirs
    incorrect(
        q1.check(|q, k, v, m| {
            let mut scores = (q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)? / (q.dim(D::Minus1)? as f64).sqrt())?;
            if let Some(m) = m {
                scores = (scores + m)?;
            }
            let weights = softmax(&scores)?;
            Ok((weights.matmul(v)?, weights))
        }),
        "Your code returned an error",
    );
}

#[test]
fn q2_additive_mask() {
    let _serial = crate::common::serial();
    correct(q2.check(s::additive_mask));
    not_attempted(q2.check(|_| todo!()));
    let full = |keep: &Tensor, value: f32| Tensor::full(value, keep.shape(), keep.device());
    mistake(q2.check(|keep| keep.where_cond(&full(keep, f32::NEG_INFINITY)?, &full(keep, 0.0)?)), "inverted");
    mistake(q2.check(|keep| keep.eq(0u8)?.to_dtype(DType::F32)), "zeros and ones");
    mistake(q2.check(|keep| keep.to_dtype(DType::F32)), "keep mask as floats");
    mistake(q2.check(|keep| keep.where_cond(&full(keep, 0.0)?, &full(keep, -1e9)?)), "-1e9");
    // still u8
    incorrect(q2.check(|keep| Ok(keep.clone())), "dtype");
}

#[test]
fn q3_split_heads() {
    let _serial = crate::common::serial();
    correct(q3.check(s::split_heads));
    not_attempted(q3.check(|_, _| todo!()));
    mistake(
        q3.check(|x, h| {
            let (n, l, d) = x.dims3()?;
            x.reshape((n, h, l, d / h))
        }),
        "straight to (N, h, L, d_k)",
    );
    mistake(
        q3.check(|x, h| {
            let (n, l, d) = x.dims3()?;
            x.reshape((n, l, h, d / h))
        }),
        "still after the tokens",
    );
    mistake(
        q3.check(|x, h| {
            let (n, l, d) = x.dims3()?;
            x.reshape((n, l, h, d / h))?.permute((0, 2, 3, 1))?.contiguous()
        }),
        "keys' transposed layout",
    );
}

#[test]
fn q4_merge_heads() {
    let _serial = crate::common::serial();
    correct(q4.check(s::merge_heads));
    not_attempted(q4.check(|_| todo!()));
    mistake(
        q4.check(|x| {
            let (n, h, l, d) = x.dims4()?;
            x.reshape((n, l, h * d))
        }),
        "without the transpose",
    );
    mistake(
        q4.check(|x| {
            let (n, h, l, d) = x.dims4()?;
            x.permute((0, 2, 3, 1))?.contiguous()?.reshape((n, l, h * d))
        }),
        "interleaved",
    );
}

#[test]
fn q5_layer_norm() {
    let _serial = crate::common::serial();
    correct(q5.check(s::layer_norm));
    not_attempted(q5.check(|_, _, _, _| todo!()));
    let centered = |x: &Tensor, dim: usize| x.broadcast_sub(&x.mean_keepdim(dim)?);
    mistake(
        q5.check(|x, w, b, eps| {
            let d = x.dim(D::Minus1)?;
            let c = centered(x, x.rank() - 1)?;
            let var = (c.sqr()?.sum_keepdim(D::Minus1)? / (d - 1) as f64)?;
            c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
        }),
        "unbiased variance",
    );
    mistake(
        q5.check(|x, w, b, eps| {
            let c = centered(x, x.rank() - 1)?;
            let std = c.sqr()?.mean_keepdim(D::Minus1)?.sqrt()?;
            c.broadcast_div(&(std + eps)?)?.broadcast_mul(w)?.broadcast_add(b)
        }),
        "after the square root",
    );
    mistake(
        q5.check(|x, w, b, eps| {
            let c = centered(x, 1)?;
            let var = c.sqr()?.mean_keepdim(1)?;
            c.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(w)?.broadcast_add(b)
        }),
        "over the tokens",
    );
    mistake(
        q5.check(|x, _, _, eps| {
            let c = centered(x, x.rank() - 1)?;
            c.broadcast_div(&(c.sqr()?.mean_keepdim(D::Minus1)? + eps)?.sqrt()?)
        }),
        "weight and the bias are left out",
    );
}

#[test]
fn q6_add_norm() {
    let _serial = crate::common::serial();
    correct(q6.check(s::MyAddNorm::new, s::MyAddNorm::forward));
    not_attempted(q6.check(|_, _| -> Result<s::MyAddNorm> { todo!() }, s::MyAddNorm::forward));
    mistake(q6.check(s::MyAddNorm::new, |m, x, _res| m.dropout.forward(&m.layer_norm.forward(x)?)), "residual connection is missing");
    mistake(q6.check(s::MyAddNorm::new, |m, x, res| m.dropout.forward(&(res + m.layer_norm.forward(x)?)?)), "pre-norm");
    mistake(q6.check(s::MyAddNorm::new, |m, x, res| m.layer_norm.forward(&(res + m.dropout.forward(x)?)?)), "paper's order");
}

#[test]
fn q7_feedforward() {
    let _serial = crate::common::serial();
    correct(q7.check(s::MyFeedforward::new, s::MyFeedforward::forward));
    not_attempted(q7.check(|_, _, _| -> Result<s::MyFeedforward> { todo!() }, s::MyFeedforward::forward));
    mistake(q7.check(s::MyFeedforward::new, |m, x| m.linear2.forward(&m.dropout.forward(&m.linear1.forward(x)?)?)), "ReLU is missing");
    mistake(
        q7.check(s::MyFeedforward::new, |m, x| m.linear2.forward(&m.dropout.forward(&m.linear1.forward(x)?)?)?.relu()),
        "ReLU comes last",
    );
    mistake(
        q7.check(
            |d_model, d_ff, p_drop| {
                let linear2 = Linear::new(d_ff, d_model)?;
                let linear1 = Linear::new(d_model, d_ff)?;
                Ok(s::MyFeedforward { linear1, dropout: Dropout::new(p_drop)?, linear2 })
            },
            s::MyFeedforward::forward,
        ),
        "second linear layer was created first",
    );
}

/// How a student's greedy decoding slips.
#[derive(Clone, Copy, PartialEq)]
enum Slip {
    /// The logits of the first position rather than the last.
    FirstPosition,
    /// No stop at `<eos>`.
    NoStop,
    /// `<eos>` kept in the output.
    KeepEos,
}

/// Greedy decoding as a student might slip.
fn greedy_slip(model: &Transformer, src: &Tensor, (sos, eos): (u32, u32), max_len: usize, slip: Slip) -> Result<Vec<u32>> {
    let mut out = vec![];
    for _ in 0..max_len {
        let tgt = Tensor::new([sos].iter().chain(&out).copied().collect::<Vec<u32>>().as_slice(), src.device())?.unsqueeze(0)?;
        let logits = model.forward(src, &tgt, None, None)?.squeeze(0)?;
        let position = if slip == Slip::FirstPosition { 0 } else { out.len() };
        let next = logits.i(position)?.argmax(0)?.to_scalar::<u32>()?;
        if next == eos && slip != Slip::NoStop {
            if slip == Slip::KeepEos {
                out.push(next);
            }
            break;
        }
        out.push(next);
    }
    Ok(out)
}

#[test]
fn q8_greedy_translate() {
    let _serial = crate::common::serial();
    correct(q8.check(s::greedy_translate));
    not_attempted(q8.check(|_, _, _, _, _| todo!()));
    mistake(q8.check(|m, src, sos, eos, n| greedy_slip(m, src, (sos, eos), n, Slip::FirstPosition)), "first position");
    mistake(q8.check(|m, src, sos, eos, n| greedy_slip(m, src, (sos, eos), n, Slip::NoStop)), "goes on after <eos>");
    mistake(q8.check(|m, src, sos, eos, n| greedy_slip(m, src, (sos, eos), n, Slip::KeepEos)), "<eos> is in the translation");
    mistake(
        q8.check(|m, src, sos, eos, n| Ok([sos].into_iter().chain(s::greedy_translate(m, src, sos, eos, n)?).collect())),
        "<sos> is in the translation",
    );
}

#[test]
fn q9_train_translator() {
    let _serial = crate::common::serial();
    not_attempted(q9.check(|_, _, _| todo!()));
    // an untrained model of the right sizes: a BLEU near 0, named, with the sentence for it
    let untrained = q9.check(|_, src_vocab, tgt_vocab| {
        let cfg = TransformerConfig {
            d_model: 8,
            n_heads: 2,
            d_ff: 8,
            n_layers: 1,
            dropout: 0.0,
            max_len: 64,
            ..TransformerConfig::new(src_vocab.len(), tgt_vocab.len())
        };
        manual_seed(0)?;
        Transformer::from_config(&cfg)
    });
    mistake(untrained.clone(), "untrained");
    assert!(untrained.detail.as_deref().is_some_and(|d| d.contains("Test BLEU") && d.contains("at least 90")), "{untrained}");
    // the test split is held out
    let held_out = q9.check(|corpus, _, _| {
        assert!(corpus.test.is_empty() && !corpus.train.is_empty());
        Err(candle_core::Error::Msg("stop here".into()))
    });
    incorrect(held_out, "stop here");
    // a model whose vocabulary does not fit the vocabularies given
    incorrect(
        q9.check(|_, _, _| {
            Transformer::from_config(&TransformerConfig { d_model: 8, n_heads: 2, d_ff: 8, n_layers: 1, ..TransformerConfig::new(5, 5) })
        }),
        "could not translate",
    );
}

// q9's solution trains notebook 04's translator in full (five epochs): it runs once, under the
// real kernel, in `make notebooks`' solution run of notebooks/exercises/04_transformer.ipynb, which
// fails unless its check says Correct. (In this unoptimised build it takes about five minutes.)
