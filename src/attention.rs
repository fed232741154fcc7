//! Attention: the step-by-step pieces of the lecture as small pure functions, the `Attention`
//! module with every scoring function of the slides, masks, multi-head attention, and the
//! attention decoder.
//!
//! Shapes: `N` sequences, `L` source steps (keys and values), `Lq` queries, `H` (or `d_k`)
//! hidden units.

use crate::nn::{Gru, Linear, Module, NamedParams, prefixed};
use crate::seq2seq::{StepDecoder, check_batch, final_state_seq_first, gru_step};
use candle_core::{D, DType, Device, Result, Tensor, bail};

/// The value masked positions get before the softmax, as in the lecture.
pub const MASK_FILL: f64 = -1e9;

/// Softmax over the last dimension, with a backward pass.
pub fn softmax(x: &Tensor) -> Result<Tensor> {
    crate::kernels::softmax_last_dim(x)
}

/// Equal weights for every key: `(N, L, H) -> (N, 1, L)`, each `1/L` (the lecture's first,
/// naive `calc_alphas`).
pub fn uniform_alphas(keys: &Tensor) -> Result<Tensor> {
    let (n, l, _) = keys.dims3()?;
    Tensor::ones((n, 1, l), DType::F32, keys.device())? / l as f64
}

fn check_qk(module: &str, query: &Tensor, keys: &Tensor) -> Result<()> {
    let (q, k) = (query.dims(), keys.dims());
    if q.len() < 2 || q.len() != k.len() || q[..q.len() - 2] != k[..k.len() - 2] || q[q.len() - 1] != k[k.len() - 1] {
        bail!("{module}: expected query (..., Lq, D) and keys (..., L, D) with the same batch dims and D, got {q:?} and {k:?}")
    }
    Ok(())
}

/// Dot products of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
pub fn dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk("dot_products", query, keys)?;
    let rank = keys.rank();
    query.contiguous()?.matmul(&keys.transpose(rank - 2, rank - 1)?.contiguous()?)
}

/// Scaled dot products, divided by `sqrt(D)`.
pub fn scaled_dot_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    let d = query.dims()[query.rank().saturating_sub(1)];
    dot_products(query, keys)? / (d as f64).sqrt()
}

/// Cosine similarity of each query with each key: `(..., Lq, D)`, `(..., L, D)` -> `(..., Lq, L)`.
pub fn cosine_products(query: &Tensor, keys: &Tensor) -> Result<Tensor> {
    check_qk("cosine_products", query, keys)?;
    let qn = query.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., Lq, 1)
    let kn = keys.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?; // (..., L, 1)
    let rank = keys.rank();
    let norms = qn.matmul(&kn.transpose(rank - 2, rank - 1)?.contiguous()?)?;
    dot_products(query, keys)?.div(&norms.maximum(1e-8)?)
}

/// Sets the scores to [`MASK_FILL`] where `mask` is 0. The mask (u8, or anything non-zero for
/// "keep") must broadcast to the scores, e.g. `(N, 1, L)` against `(N, Lq, L)`.
pub fn masked_fill(scores: &Tensor, mask: &Tensor, value: f64) -> Result<Tensor> {
    let mask = mask.ne(0u8).or_else(|_| mask.ne(0f32))?;
    let mask = mask.broadcast_as(scores.shape()).map_err(|_| {
        candle_core::Error::Msg(format!("masked_fill: mask {:?} does not broadcast to scores {:?}", mask.dims(), scores.dims()))
    })?;
    let fill = Tensor::full(value as f32, scores.shape(), scores.device())?.to_dtype(scores.dtype())?;
    mask.where_cond(scores, &fill)
}

/// Attention scores from scaled dot products (the lecture's final `calc_alphas`):
/// `keys (N, L, H)`, `query (N, 1, H)` -> `(N, 1, L)`.
pub fn calc_alphas(keys: &Tensor, query: &Tensor) -> Result<Tensor> {
    softmax(&scaled_dot_products(query, keys)?)
}

