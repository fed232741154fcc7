//! Beam search: keep the `beam_width` most likely prefixes of every sentence, extend each by every
//! token, keep the best again, until the beams have ended or `max_len` tokens.

use super::support::{check_request, for_each_row, log_sum_exp, prefix_tensor};
use crate::models::translate::{Translate, in_eval};
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::{Result, Tensor};

/// How a hypothesis' score is normalised by its length `len` (the tokens its log-probability sums
/// over: the produced tokens plus `<eos>` when it ended): `normalised = score / penalty(len)`.
/// Log-probabilities are negative, so a larger penalty favours longer hypotheses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum LengthPenalty {
    /// No normalisation: `penalty = 1`, hypotheses compete on their summed log-probability.
    #[default]
    None,
    /// GNMT's (Wu et al., 2016): `penalty = ((5 + len) / 6)^alpha`; `alpha` 0.6 to 0.7 is usual.
    Gnmt { alpha: f64 },
    /// `penalty = len^alpha` (`alpha = 1`: the mean log-probability per token).
    Power { alpha: f64 },
}

impl LengthPenalty {
    /// The divisor of a hypothesis of `len` tokens (`len = 0` counts as 1 for `Power`).
    pub fn penalty(&self, len: usize) -> f64 {
        match *self {
            LengthPenalty::None => 1.0,
            LengthPenalty::Gnmt { alpha } => ((5.0 + len as f64) / 6.0).powf(alpha),
            LengthPenalty::Power { alpha } => (len.max(1) as f64).powf(alpha),
        }
    }
}

/// The knobs of [`beam_search`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BeamConfig {
    /// Prefixes kept per sentence at every step (1: greedy decoding). At least 1.
    pub beam_width: usize,
    /// The most target tokens a hypothesis holds (not counting `<sos>`). At least 1.
    pub max_len: usize,
    /// How scores are normalised by length before hypotheses are ranked.
    pub length_penalty: LengthPenalty,
    /// Hypotheses returned per sentence, best first: `1..=beam_width`.
    pub n_best: usize,
}

impl BeamConfig {
    /// `beam_width` beams of at most `max_len` tokens, no length penalty, the best hypothesis only.
    pub fn new(beam_width: usize, max_len: usize) -> Self {
        BeamConfig { beam_width, max_len, length_penalty: LengthPenalty::None, n_best: 1 }
    }
}

/// One decoded target sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Hypothesis {
    /// The target ids, without `<sos>` and without `<eos>`.
    pub tokens: Vec<u32>,
    /// The model's score: the sum of the log-probabilities of `tokens` and, if `finished`, of `<eos>`.
    pub score: f64,
    /// `score / length_penalty.penalty(len)`, with `len = tokens.len() + finished as usize`: what
    /// hypotheses are ranked by.
    pub normalised: f64,
    /// Whether the hypothesis ended with `<eos>` (otherwise it reached `max_len`).
    pub finished: bool,
}

/// Beam search over every source sentence, all sentences at once: at every step the live beams of
/// every sentence still searching are the rows of one batch, decoded by one call of the model
/// (which may keep its key/value cache: each beam's row is its parent's, extended by a token). The
/// source is encoded once. Each sentence's search is the one it would have alone. The model runs
/// in evaluation mode and is put back in the mode it was in.
///
/// At every step each live beam is extended by every token; the candidates are ranked by their
/// summed log-probability (ties: the earlier beam, then the smaller id). Going down that ranking, a
/// candidate ending in `<eos>` among the first `beam_width` becomes a finished hypothesis, the
/// others fill the next `beam_width` beams (so `beam_width = 1` is exactly
/// [`greedy_decode`](super::greedy_decode)). The search stops early once `beam_width` hypotheses
/// have finished (every beam ended); after `max_len` steps the live beams join as unfinished
/// hypotheses. The best `n_best` of all, by normalised score (ties: the earlier found), are
/// returned. Beam search is a heuristic: nothing guarantees it finds the most likely target, nor in
/// general that a wider beam scores higher than greedy decoding, though it usually does.
///
/// Errors name `beam_search` and the sizes: those of [`greedy_decode`](super::greedy_decode), and a
/// `beam_width` of 0, an `n_best` outside `1..=beam_width` or a length penalty's `alpha` that is
/// not finite.
///
/// A search frees and makes the same tensors at every step: a program that decodes much may opt
/// into [`crate::tuning::keep_freed_memory`] (the notebook kernel does).
///
/// # Shapes
/// - `src`: source ids `(N, S)`
/// - returns `N` lists of `n_best` hypotheses, best first
#[errors_as]
pub fn beam_search<M: Translate>(model: &mut M, src: &Tensor, sos: u32, eos: u32, config: &BeamConfig) -> Result<Vec<Vec<Hypothesis>>> {
    check_config(config)?;
    let (n, _) = check_request(model, src, sos, eos, config.max_len)?;
    if n == 0 {
        return Ok(vec![]);
    }
    in_eval(model, |m| search(m, src, n, sos, eos, config))
}

