//! BLEU as sacrebleu 2.x computes it: its `13a` tokenizer, clipped 1- to 4-gram counts, the
//! brevity penalty against the closest reference length, and its smoothing methods. With the
//! defaults, [`corpus_bleu`] is `sacrebleu.corpus_bleu(hyps, [refs])` and [`sentence_bleu`] is
//! `sacrebleu.sentence_bleu(hyp, [ref])` (`exp` smoothing, effective order), equal to its numbers
//! (`tests/bleu.rs` checks 436 pairs). [`BleuConfig`] gives the other options: several references
//! per hypothesis, `none`, `floor` and `add-k` smoothing, lower-casing, no tokenizer.

use super::tokenize_13a::{is_python_space, split_python, tokenize_13a};
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::Result;
use std::collections::HashMap;
use std::fmt;

/// The largest n-gram order BLEU counts (sacrebleu's `MAX_NGRAM_ORDER`).
pub const MAX_NGRAM_ORDER: usize = 4;

/// A BLEU score with its statistics, as sacrebleu's `BLEUScore`; `Display` prints it as sacrebleu
/// does: `BLEU = 34.12 65.2/40.1/27.3/19.0 (BP = 0.982 ratio = 0.982 hyp_len = 1234 ref_len = 1257)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bleu {
    /// BLEU, from 0 to 100.
    pub score: f64,
    /// The (smoothed) 1- to 4-gram precisions, in percent.
    pub precisions: [f64; MAX_NGRAM_ORDER],
    /// The brevity penalty, `exp(1 - ref_len / sys_len)` when the output is shorter, else 1.
    pub bp: f64,
    /// The number of hypothesis tokens.
    pub sys_len: usize,
    /// The number of reference tokens (for each hypothesis, the reference closest in length).
    pub ref_len: usize,
    /// The clipped n-gram matches of each order (before any `add-k` smoothing).
    pub counts: [usize; MAX_NGRAM_ORDER],
    /// The hypothesis n-grams of each order (before any `add-k` smoothing).
    pub totals: [usize; MAX_NGRAM_ORDER],
}

impl Bleu {
    /// `sys_len / ref_len`, or 0 when the references are empty.
    pub fn ratio(&self) -> f64 {
        if self.ref_len == 0 { 0.0 } else { self.sys_len as f64 / self.ref_len as f64 }
    }
}

impl fmt::Display for Bleu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [p1, p2, p3, p4] = self.precisions;
        write!(
            f,
            "BLEU = {:.2} {p1:.1}/{p2:.1}/{p3:.1}/{p4:.1} (BP = {:.3} ratio = {:.3} hyp_len = {} ref_len = {})",
            self.score,
            self.bp,
            self.ratio(),
            self.sys_len,
            self.ref_len
        )
    }
}

/// How an n-gram order without a match counts (sacrebleu's `smooth_method` and `smooth_value`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smooth {
    /// `none`: an order without a match makes BLEU 0.
    None,
    /// `floor`: an order without a match gets the precision `value / total` (sacrebleu: 0.1).
    Floor(f64),
    /// `add-k`: `k` is added to the matches and totals of orders 2 to 4 (sacrebleu: 1).
    AddK(f64),
    /// `exp` (NIST's, mteval-v13a's): the i-th order without a match gets `1 / (2^i * total)`.
    Exp,
}

/// How sentences are split into tokens before counting n-grams (sacrebleu's `tokenize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    /// `13a`, sacrebleu's default (mteval-v13a's): see [`tokenize_13a`].
    V13a,
    /// `none`: split on whitespace only.
    None,
}

/// sacrebleu's `BLEU(...)` options; [`BleuConfig::corpus`] and [`BleuConfig::sentence`] are the
/// defaults of `corpus_bleu` and `sentence_bleu`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BleuConfig {
    /// The smoothing method.
    pub smooth: Smooth,
    /// Average only the orders up to the last one the hypotheses have n-grams of.
    pub effective_order: bool,
    /// Lower-case hypotheses and references first (Rust's `to_lowercase`, Python's `str.lower`
    /// but for a few special cases).
    pub lowercase: bool,
    /// The tokenizer (not used by [`BleuConfig::corpus_score_tokens`]).
    pub tokenizer: Tokenizer,
}

