//! The solutions of part 4 (notebooks/exercises/04_transformer.ipynb), as `q1.solution()` to
//! `q11.solution()` show them. Each compiles in a notebook cell as written, after
//! `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn masked_attention(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let d_k = q.dim(D::Minus1)?;
    let q_k_matmul = q.matmul(&k.transpose(D::Minus2, D::Minus1)?.contiguous()?)?;
    let mut matmul_scaled = (q_k_matmul / (d_k as f64).sqrt())?;
    if let Some(mask) = mask {
        matmul_scaled = matmul_scaled.broadcast_add(mask)?;
    }
    let attention_weights = softmax(&matmul_scaled)?;
    let output = attention_weights.matmul(v)?;
    Ok((output, attention_weights))
}

pub fn additive_mask(keep: &Tensor) -> Result<Tensor> {
    let zeros = Tensor::zeros(keep.shape(), DType::F32, keep.device())?;
    let minus_inf = Tensor::full(f32::NEG_INFINITY, keep.shape(), keep.device())?;
    keep.where_cond(&zeros, &minus_inf)
}

pub fn split_heads(x: &Tensor, n_heads: usize) -> Result<Tensor> {
    let (batch_size, seq_len, d_model) = x.dims3()?;
    let head_dim = d_model / n_heads;
    x.reshape((batch_size, seq_len, n_heads, head_dim))?.transpose(1, 2)?.contiguous()
}

pub fn merge_heads(x: &Tensor) -> Result<Tensor> {
    let (batch_size, n_heads, seq_len, head_dim) = x.dims4()?;
    x.transpose(1, 2)?.contiguous()?.reshape((batch_size, seq_len, n_heads * head_dim))
}

pub fn layer_norm(x: &Tensor, weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Tensor> {
    let mean = x.mean_keepdim(D::Minus1)?;
    let centered = x.broadcast_sub(&mean)?;
    let var = centered.sqr()?.mean_keepdim(D::Minus1)?; // biased: divided by D
    let normed = centered.broadcast_div(&(var + eps)?.sqrt()?)?;
    normed.broadcast_mul(weight)?.broadcast_add(bias)
}

pub struct MyAddNorm {
    pub layer_norm: LayerNorm,
    pub dropout: Dropout,
}

impl MyAddNorm {
    pub fn new(d_model: usize, p_drop: f64) -> Result<Self> {
        let layer_norm = LayerNorm::new(d_model)?;
        let dropout = Dropout::new(p_drop)?;
        Ok(MyAddNorm { layer_norm, dropout })
    }

    /// # Shapes
    /// - `x` (the sub-layer's output) and `res_input` (its input): `(N, L, D)`; returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor, res_input: &Tensor) -> Result<Tensor> {
        let ln = self.layer_norm.forward(&(res_input + x)?)?;
        self.dropout.forward(&ln)
    }
}

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

    /// # Shapes
    /// - `x`: `(N, L, D)`; returns `(N, L, D)`
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let hidden = self.linear1.forward(x)?.relu()?;
        self.linear2.forward(&self.dropout.forward(&hidden)?)
    }
}

pub fn greedy_translate(model: &Transformer, src: &Tensor, sos: u32, eos: u32, max_len: usize) -> Result<Vec<u32>> {
    let mut tokens = vec![sos];
    for _ in 0..max_len {
        let tgt = Tensor::new(tokens.as_slice(), src.device())?.unsqueeze(0)?; // (1, T)
        let logits = model.forward(src, &tgt, None, None)?; // (1, T, V)
        let last = logits.i((0, tokens.len() - 1))?; // the next token's logits (V,)
        let next = last.argmax(0)?.to_scalar::<u32>()?;
        if next == eos {
            break;
        }
        tokens.push(next);
    }
    Ok(tokens[1..].to_vec())
}

pub fn train_translator(corpus: &Corpus, src_vocab: &Vocab, tgt_vocab: &Vocab) -> Result<Transformer> {
    let cfg = TransformerConfig::small(src_vocab.len(), tgt_vocab.len());
    let train_ids = encode_pairs(&corpus.train, src_vocab, tgt_vocab, false);
    let train_loader = BucketIterator::new(train_ids, 32, Some(cfg.max_len), 0)?;
    manual_seed(0)?;
    let model = Transformer::from_config(&cfg)?;
    let adam = Adam::with_betas(model.parameters(), 1e-3, (0.9, 0.98), 1e-9)?;
    let mut sbs = StepByStep::with_loaders(model, CrossEntropyLoss::new().ignore_index(0), adam, train_loader, None);
    sbs.schedule = Some(NoamSchedule::new(cfg.d_model, 400, 0.32)?);
    sbs.threads = 2;
    sbs.train(5)?;
    Ok(sbs.model)
}

pub fn beam_step(scores: &Tensor, log_probs: &Tensor, beam_width: usize) -> Result<Vec<(f32, usize, u32)>> {
    let n_tokens = log_probs.dim(1)?;
    // every candidate's score, beam b's row plus its score: (k, V), then flat (k * V,)
    let totals = scores.unsqueeze(1)?.broadcast_add(log_probs)?.flatten_all()?;
    let order = totals.arg_sort_last_dim(false)?.to_vec1::<u32>()?; // best first
    let totals = totals.to_vec1::<f32>()?;
    let mut next = vec![];
    for &i in order.iter().take(beam_width) {
        let i = i as usize;
        next.push((totals[i], i / n_tokens, (i % n_tokens) as u32));
    }
    Ok(next)
}

pub fn encode_padded(layer: &EncoderLayer, x: &Tensor, src: &Tensor, pad_id: u32) -> Result<Tensor> {
    let mask = padding_mask(src, pad_id)?; // (N, 1, L): 0 for a word, -inf for the padding
    Ok(layer.forward(x, Some(&mask))?.output)
}