/// The context vectors: `alphas (..., Lq, L)` times `values (..., L, H)` -> `(..., Lq, H)`.
pub fn context_vector(alphas: &Tensor, values: &Tensor) -> Result<Tensor> {
    alphas.contiguous()?.matmul(&values.contiguous()?)
}

/// Scaled dot-product attention for any batch shape: `(..., Lq, D)`, `(..., L, D)`,
/// `(..., L, Dv)` and an optional mask broadcasting to `(..., Lq, L)` -> (context
/// `(..., Lq, Dv)`, alphas `(..., Lq, L)`).
pub fn scaled_dot_product_attention(query: &Tensor, keys: &Tensor, values: &Tensor, mask: Option<&Tensor>) -> Result<(Tensor, Tensor)> {
    let mut scores = scaled_dot_products(query, keys)?;
    if let Some(m) = mask {
        scores = masked_fill(&scores, m, MASK_FILL)?;
    }
    let alphas = softmax(&scores)?;
    Ok((context_vector(&alphas, values)?, alphas))
}

/// The source mask of the lecture: 1 where a point has any non-zero feature, 0 for padding.
/// `(N, L, F) -> (N, 1, L)`, u8.
pub fn source_mask(source_seq: &Tensor) -> Result<Tensor> {
    let (n, l, _) = source_seq.dims3().map_err(|_| {
        candle_core::Error::Msg(format!("source_mask: expected a source sequence (N, L, F), got {:?}", source_seq.dims()))
    })?;
    // A point is padding when all its features are zero.
    let nonzero = source_seq.ne(0f32)?.to_dtype(DType::F32)?.sum(D::Minus1)?;
    nonzero.gt(0f32)?.to_dtype(DType::U8)?.reshape((n, 1, l))
}

/// The scoring functions of the slides. Each turns a projected query and the projected keys
/// into alignment scores `(N, Lq, L)`; the softmax makes them alphas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// `q·k / sqrt(d_k)` (Vaswani 2017), the default.
    ScaledDot,
    /// `q·k` (Luong 2015).
    Dot,
    /// `qᵀ W k`, a trainable `W` (Luong 2015, "general").
    General,
    /// `vᵀ tanh(W [q; k])` (Bahdanau 2015, "additive").
    Additive,
    /// `cos(q, k)` (Graves 2014, "content-based").
    Cosine,
    /// `W q`, one score per source position whatever the keys (Luong 2015, "location-based");
    /// needs the source length.
    Location { source_len: usize },
}

/// The lecture's `Attention(hidden_dim, input_dim, proj_values)`: affine maps of the query, the
/// keys and (optionally) the values, a scoring function, softmax, and the context vector.
#[derive(Clone, Debug)]
pub struct Attention {
    pub d_k: usize,
    pub input_dim: usize,
    pub proj_values: bool,
    pub score: Score,
    pub linear_query: Linear,
    pub linear_key: Linear,
    pub linear_value: Linear,
    /// `W` of the general and additive scores, `W_a` of the location-based one.
    pub linear_score: Option<Linear>,
    /// `v` of the additive score.
    pub linear_v: Option<Linear>,
    pub keys: Option<Tensor>,
    pub proj_keys: Option<Tensor>,
    pub values: Option<Tensor>,
    /// The alphas of the last call, `(N, Lq, L)`, detached (for plots).
    pub alphas: Option<Tensor>,
}

impl Attention {
    /// Scaled dot-product attention, as in the lecture. `input_dim` defaults to `hidden_dim`.
    pub fn new(hidden_dim: usize, input_dim: Option<usize>, proj_values: bool) -> Result<Self> {
        Self::with_score(hidden_dim, input_dim, proj_values, Score::ScaledDot)
    }

