//! A trained translation model with its two vocabularies: sentences in, translations out, greedy
//! or by beam search, BLEU on a test split, and the attention of one translated sentence.

use super::bleu::{Bleu, corpus_bleu};
use super::decoding::{BeamConfig, beam_search, greedy_decode};
use crate::data::text::{EOS_ID, SOS_ID, pad_rows};
use crate::data::{Vocab, detokenize, tokenize};
use crate::models::special_ids::check_padding_id;
use crate::models::translate::in_eval;
use crate::models::{AttentionMaps, SentenceAttention, SentenceTerms, Transformer, Translate};
use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::train::quick::{QUICK_PAIRS, quick_limit};
use candle_core::{Device, Result, Tensor};

/// A translation model and its vocabularies: the [`Transformer`] (the default), or any other
/// [`Translate`] model such as the recurrent translators. Sentences are tokenized as the training
/// pairs were ([`tokenize`]: lower case, punctuation split off); words the source vocabulary lacks
/// become `<unk>`.
#[derive(Clone, Debug)]
pub struct Translator<M = Transformer> {
    pub model: M,
    pub src_vocab: Vocab,
    pub tgt_vocab: Vocab,
    /// The longest translation, in tokens: 48 by default, or the model's `max_len` where smaller;
    /// set it with [`with_max_len`](Self::with_max_len), which checks it.
    pub max_len: usize,
    /// Sentences decoded at once (default 100).
    pub batch_size: usize,
    /// Score at most this many pairs in [`Translator::bleu`] (the first ones), and say so when
    /// it cuts. `None` (the default) scores them all; the quick switch
    /// ([`quick`](crate::train::quick)) starts it at [`QUICK_PAIRS`].
    pub max_pairs: Option<usize>,
}

/// The longest translation when the user does not choose one (or the model's `max_len`, where
/// smaller).
const DEFAULT_MAX_LEN: usize = 48;

impl<M: Translate> Translator<M> {
    /// The model and its vocabularies. Checks that they fit: the target vocabulary names every id
    /// the model outputs (at least [`Translate::tgt_vocab`] tokens), the source vocabulary gives
    /// only ids the model embeds (at most its source size, where it says), and the model's
    /// `pad_id`, if any, is the padding id the vocabularies and the batches use
    /// ([`PAD_ID`](crate::models::PAD_ID)), inside the target vocabulary. `max_len` starts at 48,
    /// or at the model's `max_len` where that is smaller.
    #[errors_as("Translator::new")]
    pub fn new(model: M, src_vocab: Vocab, tgt_vocab: Vocab) -> Result<Self> {
        check_vocabularies(&model, &src_vocab, &tgt_vocab)?;
        let max_len = model.max_len().map_or(DEFAULT_MAX_LEN, |m| m.min(DEFAULT_MAX_LEN));
        Ok(Translator { model, src_vocab, tgt_vocab, max_len, batch_size: 100, max_pairs: quick_limit(QUICK_PAIRS) })
    }

    /// Sets the longest translation, in tokens: at least 1, and within the model's `max_len`
    /// where it has one.
    #[errors_as]
    pub fn with_max_len(mut self, max_len: usize) -> Result<Self> {
        check_max_len(max_len, self.model.max_len())?;
        self.max_len = max_len;
        Ok(self)
    }

    /// A padded batch of source ids `(N, S)`; `module`, the public item called, is the name
    /// [`pad_rows`] puts on its errors.
    fn sources<S: AsRef<str>>(&self, module: &str, sentences: &[S]) -> Result<Tensor> {
        let ids: Vec<Vec<u32>> = sentences.iter().map(|s| self.src_vocab.encode(&tokenize(s.as_ref()), false)).collect();
        if let Some(k) = ids.iter().position(|s| s.is_empty()) {
            return Err(invalid(format!("sentence {k} has no tokens")));
        }
        let width = ids.iter().map(Vec::len).max().unwrap_or(0);
        if let Some(max_len) = self.model.max_len().filter(|&m| width > m) {
            return Err(invalid(format!("a sentence of {width} tokens is longer than the model's max_len {max_len}")));
        }
        pad_rows(module, &ids)
    }

    fn words(&self, ids: &[u32]) -> Result<String> {
        Ok(detokenize(&self.tgt_vocab.decode(ids)?))
    }

    /// Translates `sentences` in batches: greedily, or by beam search with `beam_width`.
    /// `module`: the public item called, for [`Translator::sources`].
    fn translate<S: AsRef<str>>(&mut self, module: &str, sentences: &[S], beam_width: Option<usize>) -> Result<Vec<String>> {
        check_max_len(self.max_len, self.model.max_len())?;
        let mut out = vec![];
        for chunk in sentences.chunks(self.batch_size.max(1)) {
            let src = self.sources(module, chunk)?;
            let best: Vec<Vec<u32>> = match beam_width {
                None => greedy_decode(&mut self.model, &src, SOS_ID, EOS_ID, self.max_len)?,
                Some(width) => {
                    let config = BeamConfig::new(width, self.max_len);
                    let found = beam_search(&mut self.model, &src, SOS_ID, EOS_ID, &config)?;
                    let first = |hyps: Vec<_>| hyps.into_iter().next().map(|h: super::decoding::Hypothesis| h.tokens);
                    found
                        .into_iter()
                        .map(|h| first(h).ok_or_else(|| invalid("beam search returned no hypothesis")))
                        .collect::<Result<_>>()?
                }
            };
            for ids in best {
                out.push(self.words(&ids)?);
            }
        }
        Ok(out)
    }

