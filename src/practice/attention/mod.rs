//! Part 2, attention (notebooks/exercises/02_attention.ipynb): the dot products of a query with
//! the keys, the alphas, the context vector, the scaled alphas; the scoring functions of the
//! slides (general, additive, cosine); alphas under a source mask; and the wide multi-head
//! attention's forward pass.

mod heads;
mod scoring;

pub use heads::*;
pub use scoring::*;

use super::cases::{Case, randn};
use super::declaration::Exercise;
use super::progress::Progress;
use super::run::{Mistake, Outcome};
use super::{Info, exercise, solution};
use crate::attention::{calc_alphas, context_vector, dot_products};
use crate::nn::softmax;
use candle_core::{D, Result, Tensor};

/// Every exercise of part 2, in order.
pub const ALL: &[Info] = &[Q1::INFO, Q2::INFO, Q3::INFO, Q4::INFO, Q5::INFO, Q6::INFO, Q7::INFO, Q8::INFO, Q9::INFO];

/// The table of part 2's exercises and their last outcomes.
pub fn progress() -> Progress {
    Progress::of("02")
}

/// Alphas `(N, Lq, L)` from normals of a seed: what a softmax gives.
fn some_alphas(seed: u64, shape: &[usize]) -> Result<Tensor> {
    softmax(&randn(seed, shape)?)
}

exercise! {
    /// The dot products of the query with every key.
    q1: Q1 = Info {
        id: "02.q1",
        title: "dot products of the query with the keys",
        lecture: "000#36",
        hints: &[
            "One product per key: the query (N, 1, H) times the keys laid out as columns, (N, H, L), gives (N, 1, L).",
            "`keys.transpose(1, 2)?` is PyTorch's `keys.permute(0, 2, 1)`; `matmul` multiplies each sequence's matrices, like `torch.bmm`.",
            "`query.matmul(&keys.transpose(1, 2)?)`.",
        ],
        solution: solution!(attention::products),
    }
}

impl Exercise for Q1 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new(
                "a batch of 2, 3 keys of 3 dimensions: query (2, 1, 3), keys (2, 3, 3)",
                (randn(21, &[2, 1, 3])?, randn(22, &[2, 3, 3])?),
            )
            .sizes(&[("H", 3)]),
            Case::new("a batch of one, a single key: query (1, 1, 4), keys (1, 1, 4)", (randn(23, &[1, 1, 4])?, randn(24, &[1, 1, 4])?))
                .sizes(&[("H", 4)]),
            Case::new(
                "a batch of 3, 6 keys of 5 dimensions: query (3, 1, 5), keys (3, 6, 5)",
                (randn(25, &[3, 1, 5])?, randn(26, &[3, 6, 5])?),
            )
            .sizes(&[("H", 5)]),
        ])
    }

    fn reference((q, k): &Self::Input) -> Result<Tensor> {
        dot_products(q, k)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The keys are not transposed: each key must become a column, `keys.transpose(1, 2)`, (N, H, L), before the product.",
                answer: |(q, k)| q.matmul(k),
            },
            Mistake {
                sentence: "Query and keys are swapped: the keys times the query give (N, L, 1); the query comes first, (N, 1, H) x (N, H, L) -> (N, 1, L).",
                answer: |(q, k)| k.matmul(&q.transpose(1, 2)?),
            },
            Mistake {
                sentence: "The products of matching entries are summed over the keys (dimension 1): a dot product sums over the H dimensions of one key, the last dimension.",
                answer: |(q, k)| q.broadcast_mul(k)?.sum_keepdim(1),
            },
            Mistake {
                sentence: "These are alphas already: the products are what comes before the softmax.",
                answer: |(q, k)| softmax(&dot_products(q, k)?),
            },
        ]
    }
}

impl Q1 {
    /// Checks `f(query (N, 1, H), keys (N, L, H)) -> (N, 1, L)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(q, k)| f(q, k))
    }
}

exercise! {
    /// The alphas: the softmax of the products over the keys.
    q2: Q2 = Info {
        id: "02.q2",
        title: "alphas: the softmax of the products",
        lecture: "000#37",
        hints: &[
            "The alphas of one query are positive and add up to one over the keys: a softmax along the keys' dimension.",
            "The keys run along the last dimension of the products, (N, 1, L): `D::Minus1`, PyTorch's `dim=-1`.",
            "`candle_nn::ops::softmax(products, D::Minus1)` (or the crate's `softmax(products)`, which is over the last dimension).",
        ],
        solution: solution!(attention::alphas_of),
    }
}