    /// Attention with another scoring function. The query, key and value layers are drawn
    /// first (in that order, as PyTorch draws them), then the score's own parameters.
    pub fn with_score(hidden_dim: usize, input_dim: Option<usize>, proj_values: bool, score: Score) -> Result<Self> {
        let input_dim = input_dim.unwrap_or(hidden_dim);
        let linear_query = Linear::new(input_dim, hidden_dim)?;
        let linear_key = Linear::new(input_dim, hidden_dim)?;
        let linear_value = Linear::new(input_dim, hidden_dim)?;
        let (linear_score, linear_v) = match score {
            Score::General => (Some(Linear::with_bias(hidden_dim, hidden_dim, false)?), None),
            Score::Additive => (
                Some(Linear::with_bias(2 * hidden_dim, hidden_dim, false)?),
                Some(Linear::with_bias(hidden_dim, 1, false)?),
            ),
            Score::Location { source_len } => (Some(Linear::new(hidden_dim, source_len)?), None),
            _ => (None, None),
        };
        Ok(Attention {
            d_k: hidden_dim,
            input_dim,
            proj_values,
            score,
            linear_query,
            linear_key,
            linear_value,
            linear_score,
            linear_v,
            keys: None,
            proj_keys: None,
            values: None,
            alphas: None,
        })
    }

    /// Takes the keys once, `(N, L, input_dim)`: projects them, and the values too when
    /// `proj_values` (otherwise the values are the keys themselves).
    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        check_batch("Attention::init_keys", keys, self.input_dim)?;
        self.proj_keys = Some(self.linear_key.forward(keys)?);
        self.values = Some(if self.proj_values { self.linear_value.forward(keys)? } else { keys.clone() });
        self.keys = Some(keys.clone());
        Ok(())
    }

    fn keys_ready(&self) -> Result<(&Tensor, &Tensor)> {
        match (&self.proj_keys, &self.values) {
            (Some(k), Some(v)) => Ok((k, v)),
            _ => bail!("Attention: keys are not initialised; call init_keys with the encoder's states first"),
        }
    }

    /// Alignment scores of a query batch against the keys: `(N, Lq, input_dim)` -> `(N, Lq, L)`.
    pub fn score_function(&self, query: &Tensor) -> Result<Tensor> {
        let (proj_keys, _) = self.keys_ready()?;
        let (n, l, _) = proj_keys.dims3()?;
        match query.dims() {
            &[qn, _, d] if qn == n && d == self.input_dim => {}
            d => bail!("Attention: expected a query of shape ({n}, Lq, {}) to match keys {:?}, got {d:?}", self.input_dim, proj_keys.dims()),
        }
        let q = self.linear_query.forward(query)?;
        let missing = || candle_core::Error::Msg("Attention: score parameters are missing".into());
        match self.score {
            Score::ScaledDot => scaled_dot_products(&q, proj_keys),
            Score::Dot => dot_products(&q, proj_keys),
            Score::Cosine => cosine_products(&q, proj_keys),
            Score::General => {
                let w = self.linear_score.as_ref().ok_or_else(missing)?;
                dot_products(&q, &w.forward(proj_keys)?)
            }
            Score::Additive => {
                let (w, v) = (self.linear_score.as_ref().ok_or_else(missing)?, self.linear_v.as_ref().ok_or_else(missing)?);
                let lq = q.dim(1)?;
                // Every (query, key) pair: (N, Lq, L, 2H) -> tanh(W [q; k]) -> v -> (N, Lq, L).
                let qe = q.unsqueeze(2)?.broadcast_as((n, lq, l, self.d_k))?;
                let ke = proj_keys.unsqueeze(1)?.broadcast_as((n, lq, l, self.d_k))?;
                let pair = Tensor::cat(&[qe, ke], 3)?;
                v.forward(&w.forward(&pair)?.tanh()?)?.squeeze(3)
            }
            Score::Location { source_len } => {
                if source_len != l {
                    bail!("Attention: location-based scores were built for {source_len} source steps, the keys have {l}")
                }
                self.linear_score.as_ref().ok_or_else(missing)?.forward(&q)
            }
        }
    }

    /// `(N, Lq, input_dim)` and an optional mask broadcasting to `(N, Lq, L)` (such as the source
    /// mask `(N, 1, L)`) -> context `(N, Lq, H)`. Keeps the alphas in `self.alphas`.
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let mut scores = self.score_function(query)?;
        if let Some(m) = mask {
            let fits = |d: usize, want: usize| d == 1 || d == want;
            if m.rank() != 3 || !fits(m.dim(0)?, scores.dim(0)?) || !fits(m.dim(1)?, scores.dim(1)?) || m.dim(2)? != scores.dim(2)? {
                bail!("Attention: expected a mask of shape (1 or {}, 1 or {}, {}), got {:?}", scores.dim(0)?, scores.dim(1)?, scores.dim(2)?, m.dims())
            }
            scores = masked_fill(&scores, m, MASK_FILL)?;
        }
        let alphas = softmax(&scores)?;
        self.alphas = Some(alphas.detach());
        let (_, values) = self.keys_ready()?;
        context_vector(&alphas, values)
    }
}

