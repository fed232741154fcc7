//! The lecture's `Attention`: one attention head with affine maps of the query, the keys and the
//! values, any scoring function of the slides, softmax and the context vector.

use super::kv::transposed_in_memory;
use super::mask::MASK_FILL;
use super::score::{Score, bmm};
use super::terms::ScoreTerms;
use crate::nn::ops::{masked_fill, softmax};
use crate::nn::shape::{check_batch, invalid};
use crate::nn::{Linear, Walk, errors_as};
use candle_core::{Result, Tensor};

/// The lecture's `Attention(hidden_dim, input_dim, proj_values)`: affine maps of the query, the
/// keys and (optionally) the values, a scoring function, softmax, and the context vector.
#[derive(Clone, Debug, Walk)]
pub struct Attention {
    #[walk(skip)]
    pub d_k: usize,
    #[walk(skip)]
    pub input_dim: usize,
    #[walk(skip)]
    pub proj_values: bool,
    #[walk(skip)]
    pub score: Score,
    pub linear_query: Linear,
    pub linear_key: Linear,
    pub linear_value: Linear,
    /// `W` of the general and additive scores, `W_a` of the location-based one.
    pub linear_score: Option<Linear>,
    /// `v` of the additive score.
    pub linear_v: Option<Linear>,
    #[walk(skip)]
    pub keys: Option<Tensor>,
    #[walk(skip)]
    pub proj_keys: Option<Tensor>,
    #[walk(skip)]
    pub values: Option<Tensor>,
    /// The alphas of the last call, `(N, Lq, L)`, detached (for plots).
    #[walk(skip)]
    pub alphas: Option<Tensor>,
    /// The query and the mask of the last call, detached (for [`Attention::score_terms`]).
    #[walk(skip)]
    pub last_query: Option<(Tensor, Option<Tensor>)>,
}

impl Attention {
    /// Scaled dot-product attention, as in the lecture. `input_dim` defaults to `hidden_dim`.
    #[errors_as]
    pub fn new(hidden_dim: usize, input_dim: Option<usize>, proj_values: bool) -> Result<Self> {
        Self::with_score(hidden_dim, input_dim, proj_values, Score::ScaledDot)
    }