impl Default for BleuConfig {
    fn default() -> Self {
        BleuConfig::corpus()
    }
}

impl BleuConfig {
    /// `sacrebleu.corpus_bleu`'s defaults: `exp` smoothing, all four orders, `13a`, mixed case.
    pub fn corpus() -> Self {
        BleuConfig { smooth: Smooth::Exp, effective_order: false, lowercase: false, tokenizer: Tokenizer::V13a }
    }

    /// `sacrebleu.sentence_bleu`'s defaults: `exp` smoothing with the effective order.
    pub fn sentence() -> Self {
        BleuConfig { effective_order: true, ..BleuConfig::corpus() }
    }

    /// Corpus BLEU of `hypotheses` against one or several references each (`references[i]` are
    /// those of `hypotheses[i]`; the closest in length counts for the brevity penalty).
    #[errors_as]
    pub fn corpus_score<H: AsRef<str>, Rs: AsRef<[R]>, R: AsRef<str>>(&self, hypotheses: &[H], references: &[Rs]) -> Result<Bleu> {
        self.check_strings(hypotheses.len(), references)?;
        Ok(self.strings(hypotheses, references))
    }

    /// Sentence BLEU of one hypothesis against one or several references.
    #[errors_as]
    pub fn sentence_score<R: AsRef<str>>(&self, hypothesis: &str, references: &[R]) -> Result<Bleu> {
        self.check_strings(1, &[references])?;
        Ok(self.strings(&[hypothesis], &[references]))
    }

    /// Corpus BLEU of already tokenized hypotheses against one tokenized reference each: the
    /// tokens are counted as given (no tokenizer, no lower-casing).
    #[errors_as]
    pub fn corpus_score_tokens<Hs: AsRef<[H]>, H: AsRef<str>, Rs: AsRef<[R]>, R: AsRef<str>>(
        &self,
        hypotheses: &[Hs],
        references: &[Rs],
    ) -> Result<Bleu> {
        check_sizes(hypotheses.len(), references.len())?;
        self.check_smooth()?;
        Ok(self.tokens(hypotheses, references))
    }

    /// Checks `hypotheses` hypotheses against their references (as many, none empty), then the
    /// smoothing value.
    fn check_strings<Rs: AsRef<[R]>, R: AsRef<str>>(&self, hypotheses: usize, references: &[Rs]) -> Result<()> {
        check_sizes(hypotheses, references.len())?;
        if let Some(i) = references.iter().position(|refs| refs.as_ref().is_empty()) {
            return Err(invalid(format!("hypothesis {i} has no reference")));
        }
        self.check_smooth()
    }

    /// Checks the smoothing value of `floor` and `add-k`: finite and non-negative.
    fn check_smooth(&self) -> Result<()> {
        if let Smooth::Floor(v) | Smooth::AddK(v) = self.smooth
            && !(v.is_finite() && v >= 0.0)
        {
            return Err(invalid(format!("the smoothing value must be finite and non-negative, got {v}")));
        }
        Ok(())
    }

    /// BLEU of checked sentences, tokenized by the config's tokenizer.
    fn strings<H: AsRef<str>, Rs: AsRef<[R]>, R: AsRef<str>>(&self, hypotheses: &[H], references: &[Rs]) -> Bleu {
        let mut stats = Stats::default();
        for (hyp, refs) in hypotheses.iter().zip(references) {
            let refs: Vec<String> = refs.as_ref().iter().map(|r| self.preprocess(r.as_ref())).collect();
            let refs: Vec<Vec<&str>> = refs.iter().map(|r| split_python(r)).collect();
            let hyp = self.preprocess(hyp.as_ref());
            stats.add(&segment_stats(&split_python(&hyp), &refs));
        }
        compute_bleu(&stats, self)
    }

