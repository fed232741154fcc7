//! The [`Transformer`] as a translator ([`Translate`]): the memory and the source mask are encoded
//! once; a decoding step decodes the positions of the prefix its [`DecoderCache`] does not hold
//! (one, when the prefix grew by a token) and gives the last position's logits; teacher forcing
//! decodes the whole shifted target at once.

use super::cache::DecoderCache;
use super::model::Transformer;
use crate::attention::unused_weights::weights_unused;
use crate::models::translate::{SentenceAttention, SentenceTerms, Translate, check_rows, target_ids};
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Walk, errors_as};
use candle_core::{Result, Tensor};

/// What the Transformer's encoder leaves for decoding.
#[derive(Clone, Debug)]
pub struct TransformerState {
    /// The encoder's output `(N, S, D)`.
    pub memory: Tensor,
    /// The source's additive padding mask `(N, 1, S)`, or `None` when the model has no `pad_id`.
    pub src_mask: Option<Tensor>,
    /// The decoder's keys and values of the last prefixes decoded from this state (made at the
    /// first decoding step).
    pub cache: Option<DecoderCache>,
}

impl Translate for Transformer {
    type State = TransformerState;

    fn tgt_vocab(&self) -> usize {
        self.config.tgt_vocab
    }

    fn max_len(&self) -> Option<usize> {
        Some(self.config.max_len)
    }

    fn pad_id(&self) -> Option<u32> {
        self.config.pad_id
    }

    fn src_vocab(&self) -> Option<usize> {
        Some(self.config.src_vocab)
    }

    /// The source's ids are checked once, by [`Transformer::src_mask`].
    fn encode_src(&mut self, src: &Tensor) -> Result<TransformerState> {
        let src_mask = self.src_mask(src)?;
        // Decoding computes no gradient: the memory keeps its values, not the encoder's graph.
        let memory = weights_unused(|| self.encoder_pass(src, src_mask.as_ref()))?.memory.detach();
        Ok(TransformerState { memory, src_mask, cache: None })
    }

    #[errors_as]
    fn select_rows(&self, state: &TransformerState, rows: &Tensor) -> Result<TransformerState> {
        check_rows(rows, state.memory.dim(0)?)?;
        let memory = index_rows(&state.memory, rows)?;
        let src_mask = state.src_mask.as_ref().map(|m| index_rows(m, rows)).transpose()?;
        let kept = state.cache.as_ref().filter(|c| c.belongs_to(&state.memory));
        let cache = kept.map(|c| c.select_rows(rows, &memory)).transpose()?;
        Ok(TransformerState { memory, src_mask, cache })
    }

    /// Decodes only the positions the state's cache does not hold: a prefix that continues the
    /// last one decoded from this state (every row by the same tokens) costs its new positions;
    /// any other is decoded whole. The logits are those of [`Transformer::decode`] at the last
    /// position (up to float rounding).
    #[errors_as]
    fn next_logits(&mut self, state: &mut TransformerState, prefix: &Tensor) -> Result<Tensor> {
        let n = state.memory.dims().first().copied().unwrap_or(0);
        let t = match prefix.dims() {
            &[rows, t] if rows == n && t > 0 => t,
            d => return Err(invalid_shape(format!("a prefix of shape ({n}, t) with t > 0 for a memory of {n} rows"), d)),
        };
        if t > self.config.max_len {
            return Err(invalid(format!("a prefix of {t} tokens is longer than max_len = {}", self.config.max_len)));
        }
        let ids = target_ids(prefix, self.config.tgt_vocab)?;
        if let Some(pad) = self.config.pad_id
            && let Some(r) = ids.chunks(t).position(|row| row[0] == pad)
        {
            return Err(invalid(format!("prefix {r} starts with the pad_id {pad}: its first position would attend to nothing")));
        }
        // Taken out while the layers grow it: a step that fails leaves no half-grown cache.
        // A cache made from another memory (the field replaced) is not read.
        let mut cache = match state.cache.take() {
            Some(cache) if cache.belongs_to(&state.memory) => cache,
            _ => DecoderCache::new(self, &state.memory)?,
        };
        let logits = self.decode_incremental(prefix, &ids, state.src_mask.as_ref(), &mut cache)?;
        state.cache = Some(cache);
        Ok(logits)
    }

    /// The decoder reads `<sos>` and the target without its last token under the causal and
    /// padding mask (the padding of `tgt_input` and of `src` masked with the config's `pad_id`).
    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let src_mask = self.src_mask(src)?;
        let tgt_mask = self.tgt_mask(tgt_input)?;
        self.forward(src, tgt_input, src_mask.as_ref(), Some(&tgt_mask))
    }

    /// One pass without masks over the sentence and its target, keeping every layer's maps.
    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceAttention> {
        Ok(SentenceAttention::Maps(self.forward_with_attention(src, tgt_input, None, None)?.maps))
    }

    /// The terms of the same pass's scores, every layer and head.
    fn sentence_terms(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceTerms> {
        Ok(SentenceTerms::Maps(self.score_terms(src, tgt_input)?))
    }

    /// Not while dropout draws its masks (training mode with `dropout > 0`).
    fn splits_rows(&self) -> bool {
        self.config.dropout == 0.0 || !self.is_training()
    }
}