    /// Attention with another scoring function. The query, key and value layers are drawn
    /// first (in that order, as PyTorch draws them), then the score's own parameters.
    #[errors_as("Attention")]
    pub fn with_score(hidden_dim: usize, input_dim: Option<usize>, proj_values: bool, score: Score) -> Result<Self> {
        let input_dim = input_dim.unwrap_or(hidden_dim);
        // the three affine maps: queries, keys, values
        let linear_query = Linear::new(input_dim, hidden_dim)?;
        let linear_key = Linear::new(input_dim, hidden_dim)?;
        let linear_value = Linear::new(input_dim, hidden_dim)?;
        let (linear_score, linear_v) = score.layers(hidden_dim)?;
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
            last_query: None,
        })
    }

    /// Takes the keys once: projects them, and the values too when `proj_values` (otherwise the
    /// values are the keys themselves).
    ///
    /// # Shapes
    /// - `keys`: `(N, L, input_dim)`
    #[errors_as]
    pub fn init_keys(&mut self, keys: &Tensor) -> Result<()> {
        check_batch(keys, self.input_dim)?;
        let proj_keys = self.laid_out_for_scores(self.linear_key.forward(keys)?)?;
        let values = if self.proj_values { self.linear_value.forward(keys)? } else { keys.clone() };
        // kept only once both projections worked: a refused call leaves the old keys in place
        self.keys = Some(keys.clone());
        self.proj_keys = Some(proj_keys);
        self.values = Some(values);
        Ok(())
    }

    /// Alignment scores of a query batch against the keys, before the softmax.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - returns `(N, Lq, L)`
    #[errors_as("Attention")]
    pub fn score_function(&self, query: &Tensor) -> Result<Tensor> {
        check_query(self, query)?;
        let proj_query = self.linear_query.forward(query)?;
        let proj_keys = self.proj_keys()?;
        if self.score != Score::ScaledDot {
            return self.score.scores(&proj_query, proj_keys, self.linear_score.as_ref(), self.linear_v.as_ref());
        }
        // scaled dot product: (N, Lq, H) x (N, H, L) -> (N, Lq, L)
        let dot_products = bmm(&proj_query, &proj_keys.permute((0, 2, 1))?)?;
        dot_products / (self.d_k as f64).sqrt()
    }

    /// Scores, masks, softmax and the context vector; keeps the alphas in `self.alphas`.
    ///
    /// # Shapes
    /// - `query`: `(N, Lq, input_dim)`
    /// - `mask`: optional, broadcasting to `(N, Lq, L)` (such as the source mask `(N, 1, L)`)
    /// - returns the context `(N, Lq, H)`; `self.alphas` becomes `(N, Lq, L)`
    #[errors_as]
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let sizes = check_query(self, query)?;
        check_mask(mask, sizes)?;
        let mut scores = self.score_function(query)?;
        if let Some(m) = mask {
            scores = masked_fill(&scores, m, MASK_FILL)?;
        }
        let alphas = softmax(&scores)?;
        self.alphas = Some(alphas.detach());
        self.last_query = Some((query.detach(), mask.map(Tensor::detach)));
        bmm(&alphas, self.values()?)
    }

    /// The terms of the last call's scores, for the explorer's neuron view: the projected query
    /// and keys (or what the score function makes of them), their dot products, the scores
    /// (`-inf` where the mask hid a key) and the alphas, with a head axis of 1.
    ///
    /// # Shapes
    /// - after `forward` with a query `(N, Lq, input_dim)`: see [`ScoreTerms`]; `dots`, `scores`
    ///   and `weights` are `(N, 1, Lq, L)`
    #[errors_as]
    pub fn score_terms(&self) -> Result<ScoreTerms> {
        let (Some((query, mask)), Some(alphas)) = (&self.last_query, &self.alphas) else {
            return Err(invalid("no call to forward yet: its query is what the terms are of"));
        };
        let scores = self.score_function(query)?;
        let proj_query = self.linear_query.forward(query)?;
        let layers = (self.linear_score.as_ref(), self.linear_v.as_ref());
        ScoreTerms::one_head(self.score, (&proj_query, self.proj_keys()?), layers, &scores, mask.as_ref(), alphas)
    }

    /// The projected keys as the scores keep them. The dot-product scores read the keys
    /// transposed at every step: laid out so once (the same shape and values), the
    /// transposition at each step is free.
    fn laid_out_for_scores(&self, proj_keys: Tensor) -> Result<Tensor> {
        match self.score {
            Score::ScaledDot | Score::Dot => transposed_in_memory(&proj_keys),
            _ => Ok(proj_keys),
        }
    }

    /// `self.proj_keys`, once [`Attention::init_keys`] has set them.
    fn proj_keys(&self) -> Result<&Tensor> {
        self.proj_keys.as_ref().ok_or_else(keys_not_initialised)
    }

    /// `self.values`, once [`Attention::init_keys`] has set them.
    fn values(&self) -> Result<&Tensor> {
        self.values.as_ref().ok_or_else(keys_not_initialised)
    }
}

fn keys_not_initialised() -> candle_core::Error {
    invalid("keys are not initialised; call init_keys with the encoder's states first")
}

/// [`Attention::score_function`]'s door: keys initialised, a query `(N, Lq, input_dim)` of the
/// keys' `N`, and as many keys as a location-based score was built for. Returns the scores'
/// shape `(N, Lq, L)`.
fn check_query(attention: &Attention, query: &Tensor) -> Result<[usize; 3]> {
    let (proj_keys, _values) = (attention.proj_keys()?, attention.values()?);
    let (n, l, _) = proj_keys.dims3()?;
    let lq = match query.dims() {
        &[qn, lq, d] if qn == n && d == attention.input_dim => lq,
        d => {
            return Err(invalid(format!(
                "expected a query of shape ({n}, Lq, {}) to match keys {:?}, got {d:?}",
                attention.input_dim,
                proj_keys.dims()
            )));
        }
    };
    if let Score::Location { source_len } = attention.score
        && source_len != l
    {
        return Err(invalid(format!("location-based scores were built for {source_len} source steps, the keys have {l}")));
    }
    Ok([n, lq, l])
}

/// [`Attention::forward`]'s door, after the query's: a mask broadcasting to the scores
/// `(N, Lq, L)`, the sizes [`check_query`] returned.
fn check_mask(mask: Option<&Tensor>, [n, lq, l]: [usize; 3]) -> Result<()> {
    let Some(m) = mask else { return Ok(()) };
    let fits = |d: usize, want: usize| d == 1 || d == want;
    if m.rank() != 3 || !fits(m.dim(0)?, n) || !fits(m.dim(1)?, lq) || m.dim(2)? != l {
        return Err(invalid(format!("expected a mask of shape (1 or {n}, 1 or {lq}, {l}), got {:?}", m.dims())));
    }
    Ok(())
}