    /// BLEU of checked token lists, counted as given.
    fn tokens<Hs: AsRef<[H]>, H: AsRef<str>, Rs: AsRef<[R]>, R: AsRef<str>>(&self, hypotheses: &[Hs], references: &[Rs]) -> Bleu {
        let mut stats = Stats::default();
        for (hyp, reference) in hypotheses.iter().zip(references) {
            let hyp: Vec<&str> = hyp.as_ref().iter().map(AsRef::as_ref).collect();
            let reference: Vec<&str> = reference.as_ref().iter().map(AsRef::as_ref).collect();
            stats.add(&segment_stats(&hyp, &[reference]));
        }
        compute_bleu(&stats, self)
    }

    /// sacrebleu's `_preprocess_segment`: lower-case if asked, strip trailing whitespace, tokenize.
    fn preprocess(&self, sentence: &str) -> String {
        let lowered;
        let sentence = if self.lowercase {
            lowered = sentence.to_lowercase();
            &lowered
        } else {
            sentence
        };
        let sentence = sentence.trim_end_matches(is_python_space);
        match self.tokenizer {
            Tokenizer::V13a => tokenize_13a(sentence),
            Tokenizer::None => sentence.to_string(),
        }
    }
}

/// Corpus BLEU with sacrebleu's defaults (`sacrebleu.corpus_bleu(hypotheses, [references])`):
/// `13a` tokens, 1- to 4-grams, `exp` smoothing, one reference per hypothesis.
///
/// # Errors
/// When the numbers of hypotheses and references differ, or the corpus is empty.
#[errors_as]
pub fn corpus_bleu<H: AsRef<str>, R: AsRef<str>>(hypotheses: &[H], references: &[R]) -> Result<Bleu> {
    check_sizes(hypotheses.len(), references.len())?;
    let references: Vec<[&str; 1]> = references.iter().map(|r| [r.as_ref()]).collect();
    Ok(BleuConfig::corpus().strings(hypotheses, &references))
}

/// Sentence BLEU with sacrebleu's defaults (`sacrebleu.sentence_bleu(hypothesis, [reference])`):
/// `13a` tokens, `exp` smoothing and the effective order (orders the hypothesis is too short
/// for are left out).
pub fn sentence_bleu(hypothesis: &str, reference: &str) -> Result<Bleu> {
    Ok(BleuConfig::sentence().strings(&[hypothesis], &[[reference]]))
}

/// Corpus BLEU of already tokenized output (a translation model's decoded tokens) against one
/// tokenized reference each, with the corpus defaults (`exp` smoothing) and no tokenizer: the
/// tokens are counted as given.
///
/// # Errors
/// When the numbers of hypotheses and references differ, or the corpus is empty.
#[errors_as]
pub fn corpus_bleu_tokens<Hs: AsRef<[H]>, H: AsRef<str>, Rs: AsRef<[R]>, R: AsRef<str>>(
    hypotheses: &[Hs],
    references: &[Rs],
) -> Result<Bleu> {
    check_sizes(hypotheses.len(), references.len())?;
    Ok(BleuConfig::corpus().tokens(hypotheses, references))
}

/// Checks that every hypothesis has its reference, and that there is at least one.
fn check_sizes(hypotheses: usize, references: usize) -> Result<()> {
    if hypotheses != references {
        return Err(invalid(format!("{hypotheses} hypotheses but {references} references; every hypothesis needs its reference")));
    }
    if hypotheses == 0 {
        return Err(invalid("the corpus is empty (0 hypotheses, 0 references); BLEU needs at least one pair"));
    }
    Ok(())
}

/// The sufficient statistics of BLEU, summed over segments.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    sys_len: usize,
    ref_len: usize,
    correct: [usize; MAX_NGRAM_ORDER],
    total: [usize; MAX_NGRAM_ORDER],
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.sys_len += other.sys_len;
        self.ref_len += other.ref_len;
        for n in 0..MAX_NGRAM_ORDER {
            self.correct[n] += other.correct[n];
            self.total[n] += other.total[n];
        }
    }
}

