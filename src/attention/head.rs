//! The lecture's `Attention`: one attention head with affine maps of the query, the keys and the
//! values, any scoring function of the slides, softmax and the context vector.

use super::kv::transposed_in_memory;
use super::mask::MASK_FILL;
use super::score::{Score, context_vector, cosine_products, dot_products, scaled_dot_products};
use crate::nn::ops::{masked_fill, softmax};
use crate::nn::shape::{Within, check_batch};
use crate::nn::{Linear, Walk, Walker};
use candle_core::{Result, Tensor, bail};

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
        let linear_query = Linear::new(input_dim, hidden_dim).within("Attention")?;
        let linear_key = Linear::new(input_dim, hidden_dim).within("Attention")?;
        let linear_value = Linear::new(input_dim, hidden_dim).within("Attention")?;
        let (linear_score, linear_v) = match score {
            Score::General => (Some(Linear::with_bias(hidden_dim, hidden_dim, false).within("Attention")?), None),
            Score::Additive => (
                Some(Linear::with_bias(2 * hidden_dim, hidden_dim, false).within("Attention")?),
                Some(Linear::with_bias(hidden_dim, 1, false).within("Attention")?),
            ),
            Score::Location { source_len } => (Some(Linear::new(hidden_dim, source_len).within("Attention")?), None),
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

    /// Takes the keys once: projects them, and the values too when `proj_values` (otherwise the
    /// values are the keys themselves).
    ///
    /// # Shapes
    /// - `keys`: `(N, L, input_dim)`
    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        check_batch(keys, self.input_dim).within("Attention::init_keys")?;
        let proj_keys = self.linear_key.forward(keys)?;
        // The dot-product scores read the keys transposed at every step: lay them out so once
        // (the same shape and values), and the transposition at each step is free.
        self.proj_keys = Some(match self.score {
            Score::ScaledDot | Score::Dot => transposed_in_memory(&proj_keys)?,
            _ => proj_keys,
        });
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

    /// Alignment scores of a query batch against the keys, before the softmax.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - returns `(N, Lq, L)`
    pub fn score_function(&self, query: &Tensor) -> Result<Tensor> {
        let (proj_keys, _) = self.keys_ready()?;
        let (n, l, _) = proj_keys.dims3()?;
        match query.dims() {
            &[qn, _, d] if qn == n && d == self.input_dim => {}
            d => {
                bail!("Attention: expected a query of shape ({n}, Lq, {}) to match keys {:?}, got {d:?}", self.input_dim, proj_keys.dims())
            }
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

    /// Scores, masks, softmax and the context vector; keeps the alphas in `self.alphas`.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - `mask`: optional, broadcasting to `(N, Lq, L)` (such as the source mask `(N, 1, L)`)
    /// - returns the context `(N, Lq, H)`; `self.alphas` becomes `(N, Lq, L)`
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let mut scores = self.score_function(query)?;
        if let Some(m) = mask {
            let fits = |d: usize, want: usize| d == 1 || d == want;
            if m.rank() != 3 || !fits(m.dim(0)?, scores.dim(0)?) || !fits(m.dim(1)?, scores.dim(1)?) || m.dim(2)? != scores.dim(2)? {
                bail!(
                    "Attention: expected a mask of shape (1 or {}, 1 or {}, {}), got {:?}",
                    scores.dim(0)?,
                    scores.dim(1)?,
                    scores.dim(2)?,
                    m.dims()
                )
            }
            scores = masked_fill(&scores, m, MASK_FILL)?;
        }
        let alphas = softmax(&scores)?;
        self.alphas = Some(alphas.detach());
        let (_, values) = self.keys_ready()?;
        context_vector(&alphas, values)
    }
}

impl Walk for Attention {
    fn walk(&self, w: &mut Walker) {
        w.child("linear_query", &self.linear_query);
        w.child("linear_key", &self.linear_key);
        w.child("linear_value", &self.linear_value);
        if let Some(l) = &self.linear_score {
            w.child("linear_score", l);
        }
        if let Some(l) = &self.linear_v {
            w.child("linear_v", l);
        }
    }
}
