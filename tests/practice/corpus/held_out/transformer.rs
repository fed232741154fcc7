//! Held-out wrong answers to part 4 (04_transformer.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::transformer::*;
use attention_zoo::prelude::*;

mod dropout_first {
    use attention_zoo::prelude::*;

    pub struct MyAddNorm {
        pub layer_norm: LayerNorm,
        pub dropout: Dropout,
    }

    impl MyAddNorm {
        pub fn new(d_model: usize, p_drop: f64) -> Result<Self> {
            Ok(MyAddNorm { layer_norm: LayerNorm::new(d_model)?, dropout: Dropout::new(p_drop)? })
        }

        pub fn forward(&self, x: &Tensor, res_input: &Tensor) -> Result<Tensor> {
            // the dropout on the sub-layer's output, before the residual and the norm
            self.layer_norm.forward(&(res_input + self.dropout.forward(x)?)?)
        }
    }
}

mod no_residual {
    use attention_zoo::prelude::*;

    pub struct MyAddNorm {
        pub layer_norm: LayerNorm,
        pub dropout: Dropout,
    }

    impl MyAddNorm {
        pub fn new(d_model: usize, p_drop: f64) -> Result<Self> {
            Ok(MyAddNorm { layer_norm: LayerNorm::new(d_model)?, dropout: Dropout::new(p_drop)? })
        }

        pub fn forward(&self, x: &Tensor, _res_input: &Tensor) -> Result<Tensor> {
            self.dropout.forward(&self.layer_norm.forward(x)?)
        }
    }
}

mod second_first {
    use attention_zoo::prelude::*;

    pub struct MyFeedforward {
        pub linear1: Linear,
        pub dropout: Dropout,
        pub linear2: Linear,
    }

    impl MyFeedforward {
        pub fn new(d_model: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
            // the way back made first
            let linear2 = Linear::new(d_ff, d_model)?;
            let linear1 = Linear::new(d_model, d_ff)?;
            Ok(MyFeedforward { linear1, dropout: Dropout::new(p_drop)?, linear2 })
        }

        pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
            self.linear2.forward(&self.dropout.forward(&self.linear1.forward(x)?.relu()?)?)
        }
    }
}

mod no_relu {
    use attention_zoo::prelude::*;

    pub struct MyFeedforward {
        pub linear1: Linear,
        pub dropout: Dropout,
        pub linear2: Linear,
    }

    impl MyFeedforward {
        pub fn new(d_model: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
            let linear1 = Linear::new(d_model, d_ff)?;
            let dropout = Dropout::new(p_drop)?;
            let linear2 = Linear::new(d_ff, d_model)?;
            Ok(MyFeedforward { linear1, dropout, linear2 })
        }

        pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
            self.linear2.forward(&self.dropout.forward(&self.linear1.forward(x)?)?)
        }
    }
}

fn greedy(model: &Transformer, src: &Tensor, sos: u32, eos: u32, max_len: usize, at_first: bool, keep_sos: bool) -> Result<Vec<u32>> {
    let mut tokens = vec![sos];
    for _ in 0..max_len {
        let tgt = Tensor::new(tokens.as_slice(), src.device())?.unsqueeze(0)?;
        let logits = model.forward(src, &tgt, None, None)?;
        let position = if at_first { 0 } else { tokens.len() - 1 };
        let next = logits.i((0, position))?.argmax(0)?.to_scalar::<u32>()?;
        if next == eos {
            break;
        }
        tokens.push(next);
    }
    Ok(if keep_sos { tokens } else { tokens[1..].to_vec() })
}

