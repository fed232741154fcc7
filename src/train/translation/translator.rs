//! A trained translation model with its two vocabularies: sentences in, translations out, greedy
//! or by beam search, BLEU on a test split, and the attention of one translated sentence.

use super::bleu::{Bleu, corpus_bleu};
use super::decoding::{BeamConfig, beam_search, greedy_decode};
use crate::data::text::{EOS_ID, SOS_ID, pad_rows};
use crate::data::{Vocab, detokenize, tokenize};
use crate::models::translate::in_eval;
use crate::models::{AttentionMaps, SentenceAttention, Transformer, Translate};
use crate::nn::shape::error;
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
    /// The longest translation, in tokens (default 48).
    pub max_len: usize,
    /// Sentences decoded at once (default 100).
    pub batch_size: usize,
    /// Score at most this many pairs in [`Translator::bleu`] (the first ones), and say so when
    /// it cuts. `None` (the default) scores them all; the quick switch
    /// ([`quick`](crate::train::quick)) starts it at [`QUICK_PAIRS`].
    pub max_pairs: Option<usize>,
}

impl<M: Translate> Translator<M> {
    pub fn new(model: M, src_vocab: Vocab, tgt_vocab: Vocab) -> Self {
        Translator { model, src_vocab, tgt_vocab, max_len: 48, batch_size: 100, max_pairs: quick_limit(QUICK_PAIRS) }
    }

    /// A padded batch of source ids `(N, S)`.
    fn sources<S: AsRef<str>>(&self, sentences: &[S]) -> Result<Tensor> {
        let module = "Translator";
        let ids: Vec<Vec<u32>> = sentences.iter().map(|s| self.src_vocab.encode(&tokenize(s.as_ref()), false)).collect();
        if let Some(k) = ids.iter().position(|s| s.is_empty()) {
            return Err(error(module, format!("sentence {k} has no tokens")));
        }
        let width = ids.iter().map(Vec::len).max().unwrap_or(0);
        if let Some(max_len) = self.model.max_len().filter(|&m| width > m) {
            return Err(error(module, format!("a sentence of {width} tokens is longer than the model's max_len {max_len}")));
        }
        pad_rows(module, &ids)
    }

    fn words(&self, ids: &[u32]) -> Result<String> {
        Ok(detokenize(&self.tgt_vocab.decode(ids)?))
    }

    /// Greedy translations, one a sentence.
    pub fn greedy<S: AsRef<str>>(&mut self, sentences: &[S]) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(sentences.len());
        for chunk in sentences.chunks(self.batch_size.max(1)) {
            let src = self.sources(chunk)?;
            for ids in greedy_decode(&mut self.model, &src, SOS_ID, EOS_ID, self.max_len)? {
                out.push(self.words(&ids)?);
            }
        }
        Ok(out)
    }

    /// The best beam-search translation of each sentence, with beams of `beam_width`.
    pub fn beam<S: AsRef<str>>(&mut self, sentences: &[S], beam_width: usize) -> Result<Vec<String>> {
        let config = BeamConfig::new(beam_width, self.max_len);
        let mut out = Vec::with_capacity(sentences.len());
        for chunk in sentences.chunks(self.batch_size.max(1)) {
            let src = self.sources(chunk)?;
            for hyps in beam_search(&mut self.model, &src, SOS_ID, EOS_ID, &config)? {
                let best = hyps.first().ok_or_else(|| error("Translator::beam", "beam search returned no hypothesis"))?;
                out.push(self.words(&best.tokens)?);
            }
        }
        Ok(out)
    }

    /// Corpus BLEU of the translations of `pairs` (source, reference) against the references,
    /// tokenized the same way: greedy with `beam_width` 1, beam search otherwise. With
    /// [`max_pairs`](Self::max_pairs) set, only the first pairs, with a line saying so.
    pub fn bleu<S: AsRef<str>, T: AsRef<str>>(&mut self, pairs: &[(S, T)], beam_width: usize) -> Result<Bleu> {
        let pairs = match self.max_pairs {
            Some(m) if m < pairs.len() => {
                println!("Translator::bleu: the first {m} of {} pairs (max_pairs)", pairs.len());
                &pairs[..m]
            }
            _ => pairs,
        };
        let sources: Vec<&str> = pairs.iter().map(|(s, _)| s.as_ref()).collect();
        let references: Vec<String> = pairs.iter().map(|(_, t)| detokenize(&tokenize(t.as_ref()))).collect();
        let hypotheses = if beam_width <= 1 { self.greedy(&sources)? } else { self.beam(&sources, beam_width)? };
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
        let ids = match target {
            Some(t) => self.tgt_vocab.encode(&tokenize(t), false),
            None => greedy_decode(&mut self.model, src, SOS_ID, EOS_ID, self.max_len)?.remove(0),
        };
        Ok(std::iter::once(SOS_ID).chain(ids).collect())
    }

    /// The attention of one sentence (see [`Translate::sentence_attention`]), with the source
    /// tokens and the target tokens the decoder read: `<sos>` and the greedy translation, or
    /// `<sos>` and `target` where given (teacher forcing on a reference, so that several models
    /// can be compared on the same words). The model runs in evaluation mode.
    pub fn sentence_attention(&mut self, sentence: &str, target: Option<&str>) -> Result<(SentenceAttention, Vec<String>, Vec<String>)> {
        let src = self.sources(&[sentence])?;
        let tgt_ids = self.target_ids(&src, target)?;
        let tgt = Tensor::from_vec(tgt_ids.clone(), (1, tgt_ids.len()), &Device::Cpu)?;
        let attention = in_eval(&mut self.model, |m| m.sentence_attention(&src, &tgt))?;
        let (src_tokens, tgt_tokens) = self.token_names(&src, &tgt_ids)?;
        Ok((attention, src_tokens, tgt_tokens))
    }

    /// For a translator that attends once a step (the recurrent ones): the weights of each
    /// target step over the source tokens `(T, S)`, the source tokens and the target tokens, as
    /// [`sentence_attention`](Self::sentence_attention) gives them.
    pub fn alphas(&mut self, sentence: &str, target: Option<&str>) -> Result<(Tensor, Vec<String>, Vec<String>)> {
        match self.sentence_attention(sentence, target)? {
            (SentenceAttention::Source(alphas), src, tgt) => Ok((alphas.squeeze(0)?, src, tgt)),
            (SentenceAttention::Maps(_), ..) => {
                Err(error("Translator::alphas", "this model has one map per layer and head: use Translator::attention"))
            }
        }
    }

    /// For a translator with attention maps (the Transformer): translates one sentence greedily
    /// and runs the model once more on it with its translation as the target, giving the maps of
    /// that pass, the source tokens and the target tokens (`<sos>` and the translation), as the
    /// notebook's `show_cross_attention` takes them.
    pub fn attention(&mut self, sentence: &str) -> Result<(AttentionMaps, Vec<String>, Vec<String>)> {
        match self.sentence_attention(sentence, None)? {
            (SentenceAttention::Maps(maps), src, tgt) => Ok((maps, src, tgt)),
            (SentenceAttention::Source(_), ..) => {
                Err(error("Translator::attention", "this model attends once a step: use Translator::alphas"))
            }
        }
    }
}