impl Exercise for Q2 {
    type Input = Tensor;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Tensor>>> {
        Ok(vec![
            Case::new("a batch of 2, one query, 3 keys: products (2, 1, 3)", randn(31, &[2, 1, 3])?),
            Case::new("a batch of one, 5 keys: products (1, 1, 5)", randn(32, &[1, 1, 5])?),
            Case::new("a batch of 3, 3 queries, 4 keys: products (3, 3, 4)", randn(33, &[3, 3, 4])?),
        ])
    }

    fn reference(p: &Tensor) -> Result<Tensor> {
        softmax(p)
    }

    fn mistakes() -> Vec<Mistake<Tensor, Tensor>> {
        vec![
            Mistake {
                sentence: "The softmax runs over the wrong dimension: the alphas of a query add up to one over the keys, the last dimension (D::Minus1).",
                answer: |p| candle_nn::ops::softmax(p, 1),
            },
            Mistake {
                sentence: "The softmax runs over the batch (dimension 0): each sequence has its own alphas, a softmax over the keys, the last dimension.",
                answer: |p| candle_nn::ops::softmax(p, 0),
            },
            Mistake {
                sentence: "These are the products themselves: the alphas are their softmax over the keys.",
                answer: |p| Ok(p.clone()),
            },
            Mistake {
                sentence: "Dividing the products by their sum is not a softmax: products can be negative. Exponentiate first (the softmax does).",
                answer: |p| p.broadcast_div(&p.sum_keepdim(D::Minus1)?),
            },
            Mistake {
                sentence: "The exponentials are not divided by their sum: alphas add up to one over the keys, which the softmax's division makes sure of.",
                answer: |p| p.exp(),
            },
            Mistake {
                sentence: "That is the log of the alphas (a log-softmax): the alphas are the softmax itself, positive and adding up to one.",
                answer: |p| candle_nn::ops::log_softmax(p, D::Minus1),
            },
            Mistake {
                sentence: "A sigmoid of each product is positive but does not make the alphas add up to one over the keys: use the softmax.",
                answer: candle_nn::ops::sigmoid,
            },
        ]
    }
}

impl Q2 {
    /// Checks `f(products (N, Lq, L)) -> alphas (N, Lq, L)`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|p| f(p))
    }
}

exercise! {
    /// The context vector: the values averaged with the alphas.
    q3: Q3 = Info {
        id: "02.q3",
        title: "the context vector",
        lecture: "000#34",
        hints: &[
            "The context vector is a weighted sum of the values, each weighted by its alpha: one vector of H numbers per query.",
            "A batched matrix product does the weighting and the sum at once: (N, 1, L) x (N, L, H) -> (N, 1, H).",
            "`alphas.matmul(values)`, PyTorch's `torch.bmm(alphas, values)`.",
        ],
        solution: solution!(attention::context_of),
    }
}

impl Exercise for Q3 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new(
                "a batch of 2, 3 values of 4 dimensions: alphas (2, 1, 3), values (2, 3, 4)",
                (some_alphas(41, &[2, 1, 3])?, randn(42, &[2, 3, 4])?),
            )
            .sizes(&[("L", 3)]),
            Case::new(
                "a batch of one, 3 queries, a single value: alphas (1, 3, 1), values (1, 1, 2)",
                (some_alphas(43, &[1, 3, 1])?, randn(44, &[1, 1, 2])?),
            )
            .sizes(&[("L", 1)]),
            Case::new(
                "a batch of 5, 3 queries, 4 values of 6 dimensions: alphas (5, 3, 4), values (5, 4, 6)",
                (some_alphas(45, &[5, 3, 4])?, randn(46, &[5, 4, 6])?),
            )
            .sizes(&[("L", 4)]),
        ])
    }

    fn reference((a, v): &Self::Input) -> Result<Tensor> {
        context_vector(a, v)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The values are added up without their alphas: each value must be weighted by its alpha before the sum.",
                answer: |(_, v)| v.sum_keepdim(1),
            },
            Mistake {
                sentence: "That is the plain average of the values, the naive uniform alphas: weight each value by the alphas you were given.",
                answer: |(_, v)| v.mean_keepdim(1),
            },
            Mistake {
                sentence: "These are the alignment vectors, one per value (N, L, H): the context vector is their sum over the values, (N, 1, H).",
                answer: |(a, v)| a.transpose(1, 2)?.broadcast_mul(v),
            },
        ]
    }
}

