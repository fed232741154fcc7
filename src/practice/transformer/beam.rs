//! One step of beam search (the decoding the lecture leaves out): every live beam extended by
//! every token, the best `beam_width` extensions of all of them kept.

use crate::practice::cases::{Case, randn};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{D, Result, Tensor};
use candle_nn::ops::log_softmax;

/// The beams' summed log-probabilities `(k,)`, the next token's log-probabilities of each beam
/// `(k, V)`, and the beam width.
type BeamCase = (Tensor, Tensor, usize);

/// A new beam: its summed log-probability, the beam it extends, the token it adds.
type Extension = (f32, usize, u32);

exercise! {
    /// One step of beam search over the flattened candidates.
    q10: Q10 = Info {
        id: "04.q10",
        title: "one step of beam search",
        lecture: "ours",
        hints: &[
            "A candidate is a beam and a token: its score is the beam's score plus the token's log-probability in that beam's row, `scores[b] + log_probs[b][v]`.",
            "All k·V candidates compete together, not beam by beam: lay them out as one list (index b·V + v), sort it by score, highest first, and keep the first `beam_width`.",
            "From a flat index i of the (k, V) layout, the beam is `i / V` and the token `i % V`; `scores.unsqueeze(1)?.broadcast_add(log_probs)?` gives every score at once.",
        ],
        solution: solution!(transformer::beam_step),
    }
}

/// Case `seed`: `k` beams whose scores are `spread` apart, `v` tokens, width `width`.
fn beams(seed: u64, k: usize, v: usize, width: usize, spread: f64) -> Result<BeamCase> {
    // beam b's score: -b * spread, less a little noise (beam 0 the best)
    let steps = Tensor::arange(0f32, k as f32, &candle_core::Device::Cpu)?;
    let scores = ((steps * -spread)? - (randn(seed, &[k])?.abs()? * 0.2)?)?;
    Ok((scores, log_softmax(&(randn(seed + 1, &[k, v])? * 2.0)?, D::Minus1)?, width))
}

/// The extensions of every beam, `(score, beam, token)`, in the flat order `b * V + v`.
fn extensions((scores, log_probs, _): &BeamCase, add_scores: bool) -> Result<Vec<Extension>> {
    let (scores, rows) = (scores.to_vec1::<f32>()?, log_probs.to_vec2::<f32>()?);
    let mut out = vec![];
    for (b, row) in rows.iter().enumerate() {
        for (v, lp) in row.iter().enumerate() {
            out.push((if add_scores { scores[b] + lp } else { *lp }, b, v as u32));
        }
    }
    Ok(out)
}

/// The `width` best of `all`, highest score first (ties: the earlier in the flat order).
fn best(mut all: Vec<Extension>, width: usize) -> Vec<Extension> {
    all.sort_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    all.truncate(width);
    all
}

impl Exercise for Q10 {
    type Input = BeamCase;
    type Answer = Vec<Extension>;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("the first step: one beam (<sos> alone), 6 tokens, a width of 3", beams(101, 1, 6, 3, 0.0)?),
            Case::new("3 beams of close scores, 7 tokens, a width of 3", beams(102, 3, 7, 3, 0.3)?),
            Case::new("2 beams far apart, 5 tokens, a width of 4: the best beam gives most extensions", beams(104, 2, 5, 4, 3.0)?),
            Case::new("5 beams, 11 tokens, a width of 2", beams(106, 5, 11, 2, 1.0)?),
        ])
    }

    fn reference(c: &Self::Input) -> Result<Vec<Extension>> {
        Ok(best(extensions(c, true)?, c.2))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Vec<Extension>>> {
        vec![
            Mistake {
                sentence: "The candidates are ranked by the new token's log-probability alone: a candidate's score is its beam's score plus that log-probability.",
                answer: |c| Ok(best(extensions(c, false)?, c.2)),
            },
            Mistake {
                sentence: "Each beam kept its own best tokens: all k·V candidates compete together, so one strong beam may give every new beam.",
                answer: |c| {
                    let per_beam = c.2.div_ceil(c.0.dim(0)?);
                    let all = extensions(c, true)?;
                    let mut kept: Vec<Extension> = all.chunks(c.1.dim(1)?).flat_map(|row| best(row.to_vec(), per_beam)).collect();
                    kept.sort_by(|x, y| y.0.total_cmp(&x.0));
                    kept.truncate(c.2);
                    Ok(kept)
                },
            },
            Mistake {
                sentence: "Beam and token are swapped in the flat index: with the candidates laid out (k, V), the beam is index / V and the token index % V.",
                answer: |c| {
                    let v = c.1.dim(1)?;
                    Ok(best(extensions(c, true)?, c.2)
                        .into_iter()
                        .map(|(s, b, t)| {
                            let i = b * v + t as usize;
                            (s, i % v, (i / v) as u32)
                        })
                        .collect())
                },
            },
            Mistake {
                sentence: "The worst candidates were kept: sort the scores highest first (log-probabilities are negative, the best is the closest to 0).",
                answer: |c| {
                    let mut all = extensions(c, true)?;
                    all.sort_by(|x, y| x.0.total_cmp(&y.0));
                    all.truncate(c.2);
                    Ok(all)
                },
            },
        ]
    }
}

impl Q10 {
    /// Checks `f(scores (k,), log_probs (k, V), beam_width) -> Vec<(score, beam, token)>`, the
    /// `beam_width` best extensions of all beams, best first.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, usize) -> Result<Vec<Extension>>) -> Outcome {
        Self::run(|(s, lp, w)| f(s, lp, *w))
    }
}