impl Module for Attention {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("linear_query", self.linear_query.named_parameters());
        p.extend(prefixed("linear_key", self.linear_key.named_parameters()));
        p.extend(prefixed("linear_value", self.linear_value.named_parameters()));
        if let Some(w) = &self.linear_score {
            p.extend(prefixed("linear_score", w.named_parameters()));
        }
        if let Some(v) = &self.linear_v {
            p.extend(prefixed("linear_v", v.named_parameters()));
        }
        p
    }
}

/// The lecture's wide `MultiHeadAttention(n_heads, d_model, input_dim, proj_values)`: every head
/// is a full [`Attention`] over all `d_model` dimensions; their contexts are concatenated and
/// mapped back to `d_model` by a linear layer.
#[derive(Clone, Debug)]
pub struct MultiHeadAttention {
    pub n_heads: usize,
    pub d_model: usize,
    pub linear_out: Linear,
    pub attn_heads: Vec<Attention>,
}

impl MultiHeadAttention {
    /// Draws the output layer first, then each head, in PyTorch's order.
    pub fn new(n_heads: usize, d_model: usize, input_dim: Option<usize>, proj_values: bool) -> Result<Self> {
        if n_heads == 0 {
            bail!("MultiHeadAttention: n_heads must be positive")
        }
        let linear_out = Linear::new(n_heads * d_model, d_model)?;
        let attn_heads = (0..n_heads).map(|_| Attention::new(d_model, input_dim, proj_values)).collect::<Result<_>>()?;
        Ok(MultiHeadAttention { n_heads, d_model, linear_out, attn_heads })
    }

    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        self.attn_heads.iter_mut().try_for_each(|h| h.init_keys(keys))
    }

    /// Every head's alphas, stacked: `(n_heads, N, Lq, L)`.
    pub fn alphas(&self) -> Result<Tensor> {
        let a: Vec<Tensor> = self
            .attn_heads
            .iter()
            .map(|h| h.alphas.clone().ok_or_else(|| candle_core::Error::Msg("MultiHeadAttention: no alphas yet; run forward first".into())))
            .collect::<Result<_>>()?;
        Tensor::stack(&a, 0)
    }

    /// `(N, Lq, input_dim)` -> `(N, Lq, d_model)`.
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let contexts: Vec<Tensor> = self.attn_heads.iter_mut().map(|h| h.forward(query, mask)).collect::<Result<_>>()?;
        self.linear_out.forward(&Tensor::cat(&contexts, D::Minus1)?)
    }
}

impl Module for MultiHeadAttention {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("linear_out", self.linear_out.named_parameters());
        for (i, h) in self.attn_heads.iter().enumerate() {
            p.extend(prefixed(&format!("attn_heads.{i}"), h.named_parameters()));
        }
        p
    }
}

/// The lecture's `DecoderAttn(n_features, hidden_dim)`: a GRU step, attention of its output over
/// the encoder's states, and a linear layer on `[context; query]`.
#[derive(Clone, Debug)]
pub struct DecoderAttn {
    pub n_features: usize,
    pub hidden_dim: usize,
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
    pub attn: Attention,
    pub regression: Linear,
}