impl Q3 {
    /// Checks `f(alphas (N, Lq, L), values (N, L, H)) -> (N, Lq, H)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(a, v)| f(a, v))
    }
}

exercise! {
    /// The lecture's last `calc_alphas`: scaled dot products, then the softmax.
    q4: Q4 = Info {
        id: "02.q4",
        title: "scaled dot-product alphas (calc_alphas)",
        lecture: "000#47",
        hints: &[
            "Three steps: the dot products of the query with the keys, a division that keeps them from growing with the dimension, the softmax.",
            "d_k is the number of dimensions of the query and keys, `q.dim(D::Minus1)?`; divide the products by its square root.",
            "`softmax(&(q.matmul(&ks.transpose(1, 2)?)? / (dims as f64).sqrt())?)` with `dims = q.dim(D::Minus1)?`.",
        ],
        solution: solution!(attention::scaled_alphas),
    }
}

impl Exercise for Q4 {
    type Input = (Tensor, Tensor);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new(
                "a batch of one, 5 keys of 4 dimensions: keys (1, 5, 4), query (1, 1, 4)",
                (randn(51, &[1, 5, 4])?, randn(52, &[1, 1, 4])?),
            )
            .sizes(&[("d_k", 4), ("L", 5)]),
            Case::new(
                "a batch of 3, 2 keys of 6 dimensions: keys (3, 2, 6), query (3, 1, 6)",
                (randn(53, &[3, 2, 6])?, randn(54, &[3, 1, 6])?),
            )
            .sizes(&[("d_k", 6), ("L", 2)]),
            Case::new(
                "a batch of 2, 7 keys of 11 dimensions: keys (2, 7, 11), query (2, 1, 11)",
                (randn(55, &[2, 7, 11])?, randn(56, &[2, 1, 11])?),
            )
            .sizes(&[("d_k", 11), ("L", 7)]),
        ])
    }

    fn reference((k, q): &Self::Input) -> Result<Tensor> {
        calc_alphas(k, q)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The products are not scaled: divide them by sqrt(d_k) before the softmax.",
                answer: |(k, q)| softmax(&dot_products(q, k)?),
            },
            Mistake {
                sentence: "The products are divided by d_k itself: the scale is its square root, sqrt(d_k).",
                answer: |(k, q)| softmax(&(dot_products(q, k)? / q.dim(D::Minus1)? as f64)?),
            },
            Mistake {
                sentence: "The scale comes from the number of keys: d_k is the number of dimensions, the query's last dimension.",
                answer: |(k, q)| softmax(&(dot_products(q, k)? / (k.dim(1)? as f64).sqrt())?),
            },
            Mistake {
                sentence: "The products are multiplied by sqrt(d_k): divide them by it.",
                answer: |(k, q)| softmax(&(dot_products(q, k)? * (q.dim(D::Minus1)? as f64).sqrt())?),
            },
            Mistake {
                sentence: "The square root of d_k was rounded down to a whole number: divide by the exact sqrt(d_k), a float.",
                answer: |(k, q)| softmax(&(dot_products(q, k)? / (q.dim(D::Minus1)? as f64).sqrt().floor())?),
            },
            Mistake {
                sentence: "The division by sqrt(d_k) comes after the softmax: divide the products first, then take their softmax.",
                answer: |(k, q)| softmax(&dot_products(q, k)?)? / (q.dim(D::Minus1)? as f64).sqrt(),
            },
            Mistake {
                sentence: "The softmax runs over the queries' dimension, of size one, so every alpha is 1: take it over the keys, the last dimension.",
                answer: |(k, q)| candle_nn::ops::softmax(&(dot_products(q, k)? / (q.dim(D::Minus1)? as f64).sqrt())?, 1),
            },
        ]
    }
}

impl Q4 {
    /// Checks `f(keys (N, L, H), query (N, 1, H)) -> alphas (N, 1, L)`, the arguments in the
    /// lecture's order.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>) -> Outcome {
        Self::run(|(k, q)| f(k, q))
    }
}
