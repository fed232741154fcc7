//! The scoring functions of the slides: general (`qᵀWk`), additive (`vᵀ tanh(W[q; k])`) and
//! content-based (cosine), each against the crate's `Score`.

use crate::attention::{Score, cosine_products, dot_products};
use crate::nn::{Linear, softmax};
use crate::practice::answer::Tolerance;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{D, Result, Tensor};

/// A query, keys and the general score's `W`, drawn under one seed.
type GeneralCase = (Tensor, Tensor, Linear);

exercise! {
    /// The general score, `qᵀ W k`, with a trainable `W`.
    q5: Q5 = Info {
        id: "02.q5",
        title: "the general score (q W k)",
        lecture: "000#49",
        hints: &[
            "The general score puts a trainable matrix between query and key: the linear layer `w` maps the keys, then come the dot products with the query.",
            "`w.forward(keys)?` is (N, L, H), the keys mapped by W; the query then meets them exactly as in q1.",
            "`query.matmul(&w.forward(keys)?.transpose(1, 2)?)`.",
        ],
        solution: solution!(attention::general_scores),
    }
}

impl Exercise for Q5 {
    type Input = GeneralCase;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = Tolerance::LAYERS;

    fn cases() -> Result<Vec<Case<GeneralCase>>> {
        let case = |seed: u64, n: usize, lq: usize, l: usize, h: usize| -> Result<GeneralCase> {
            let (w, _) = seeded(seed, || Score::General.layers(h))?;
            let w = w.ok_or_else(|| candle_core::Error::Msg("the general score has a W".into()))?;
            Ok((randn(seed + 1, &[n, lq, h])?, randn(seed + 2, &[n, l, h])?, w))
        };
        Ok(vec![
            Case::new("a batch of 2, one query, 4 keys of 3 dimensions, W under seed 7", case(7, 2, 1, 4, 3)?),
            Case::new("a batch of one, 3 queries, 5 keys of 2 dimensions, W under seed 11", case(11, 1, 3, 5, 2)?),
            Case::new("a batch of 3, one query, 2 keys of 6 dimensions, W under seed 3", case(3, 3, 1, 2, 6)?),
        ])
    }

    fn reference((q, k, w): &GeneralCase) -> Result<Tensor> {
        Score::General.scores(q, k, Some(w), None)
    }

    fn mistakes() -> Vec<Mistake<GeneralCase, Tensor>> {
        vec![
            Mistake {
                sentence: "W went on the query (which is the same as mapping the keys by W transposed): the crate's general score maps the keys, `w.forward(keys)`, and takes their dot products with the query as it is.",
                answer: |(q, k, w)| dot_products(&w.forward(q)?, k),
            },
            Mistake {
                sentence: "W is missing: these are plain dot products. The general score maps the keys with `w` first.",
                answer: |(q, k, _)| dot_products(q, k),
            },
            Mistake {
                sentence: "Both query and keys went through W: only the keys do, the query stays as it is.",
                answer: |(q, k, w)| dot_products(&w.forward(q)?, &w.forward(k)?),
            },
            Mistake {
                sentence: "The general score is not scaled: no division by sqrt(d_k), that belongs to the scaled dot product.",
                answer: |(q, k, w)| dot_products(q, &w.forward(k)?)? / (q.dim(D::Minus1)? as f64).sqrt(),
            },
        ]
    }
}

impl Q5 {
    /// Checks `f(query (N, Lq, H), keys (N, L, H), w) -> scores (N, Lq, L)` against
    /// `Score::General`, with `W` the crate's (an H x H linear layer without bias).
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Linear) -> Result<Tensor>) -> Outcome {
        Self::run(|(q, k, w)| f(q, k, w))
    }
}

/// Every (query, key) pair side by side, `(N, Lq, L, 2H)`, the query first or the key first.
fn pairs(q: &Tensor, k: &Tensor, query_first: bool) -> Result<Tensor> {
    let ((n, lq, h), l) = (q.dims3()?, k.dim(1)?);
    let qe = q.unsqueeze(2)?.broadcast_as((n, lq, l, h))?;
    let ke = k.unsqueeze(1)?.broadcast_as((n, lq, l, h))?;
    Tensor::cat(&if query_first { [qe, ke] } else { [ke, qe] }, 3)
}

/// A vector's length along the last dimension, kept: `(..., 1)`.
fn length(x: &Tensor) -> Result<Tensor> {
    x.sqr()?.sum_keepdim(D::Minus1)?.sqrt()
}

/// A query, keys, and the additive score's `W` and `v`, drawn under one seed.
type AdditiveCase = (Tensor, Tensor, Linear, Linear);

exercise! {
    /// The additive score, `vᵀ tanh(W [q; k])`, for every query and key.
    q6: Q6 = Info {
        id: "02.q6",
        title: "the additive score (v tanh(W [q; k]))",
        lecture: "000#49",
        hints: &[
            "Each (query, key) pair gets its own score: put the two vectors side by side, [q; k] of 2H numbers, map them with `w` to H, take the tanh, and map with `v` to one number.",
            "Make every pair at once: `query.unsqueeze(2)?` and `keys.unsqueeze(1)?`, both broadcast to (N, Lq, L, H), then `Tensor::cat(&[q, k], 3)?`, query first.",
            "`v.forward(&w.forward(&pairs)?.tanh()?)?` is (N, Lq, L, 1): `.squeeze(3)` gives the scores (N, Lq, L).",
        ],
        solution: solution!(attention::additive_scores),
    }
}

impl Exercise for Q6 {
    type Input = AdditiveCase;
    type Answer = Tensor;
    const TOLERANCE: Tolerance = Tolerance::LAYERS;