/// Every 1- to 4-gram of `tokens` with its count.
fn ngrams<'a, 'b>(tokens: &'b [&'a str]) -> HashMap<&'b [&'a str], usize> {
    let mut out = HashMap::new();
    for n in 1..=MAX_NGRAM_ORDER {
        for gram in tokens.windows(n) {
            *out.entry(gram).or_insert(0) += 1;
        }
    }
    out
}

/// sacrebleu's `_compute_segment_statistics`: n-gram matches clipped by the largest count in
/// any reference, and the reference length closest to the hypothesis's (the shorter on a tie).
fn segment_stats(hyp: &[&str], refs: &[Vec<&str>]) -> Stats {
    let mut ref_counts: HashMap<&[&str], usize> = HashMap::new();
    let mut closest: Option<(usize, usize)> = None;
    for reference in refs {
        for (gram, count) in ngrams(reference) {
            let best = ref_counts.entry(gram).or_insert(0);
            *best = (*best).max(count);
        }
        let diff = hyp.len().abs_diff(reference.len());
        closest = match closest {
            Some((d, len)) if d < diff || (d == diff && len <= reference.len()) => Some((d, len)),
            _ => Some((diff, reference.len())),
        };
    }
    let mut stats = Stats { sys_len: hyp.len(), ref_len: closest.map_or(0, |(_, len)| len), ..Stats::default() };
    for (gram, count) in ngrams(hyp) {
        let n = gram.len() - 1;
        stats.total[n] += count;
        stats.correct[n] += count.min(ref_counts.get(gram).copied().unwrap_or(0));
    }
    stats
}

/// sacrebleu's `my_log`: the logarithm, with log 0 taken as -9999999999.
fn my_log(x: f64) -> f64 {
    if x == 0.0 { -9_999_999_999.0 } else { x.ln() }
}

/// sacrebleu's `BLEU.compute_bleu`, step for step (the same floating-point operations in the
/// same order).
fn compute_bleu(stats: &Stats, config: &BleuConfig) -> Bleu {
    let (sys_len, ref_len) = (stats.sys_len, stats.ref_len);
    let bp = if sys_len >= ref_len {
        1.0
    } else if sys_len > 0 {
        (1.0 - ref_len as f64 / sys_len as f64).exp()
    } else {
        0.0
    };
    let mut bleu =
        Bleu { score: 0.0, precisions: [0.0; MAX_NGRAM_ORDER], bp, sys_len, ref_len, counts: stats.correct, totals: stats.total };
    if stats.correct.iter().all(|&c| c == 0) {
        return bleu;
    }
    let mut smooth_mteval = 1.0;
    let mut eff_order = MAX_NGRAM_ORDER;
    for n in 0..MAX_NGRAM_ORDER {
        let (mut correct, mut total) = (stats.correct[n] as f64, stats.total[n] as f64);
        if let Smooth::AddK(k) = config.smooth
            && n > 0
        {
            correct += k;
            total += k;
        }
        if total == 0.0 {
            break;
        }
        if config.effective_order {
            eff_order = n + 1;
        }
        if correct == 0.0 {
            match config.smooth {
                Smooth::Exp => {
                    smooth_mteval *= 2.0;
                    bleu.precisions[n] = 100.0 / (smooth_mteval * total);
                }
                Smooth::Floor(value) => bleu.precisions[n] = 100.0 * value / total,
                Smooth::None | Smooth::AddK(_) => {}
            }
        } else {
            bleu.precisions[n] = 100.0 * correct / total;
        }
    }
    let log_sum = bleu.precisions[..eff_order].iter().fold(0.0, |sum, &p| sum + my_log(p));
    bleu.score = bp * (log_sum / eff_order as f64).exp();
    bleu
}