    /// Greedy translations, one a sentence (none for no sentences).
    #[errors_as]
    pub fn greedy<S: AsRef<str>>(&mut self, sentences: &[S]) -> Result<Vec<String>> {
        self.translate("Translator::greedy", sentences, None)
    }

    /// The best beam-search translation of each sentence, with beams of `beam_width` (at least 1).
    #[errors_as]
    pub fn beam<S: AsRef<str>>(&mut self, sentences: &[S], beam_width: usize) -> Result<Vec<String>> {
        self.translate("Translator::beam", sentences, Some(beam_width))
    }

    /// Corpus BLEU of the translations of `pairs` (source, reference) against the references,
    /// tokenized the same way: greedy with `beam_width` 1, beam search with more (0 is refused).
    /// With [`max_pairs`](Self::max_pairs) set, only the first pairs, with a line saying so.
    #[errors_as]
    pub fn bleu<S: AsRef<str>, T: AsRef<str>>(&mut self, pairs: &[(S, T)], beam_width: usize) -> Result<Bleu> {
        if beam_width == 0 {
            return Err(invalid("beam_width must be at least 1 (1: greedy decoding), got 0"));
        }
        let pairs = match self.max_pairs {
            Some(m) if m < pairs.len() => {
                println!("Translator::bleu: the first {m} of {} pairs (max_pairs)", pairs.len());
                &pairs[..m]
            }
            _ => pairs,
        };
        let sources: Vec<&str> = pairs.iter().map(|(s, _)| s.as_ref()).collect();
        let references: Vec<String> = pairs.iter().map(|(_, t)| detokenize(&tokenize(t.as_ref()))).collect();
        let hypotheses = self.translate("Translator::bleu", &sources, (beam_width > 1).then_some(beam_width))?;
        corpus_bleu(&hypotheses, &references)
    }

    /// Source and target token names of one sentence's ids.
    fn token_names(&self, src: &Tensor, tgt_ids: &[u32]) -> Result<(Vec<String>, Vec<String>)> {
        let names =
            |vocab: &Vocab, ids: &[u32]| -> Result<Vec<String>> { ids.iter().map(|&i| vocab.token(i).map(str::to_string)).collect() };
        Ok((names(&self.src_vocab, &src.flatten_all()?.to_vec1::<u32>()?)?, names(&self.tgt_vocab, tgt_ids)?))
    }

    /// `<sos>` and the greedy translation of the one sentence in `src`, or `<sos>` and the given
    /// target's ids.
    fn target_ids(&mut self, src: &Tensor, target: Option<&str>) -> Result<Vec<u32>> {
        let limit = self.model.max_len();
        let ids = match target {
            Some(t) => {
                let ids = self.tgt_vocab.encode(&tokenize(t), false);
                let out = self.model.tgt_vocab();
                if let Some((k, &id)) = ids.iter().enumerate().find(|&(_, &id)| id as usize >= out) {
                    let word = self.tgt_vocab.token(id)?;
                    return Err(invalid(format!("target token {k} `{word}` has id {id}, beyond the model's {out} target ids")));
                }
                if let Some(l) = limit.filter(|&l| ids.len() >= l) {
                    return Err(invalid(format!("the target has {} tokens: with <sos>, more than the model's max_len {l}", ids.len())));
                }
                ids
            }
            None => {
                // The decoder then reads `<sos>` and the whole translation: one id more than the
                // translation, so within the model's limit the translation is one token shorter.
                let room = limit.map_or(self.max_len, |l| self.max_len.min(l.saturating_sub(1)));
                if room == 0 {
                    return Err(invalid("the model's max_len 1 leaves no room for a translation after <sos>"));
                }
                greedy_decode(&mut self.model, src, SOS_ID, EOS_ID, room)?.remove(0)
            }
        };
        Ok(std::iter::once(SOS_ID).chain(ids).collect())
    }

    /// The attention of one sentence (see [`Translate::sentence_attention`]), with the source
    /// tokens and the target tokens the decoder read: `<sos>` and the greedy translation, or
    /// `<sos>` and `target` where given (teacher forcing on a reference, so that several models
    /// can be compared on the same words). The model runs in evaluation mode.
    #[errors_as]
    pub fn sentence_attention(&mut self, sentence: &str, target: Option<&str>) -> Result<(SentenceAttention, Vec<String>, Vec<String>)> {
        self.attention_of("Translator::sentence_attention", sentence, target)
    }