impl DecoderAttn {
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim)?;
        let attn = Attention::new(hidden_dim, None, false)?;
        let regression = Linear::new(2 * hidden_dim, n_features)?;
        Ok(DecoderAttn { n_features, hidden_dim, hidden: None, basic_rnn, attn, regression })
    }
}

impl DecoderAttn {
    /// Keys are the encoder's states; the first hidden state is the last of them.
    pub fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        let hidden = final_state_seq_first("DecoderAttn", hidden_seq, self.hidden_dim)?;
        self.attn.init_keys(hidden_seq)?;
        self.hidden = Some(hidden);
        Ok(())
    }

    /// `(N, 1, F)` and an optional source mask `(N, 1, L)` -> `(N, 1, F)`.
    pub fn forward(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let (query, hidden) = gru_step("DecoderAttn", &self.basic_rnn, self.hidden.as_ref(), x)?;
        self.hidden = Some(hidden);
        let n = x.dim(0)?;
        let context = self.attn.forward(&query, mask)?;
        let concatenated = Tensor::cat(&[context, query], D::Minus1)?;
        self.regression.forward(&concatenated)?.reshape((n, 1, self.n_features))
    }
}

impl Module for DecoderAttn {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("basic_rnn", self.basic_rnn.named_parameters());
        p.extend(prefixed("attn", self.attn.named_parameters()));
        p.extend(prefixed("regression", self.regression.named_parameters()));
        p
    }
}

impl StepDecoder for DecoderAttn {
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn hidden_dim(&self) -> usize {
        self.hidden_dim
    }
    fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        DecoderAttn::init_hidden(self, hidden_seq)
    }
    fn step(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        DecoderAttn::forward(self, x, mask)
    }
    fn step_alphas(&self) -> Option<Tensor> {
        self.attn.alphas.clone()
    }
}

/// The blog post's plain attention layer `AttentionLayer(input_dim, output_dim)`: linear maps to
/// queries, keys and values, unscaled dot-product scores, softmax, weighted sum.
/// `query (N, Lq, input_dim)`, `key` and `value` `(N, L, input_dim)` -> `(N, Lq, output_dim)`.
#[derive(Clone, Debug)]
pub struct AttentionLayer {
    pub query: Linear,
    pub key: Linear,
    pub value: Linear,
    /// The attention weights of the last call, `(N, Lq, L)`.
    pub alphas: Option<Tensor>,
}

impl AttentionLayer {
    pub fn new(input_dim: usize, output_dim: usize) -> Result<Self> {
        let query = Linear::new(input_dim, output_dim)?;
        let key = Linear::new(input_dim, output_dim)?;
        let value = Linear::new(input_dim, output_dim)?;
        Ok(AttentionLayer { query, key, value, alphas: None })
    }

    pub fn forward(&mut self, query: &Tensor, key: &Tensor, value: &Tensor) -> Result<Tensor> {
        let (q, k, v) = (self.query.forward(query)?, self.key.forward(key)?, self.value.forward(value)?);
        let alphas = softmax(&dot_products(&q, &k)?)?;
        self.alphas = Some(alphas.detach());
        context_vector(&alphas, &v)
    }
}

impl Module for AttentionLayer {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("query", self.query.named_parameters());
        p.extend(prefixed("key", self.key.named_parameters()));
        p.extend(prefixed("value", self.value.named_parameters()));
        p
    }
}

/// Helper for tests and notebooks: a `(1, 1, D)` query or `(1, L, D)` keys from plain rows.
pub fn batch_of_one(rows: &[&[f32]]) -> Result<Tensor> {
    let d = rows.first().map_or(0, |r| r.len());
    if d == 0 || rows.iter().any(|r| r.len() != d) {
        bail!("batch_of_one: expected rows of one positive length")
    }
    Tensor::from_vec(rows.concat(), (1, rows.len(), d), &Device::Cpu)
}

/// The lecture's `EncoderDecoderAttn`: the encoder-decoder driving an attention decoder, keeping
/// the alphas of every target step in `alphas`, `(N, target_len, input_len)`.
pub type EncoderDecoderAttn = crate::seq2seq::EncoderDecoder<DecoderAttn>;