/// Checks a beam search's knobs: `beam_width >= 1`, `n_best` in `1..=beam_width`, a finite `alpha`.
fn check_config(config: &BeamConfig) -> Result<()> {
    if config.beam_width == 0 {
        return Err(invalid("beam_width must be at least 1, got 0"));
    }
    if config.n_best == 0 || config.n_best > config.beam_width {
        return Err(invalid(format!("n_best {} must lie in 1..={} (the beam_width)", config.n_best, config.beam_width)));
    }
    match config.length_penalty {
        LengthPenalty::Gnmt { alpha } | LengthPenalty::Power { alpha } if !alpha.is_finite() => {
            Err(invalid(format!("the length penalty's alpha must be finite, got {alpha}")))
        }
        _ => Ok(()),
    }
}

/// A live beam: the tokens after `<sos>` and their summed log-probability.
struct Beam {
    tokens: Vec<u32>,
    score: f64,
}

fn hypothesis(tokens: Vec<u32>, score: f64, finished: bool, penalty: &LengthPenalty) -> Hypothesis {
    let normalised = score / penalty.penalty(tokens.len() + finished as usize);
    Hypothesis { tokens, score, normalised, finished }
}

/// One sentence's search: its live beams (empty once it has stopped) and the hypotheses found.
struct Search {
    beams: Vec<Beam>,
    found: Vec<Hypothesis>,
}

/// The beam search of all `n` sentences, the live beams of all as the rows of one state.
fn search<M: Translate>(model: &mut M, src: &Tensor, n: usize, sos: u32, eos: u32, config: &BeamConfig) -> Result<Vec<Vec<Hypothesis>>> {
    let device = src.device();
    let vocab = model.tgt_vocab();
    // Row i of the state is sentence i's one beam, `<sos>` alone.
    let mut state = model.encode_src(src)?;
    let mut searches: Vec<Search> = (0..n).map(|_| Search { beams: vec![Beam { tokens: vec![], score: 0.0 }], found: vec![] }).collect();
    for step in 0..config.max_len {
        let prefixes: Vec<Vec<u32>> =
            searches.iter().flat_map(|s| &s.beams).map(|b| std::iter::once(sos).chain(b.tokens.iter().copied()).collect()).collect();
        let logits = model.next_logits(&mut state, &prefix_tensor(&prefixes, device)?)?;
        let parents = advance_all(&logits, &mut searches, eos, config, vocab, step)?;
        if parents.is_empty() {
            break;
        }
        let k = parents.len();
        state = model.select_rows(&state, &Tensor::from_vec(parents, k, device)?)?;
    }
    Ok(searches.into_iter().map(|s| finish(s.found, s.beams, config)).collect())
}

// The search's own work (ranking every extension, keeping the best) is in the functions below,
// which take no model type: they are compiled once in the crate, at its opt-level, rather than
// again at the notebook cell's (at `:opt 0` the generic version took twice as long).

/// One step of every sentence still searching (`logits`: the next-token logits of their live
/// beams, sentence by sentence): returns the rows of the next state, the parent row of every new
/// beam.
fn advance_all(logits: &Tensor, searches: &mut [Search], eos: u32, config: &BeamConfig, vocab: usize, step: usize) -> Result<Vec<u32>> {
    let (width, penalty) = (config.beam_width, &config.length_penalty);
    // A sentence's loop below reads at most `2 * width` extensions (`width` beams, plus at most
    // one `<eos>` per beam skipped); each of them is among the best `2 * width` of its own beam.
    let read = width.saturating_mul(2);
    let scores: Vec<f64> = searches.iter().flat_map(|s| &s.beams).map(|b| b.score).collect();
    let mut best = Vec::with_capacity(scores.len());
    for_each_row(logits, scores.len(), vocab, step, |r, row| best.push(best_extensions(scores[r], row, read)))?;
    let (mut parents, mut offset) = (vec![], 0);
    for s in searches.iter_mut().filter(|s| !s.beams.is_empty()) {
        let k = s.beams.len();
        let next = advance(std::mem::take(&mut s.beams), &best[offset..offset + k], eos, width, read, penalty, &mut s.found);
        if s.found.len() < width {
            parents.extend(next.iter().map(|(parent, _)| (offset + parent) as u32));
            s.beams = next.into_iter().map(|(_, beam)| beam).collect();
        }
        offset += k;
    }
    Ok(parents)
}