    /// The terms of the scores of [`sentence_attention`](Self::sentence_attention)'s pass (the
    /// explorer's neuron view), with the source and target tokens: every layer's and head's for
    /// the Transformer, the decoder's one attention for a recurrent translator that gives them.
    #[errors_as]
    pub fn sentence_terms(&mut self, sentence: &str, target: Option<&str>) -> Result<(SentenceTerms, Vec<String>, Vec<String>)> {
        self.pass_of("Translator::sentence_terms", sentence, target, |m, src, tgt| m.sentence_terms(src, tgt))
    }

    /// `module`: the public item called, for [`Translator::sources`]; `f`: what the model gives
    /// of a teacher-forced pass over the sentence and its target (in evaluation mode).
    fn pass_of<T>(
        &mut self,
        module: &str,
        sentence: &str,
        target: Option<&str>,
        f: impl FnOnce(&mut M, &Tensor, &Tensor) -> Result<T>,
    ) -> Result<(T, Vec<String>, Vec<String>)> {
        if target.is_none() {
            check_max_len(self.max_len, self.model.max_len())?;
        }
        let src = self.sources(module, &[sentence])?;
        let tgt_ids = self.target_ids(&src, target)?;
        let tgt = Tensor::from_vec(tgt_ids.clone(), (1, tgt_ids.len()), &Device::Cpu)?;
        let given = in_eval(&mut self.model, |m| f(m, &src, &tgt))?;
        let (src_tokens, tgt_tokens) = self.token_names(&src, &tgt_ids)?;
        Ok((given, src_tokens, tgt_tokens))
    }

    /// `module`: the public item called, for [`Translator::sources`].
    fn attention_of(
        &mut self,
        module: &str,
        sentence: &str,
        target: Option<&str>,
    ) -> Result<(SentenceAttention, Vec<String>, Vec<String>)> {
        self.pass_of(module, sentence, target, |m, src, tgt| m.sentence_attention(src, tgt))
    }

    /// For a translator that attends once a step (the recurrent ones): the weights of each
    /// target step over the source tokens `(T, S)`, the source tokens and the target tokens, as
    /// [`sentence_attention`](Self::sentence_attention) gives them.
    #[errors_as]
    pub fn alphas(&mut self, sentence: &str, target: Option<&str>) -> Result<(Tensor, Vec<String>, Vec<String>)> {
        match self.attention_of("Translator::alphas", sentence, target)? {
            (SentenceAttention::Source(alphas), src, tgt) => Ok((alphas.squeeze(0)?, src, tgt)),
            (SentenceAttention::Maps(_), ..) => Err(invalid("this model has one map per layer and head: use Translator::attention")),
        }
    }

    /// For a translator with attention maps (the Transformer): translates one sentence greedily
    /// and runs the model once more on it with its translation as the target, giving the maps of
    /// that pass, the source tokens and the target tokens (`<sos>` and the translation), as the
    /// notebook's `show_cross_attention` takes them.
    #[errors_as]
    pub fn attention(&mut self, sentence: &str) -> Result<(AttentionMaps, Vec<String>, Vec<String>)> {
        match self.attention_of("Translator::attention", sentence, None)? {
            (SentenceAttention::Maps(maps), src, tgt) => Ok((maps, src, tgt)),
            (SentenceAttention::Source(_), ..) => Err(invalid("this model attends once a step: use Translator::alphas")),
        }
    }
}

/// Checks that a model and its vocabularies fit (see [`Translator::new`]).
fn check_vocabularies<M: Translate>(model: &M, src_vocab: &Vocab, tgt_vocab: &Vocab) -> Result<()> {
    let (out, words) = (model.tgt_vocab(), tgt_vocab.len());
    if words < out {
        return Err(invalid(format!(
            "tgt_vocab has {words} tokens but the model outputs {out} (its tgt_vocab): ids {words}..{out} would have no word"
        )));
    }
    if let Some(size) = model.src_vocab().filter(|&size| src_vocab.len() > size) {
        let words = src_vocab.len();
        return Err(invalid(format!(
            "src_vocab has {words} tokens but the model embeds {size} (its src_vocab): ids {size}..{words} would be out of range"
        )));
    }
    if let Some(pad) = model.pad_id() {
        check_padding_id(pad, out, "the vocabularies and batches")?;
    }
    Ok(())
}

/// Checks a translator's [`max_len`](Translator::max_len) (which may have been set directly)
/// against the model's, `limit`.
fn check_max_len(max_len: usize, limit: Option<usize>) -> Result<()> {
    if max_len == 0 {
        return Err(invalid("max_len must be at least 1 target token, got 0"));
    }
    match limit {
        Some(limit) if max_len > limit => {
            Err(invalid(format!("max_len {max_len} is more than the model's max_len {limit} (the longest target it takes)")))
        }
        _ => Ok(()),
    }
}