    fn cases() -> Result<Vec<Case<AdditiveCase>>> {
        let case = |seed: u64, n: usize, lq: usize, l: usize, h: usize| -> Result<AdditiveCase> {
            let layers = seeded(seed, || Score::Additive.layers(h))?;
            let (Some(w), Some(v)) = layers else { return Err(candle_core::Error::Msg("the additive score has W and v".into())) };
            Ok((randn(seed + 1, &[n, lq, h])?, randn(seed + 2, &[n, l, h])?, w, v))
        };
        Ok(vec![
            Case::new("a batch of 2, one query, 3 keys of 2 dimensions, W and v under seed 5", case(5, 2, 1, 3, 2)?),
            Case::new("a batch of one, 3 queries, 4 keys of 3 dimensions, W and v under seed 13", case(13, 1, 3, 4, 3)?),
            Case::new("a batch of 3, one query, a single key of 5 dimensions, W and v under seed 8", case(8, 3, 1, 1, 5)?),
        ])
    }

    fn reference((q, k, w, v): &AdditiveCase) -> Result<Tensor> {
        Score::Additive.scores(q, k, Some(w), Some(v))
    }

    fn mistakes() -> Vec<Mistake<AdditiveCase, Tensor>> {
        vec![
            Mistake {
                sentence: "The pair is [k; q]: the query comes first, `Tensor::cat(&[q, k], 3)`, as in W [q; k].",
                answer: |(q, k, w, v)| v.forward(&w.forward(&pairs(q, k, false)?)?.tanh()?)?.squeeze(3),
            },
            Mistake {
                sentence: "The tanh is missing: v maps tanh(W [q; k]), not W [q; k] itself.",
                answer: |(q, k, w, v)| v.forward(&w.forward(&pairs(q, k, true)?)?)?.squeeze(3),
            },
            Mistake {
                sentence: "The scores keep v's output dimension, (N, Lq, L, 1): squeeze it away, `.squeeze(3)`.",
                answer: |(q, k, w, v)| Score::Additive.scores(q, k, Some(w), Some(v))?.unsqueeze(3),
            },
            Mistake {
                sentence: "The tanh comes after v: it goes between the two layers, v tanh(W [q; k]), so that v sees values squashed into (-1, 1).",
                answer: |(q, k, w, v)| v.forward(&w.forward(&pairs(q, k, true)?)?)?.tanh()?.squeeze(3),
            },
            Mistake {
                sentence: "A softmax turned the scores into alphas: the score function returns the scores themselves, before any softmax.",
                answer: |(q, k, w, v)| softmax(&Score::Additive.scores(q, k, Some(w), Some(v))?),
            },
        ]
    }
}

impl Q6 {
    /// Checks `f(query (N, Lq, H), keys (N, L, H), w, v) -> scores (N, Lq, L)` against
    /// `Score::Additive`: `w` maps 2H to H, `v` maps H to 1, both without bias.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, &Linear, &Linear) -> Result<Tensor>) -> Outcome {
        Self::run(|(q, k, w, v)| f(q, k, w, v))
    }
}

exercise! {
    /// The content-based score: the cosine of the angle between query and key.
    q7: Q7 = Info {
        id: "02.q7",
        title: "the content-based score (cosine)",
        lecture: "000#49",
        hints: &[
            "The cosine is the dot product of the two vectors once each is scaled to length one: it ignores how long they are.",
            "A vector's length is `x.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?`; divide the query by its length and each key by its own (`broadcast_div`).",
            "With `q_unit` and `k_unit` of length one, the scores are `q_unit.matmul(&k_unit.transpose(1, 2)?)`.",
        ],
        solution: solution!(attention::cosine_scores),
    }
}

impl Exercise for Q7 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("a batch of 2, one query, 4 keys of 3 dimensions", (randn(71, &[2, 1, 3])?, randn(72, &[2, 4, 3])?)),
            Case::new("a batch of one, 3 queries, a single key of 5 dimensions", (randn(73, &[1, 3, 5])?, randn(74, &[1, 1, 5])?)),
            Case::new("a batch of 3, one query, 6 keys of 2 dimensions", (randn(75, &[3, 1, 2])?, randn(76, &[3, 6, 2])?)),
        ])
    }

    fn reference((q, k): &Self::Input) -> Result<Tensor> {
        cosine_products(q, k)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "These are plain dot products: the cosine divides each by the lengths of the query and of the key.",
                answer: |(q, k)| dot_products(q, k),
            },
            Mistake {
                sentence: "Only the keys are scaled to length one: the query must be too.",
                answer: |(q, k)| dot_products(q, &k.broadcast_div(&length(k)?)?),
            },
            Mistake {
                sentence: "Only the query is scaled to length one: each key must be too.",
                answer: |(q, k)| dot_products(&q.broadcast_div(&length(q)?)?, k),
            },
            Mistake {
                sentence: "The lengths are squared: a vector's length is the square root of the sum of its squares.",
                answer: |(q, k)| {
                    dot_products(&q.broadcast_div(&q.sqr()?.sum_keepdim(D::Minus1)?)?, &k.broadcast_div(&k.sqr()?.sum_keepdim(D::Minus1)?)?)
                },
            },
            Mistake {
                sentence: "The lengths are taken over dimension 1, across the vectors: each vector's length runs over its own H numbers, the last dimension.",
                answer: |(q, k)| {
                    dot_products(&q.broadcast_div(&q.sqr()?.sum_keepdim(1)?.sqrt()?)?, &k.broadcast_div(&k.sqr()?.sum_keepdim(1)?.sqrt()?)?)
                },
            },
        ]
    }
}

impl Q7 {
    /// Checks `f(query (N, Lq, H), keys (N, L, H)) -> scores (N, Lq, L)` against the crate's
    /// cosine score.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(q, k)| f(q, k))
    }
}