/// The best `read` extensions of a beam scoring `score` whose next-token logits are `row`:
/// `(score + log_softmax(row)[v], v)`, best first, ties by the smaller id.
fn best_extensions(score: f64, row: &[f64], read: usize) -> Vec<(f64, u32)> {
    let log_sum = log_sum_exp(row);
    let mut best: Vec<(f64, u32)> = Vec::with_capacity(read + 1);
    for (v, x) in row.iter().enumerate() {
        let candidate = score + (x - log_sum);
        // Equal scores keep the smaller id first: a later id goes after them.
        if best.len() < read || best.last().is_some_and(|w| candidate.total_cmp(&w.0).is_gt()) {
            let at = best.partition_point(|e| e.0.total_cmp(&candidate).is_ge());
            best.insert(at, (candidate, v as u32));
            best.truncate(read);
        }
    }
    best
}

/// One sentence's step: extends its beams by every token (`best`: each beam's best extensions,
/// from [`best_extensions`]), adds the extensions that end in `<eos>` among the first `width` to
/// `found`, and returns the next beams, each with the index of the beam it extends.
fn advance(
    beams: Vec<Beam>,
    best: &[Vec<(f64, u32)>],
    eos: u32,
    width: usize,
    read: usize,
    penalty: &LengthPenalty,
    found: &mut Vec<Hypothesis>,
) -> Vec<(usize, Beam)> {
    // The extensions of every beam: (score, beam, token), best first, ties in beam-major,
    // id-minor order. The best `read` of the sentence are among the best `read` of each beam.
    let mut candidates: Vec<(f64, usize, u32)> =
        best.iter().enumerate().flat_map(|(b, row)| row.iter().map(move |&(score, v)| (score, b, v))).collect();
    candidates.sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    candidates.truncate(read);
    let mut next = Vec::with_capacity(width);
    for (rank, &(score, b, v)) in candidates.iter().enumerate() {
        if next.len() == width {
            break;
        }
        if v == eos {
            if rank < width {
                found.push(hypothesis(beams[b].tokens.clone(), score, true, penalty));
            }
        } else {
            let mut tokens = beams[b].tokens.clone();
            tokens.push(v);
            next.push((b, Beam { tokens, score }));
        }
    }
    next
}

/// The hypotheses found and the live beams left (unfinished), the best `n_best` first.
fn finish(mut found: Vec<Hypothesis>, beams: Vec<Beam>, config: &BeamConfig) -> Vec<Hypothesis> {
    found.extend(beams.into_iter().map(|b| hypothesis(b.tokens, b.score, false, &config.length_penalty)));
    found.sort_by(|x, y| y.normalised.total_cmp(&x.normalised));
    found.truncate(config.n_best);
    found
}

#[cfg(test)]
mod tests {
    use super::super::support::log_sum_exp;
    use super::best_extensions;

    /// Every extension of a row, sorted as the search ranks them (the whole row, no shortcut).
    fn ranked(score: f64, row: &[f64]) -> Vec<(f64, u32)> {
        let log_sum = log_sum_exp(row);
        let mut all: Vec<(f64, u32)> = row.iter().enumerate().map(|(v, x)| (score + (x - log_sum), v as u32)).collect();
        all.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        all
    }

    #[test]
    fn the_best_extensions_are_the_head_of_the_full_ranking_ties_by_smaller_id() {
        // Ties in the logits, ties made by rounding (1e-17 apart), infinities PyTorch accepts.
        let rows: [&[f64]; 5] = [
            &[0.5, 2.0, 2.0, -1.0, 2.0, 0.0, 2.0],
            &[1.0, 1.0 + 1e-17, 1.0, 1.0 - 1e-17, 0.25, 1.0],
            &[f64::NEG_INFINITY, 3.0, f64::NEG_INFINITY, -2.0],
            &[4.0],
            &[0.1, 0.7, 0.3, 0.9, 0.2, 0.8, 0.4, 0.6, 0.5, 0.0, 0.75, 0.85],
        ];
        for row in rows {
            for score in [0.0, -1.5, -1e-12] {
                for read in 1..=9 {
                    let full = ranked(score, row);
                    assert_eq!(best_extensions(score, row, read), full[..read.min(row.len())], "{row:?} {score} {read}");
                }
            }
        }
    }
}