fn beams(scores: &Tensor, log_probs: &Tensor, beam_width: usize, with_scores: bool, ascending: bool) -> Result<Vec<(f32, usize, u32)>> {
    let n_tokens = log_probs.dim(1)?;
    let totals = if with_scores { scores.unsqueeze(1)?.broadcast_add(log_probs)? } else { log_probs.clone() }.flatten_all()?;
    let order = totals.arg_sort_last_dim(ascending)?.to_vec1::<u32>()?;
    let totals = totals.to_vec1::<f32>()?;
    Ok(order.iter().take(beam_width).map(|&i| (totals[i as usize], i as usize / n_tokens, i % n_tokens as u32)).collect())
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 04.q1 masked_attention
        wrong(
            "the keys transposed in dimensions 1 and 2, wrong for a four-dimensional batch",
            &["4-d", "four-dimensional", "last two", "transpose(1, 2)", "dimensions 1 and 2"],
            q1.check(|q, k, v, mask| {
                let d_k = q.dim(D::Minus1)? as f64;
                let mut scores = (q.matmul(&k.transpose(1, 2)?.contiguous()?)? / d_k.sqrt())?;
                if let Some(mask) = mask {
                    scores = scores.broadcast_add(mask)?;
                }
                let weights = softmax(&scores)?;
                Ok((weights.matmul(v)?, weights))
            }),
        ),
        wrong(
            "the mask added after the softmax",
            &["after the softmax", "before the softmax", "after"],
            q1.check(|q, k, v, mask| {
                let d_k = q.dim(D::Minus1)? as f64;
                let mut weights = softmax(&(q.matmul(&k.t()?.contiguous()?)? / d_k.sqrt())?)?;
                if let Some(mask) = mask {
                    weights = weights.broadcast_add(mask)?;
                }
                Ok((weights.matmul(v)?, weights))
            }),
        ),
        // 04.q2 additive_mask
        wrong(
            "minus infinity where keep is 1, 0 where it is 0",
            &["inverted", "reversed", "the other way", "swapped"],
            q2.check(|keep| {
                let zeros = Tensor::zeros(keep.shape(), DType::F32, keep.device())?;
                let minus_inf = Tensor::full(f32::NEG_INFINITY, keep.shape(), keep.device())?;
                keep.where_cond(&minus_inf, &zeros)
            }),
        ),
        wrong(
            "-1e9 instead of minus infinity",
            &["-1e9", "infinity", "neg_infinity", "finite"],
            q2.check(|keep| {
                let zeros = Tensor::zeros(keep.shape(), DType::F32, keep.device())?;
                let big = Tensor::full(-1e9f32, keep.shape(), keep.device())?;
                keep.where_cond(&zeros, &big)
            }),
        ),
        // 04.q3 split_heads
        wrong(
            "reshaped straight to (N, h, L, d_k), no permute",
            &["reshape", "permute", "transpose", "view"],
            q3.check(|x, n_heads| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, n_heads, l, d / n_heads))
            }),
        ),
        wrong(
            "the features dealt out to the heads one by one, (N, L, d_k, h)",
            &["interleave", "strided", "every h", "slice", "contiguous features", "consecutive"],
            q3.check(|x, n_heads| {
                let (n, l, d) = x.dims3()?;
                x.reshape((n, l, d / n_heads, n_heads))?.permute((0, 3, 1, 2))?.contiguous()
            }),
        ),
        // 04.q4 merge_heads
        wrong(
            "reshaped straight back to (N, L, h * d_k), no transpose",
            &["transpose", "permute", "reshape"],
            q4.check(|x| {
                let (n, h, l, d_k) = x.dims4()?;
                x.reshape((n, l, h * d_k))
            }),
        ),
        wrong(
            "permuted to (N, L, d_k, h): the heads interleaved",
            &["head 0's features first", "interleave", "order", "permute"],
            q4.check(|x| {
                let (n, h, l, d_k) = x.dims4()?;
                x.permute((0, 2, 3, 1))?.contiguous()?.reshape((n, l, h * d_k))
            }),
        ),
        // 04.q5 layer_norm
        wrong(
            "the unbiased variance, divided by D - 1",
            &["unbiased", "d - 1", "d-1", "biased", "bessel"],
            q5.check(|x, weight, bias, eps| {
                let d = x.dim(D::Minus1)? as f64;
                let centered = x.broadcast_sub(&x.mean_keepdim(D::Minus1)?)?;
                let var = (centered.sqr()?.sum_keepdim(D::Minus1)? / (d - 1.0))?;
                centered.broadcast_div(&(var + eps)?.sqrt()?)?.broadcast_mul(weight)?.broadcast_add(bias)
            }),
        ),
        wrong(
            "eps added after the square root",
            &["eps", "inside the square root", "outside", "after the square root"],
            q5.check(|x, weight, bias, eps| {
                let centered = x.broadcast_sub(&x.mean_keepdim(D::Minus1)?)?;
                let var = centered.sqr()?.mean_keepdim(D::Minus1)?;
                centered.broadcast_div(&(var.sqrt()? + eps)?)?.broadcast_mul(weight)?.broadcast_add(bias)
            }),
        ),
        // 04.q6 MyAddNorm
        wrong(
            "the dropout on the sub-layer's output, before the residual and the norm",
            &["dropout before", "dropout on the sub-layer", "where the dropout goes", "order", "dropout first"],
            q6.check(dropout_first::MyAddNorm::new, dropout_first::MyAddNorm::forward),
        ),
        wrong(
            "no residual: the sub-layer's output normalised alone",
            &["residual", "res_input"],
            q6.check(no_residual::MyAddNorm::new, no_residual::MyAddNorm::forward),
        ),
        // 04.q7 MyFeedforward
        wrong(
            "the second linear layer created first",
            &["order", "created", "seed", "linear2 first", "draw"],
            q7.check(second_first::MyFeedforward::new, second_first::MyFeedforward::forward),
        ),
        wrong(
            "no ReLU between the layers",
            &["relu", "activation"],
            q7.check(no_relu::MyFeedforward::new, no_relu::MyFeedforward::forward),
        ),
        // 04.q8 greedy_translate
        wrong(
            "the sos token left at the front of the result",
            &["sos", "<sos>", "first token", "start token"],
            q8.check(|model, src, sos, eos, max_len| greedy(model, src, sos, eos, max_len, false, true)),
        ),
        wrong(
            "the next token read at the first position every time",
            &["last position", "first position", "position 0", "last"],
            q8.check(|model, src, sos, eos, max_len| greedy(model, src, sos, eos, max_len, true, false)),
        ),
        // 04.q9 train_translator: the cheap one
        wrong(
            "the model returned untrained",
            &["untrained", "not trained", "no training", "zero epochs", "0 epochs", "never trained"],
            q9.check(|_corpus, src_vocab, tgt_vocab| {
                manual_seed(0)?;
                Transformer::from_config(&TransformerConfig::small(src_vocab.len(), tgt_vocab.len()))
            }),
        ),
        // 04.q10 beam_step
        wrong(
            "the beams' scores ignored: the log-probabilities ranked alone",
            &["beam's score", "beams' scores", "scores[b]", "ignor", "without the score"],
            q10.check(|scores, log_probs, beam_width| beams(scores, log_probs, beam_width, false, false)),
        ),
        wrong(
            "ranked in ascending order, the worst first",
            &["ascending", "lowest", "worst", "highest score first", "reverse"],
            q10.check(|scores, log_probs, beam_width| beams(scores, log_probs, beam_width, true, true)),
        ),
        // 04.q11 encode_padded
        wrong(
            "the padding id hard-coded to 0",
            &["pad_id", "hard-coded", "padding id", "id 0", "zero id"],
            q11.check(|layer, x, src, _pad_id| Ok(layer.forward(x, Some(&padding_mask(src, 0)?))?.output)),
        ),
        wrong(
            "the keep mask (1 for a word, 0 for padding) added as it is",
            &["additive", "minus infinity", "-inf", "infinity", "0 and 1", "keep mask"],
            q11.check(|layer, x, src, pad_id| {
                let keep = src.ne(pad_id)?.to_dtype(DType::F32)?.unsqueeze(1)?;
                Ok(layer.forward(x, Some(&keep))?.output)
            }),
        ),
    ]
}
