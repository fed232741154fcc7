//! The full Transformer: source and target embeddings with positional encodings, the encoder and
//! decoder stacks, and a final linear layer to the target vocabulary.

use super::config::TransformerConfig;
use super::embeddings::{Embeddings, TransformerPositionalEncoding, transformer_encoding_table};
use super::stacks::{TransformerDecoder, TransformerDecoderOutput, TransformerEncoder, TransformerEncoderOutput};
use crate::attention::additive_mask::{ids_values, padding_mask_of};
use crate::attention::target_mask;
use crate::attention::unused_weights::weights_unused;
use crate::models::translate::AttentionMaps;
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Linear, Walk, errors_as};
use crate::repro::uniform_init;
use candle_core::{Result, Tensor};

/// What [`Transformer::forward_with_attention`] computes.
#[derive(Clone, Debug)]
pub struct TransformerOutput {
    /// The logits of the next token at every target position `(N, T, V)`.
    pub logits: Tensor,
    /// Every layer's attention maps.
    pub maps: AttentionMaps,
}

/// The Transformer the lecture sets out to build, completed: source ids through
/// [`Embeddings`] and [`TransformerPositionalEncoding`] into the [`TransformerEncoder`]; target
/// ids likewise into the [`TransformerDecoder`], which attends over the encoder's output; a
/// final `Linear(d_model, tgt_vocab)` gives the logits of the next token at every target position.
///
/// Parameters, drawn in this order: `src_embedding`, `encoder`, `tgt_embedding`, `decoder`,
/// `linear` (the positional encodings have none). Starts in training mode, as PyTorch modules do.
/// The two encodings' tables are buffers, as PyTorch's `state_dict` names them: `src_pe.pe` and
/// `tgt_pe.pe`, each `(1, max_len, d_model)` (one table here, shared).
#[derive(Clone, Debug, Walk)]
pub struct Transformer {
    /// The config the model was made from, checked once then ([`Transformer::config`]).
    #[walk(skip)]
    pub(crate) config: TransformerConfig,
    pub src_embedding: Embeddings,
    pub src_pe: TransformerPositionalEncoding,
    pub encoder: TransformerEncoder,
    pub tgt_embedding: Embeddings,
    pub tgt_pe: TransformerPositionalEncoding,
    pub decoder: TransformerDecoder,
    pub linear: Linear,
}

/// `nn.init.xavier_uniform_` on every parameter of two or more dimensions, in parameter order:
/// uniform in `±sqrt(6 / (fan_in + fan_out))`, drawn from the default generator as PyTorch draws.
pub fn xavier_uniform<M: Walk>(model: &M) -> Result<()> {
    for (_, p) in model.named_parameters() {
        let dims = p.dims();
        if let [fan_out, fan_in, rest @ ..] = dims.as_slice() {
            let field: usize = rest.iter().product();
            let bound = (6.0f64 / ((fan_in + fan_out) * field) as f64).sqrt();
            p.set(&uniform_init(dims.as_slice(), bound)?)?;
        }
    }
    Ok(())
}

/// Checks token ids `(N, L)` with `N, L > 0` and returns `(N, L)`.
fn check_ids(what: &str, ids: &Tensor) -> Result<(usize, usize)> {
    match ids.dims() {
        &[n, l] if n > 0 && l > 0 => Ok((n, l)),
        d => Err(invalid_shape(format!("{what} ids of shape (N, L) with N, L > 0"), d)),
    }
}

/// Checks token ids `(N, L)` with `L > 0`, an empty batch (`N = 0`) included, and returns `(N, L)`.
fn check_ids_any_batch(what: &str, ids: &Tensor) -> Result<(usize, usize)> {
    match ids.dims() {
        &[n, l] if l > 0 => Ok((n, l)),
        d => Err(invalid_shape(format!("{what} ids of shape (N, L) with L > 0"), d)),
    }
}

/// The source's additive padding mask `(N, 1, S)` ([`padding_mask`](crate::attention::padding_mask)'s,
/// from the one copy of the ids it reads), refusing a source that is padding alone: its queries
/// would have no key to attend to under the mask (the softmax would be NaN). The error names the
/// sentence.
fn source_padding(src: &Tensor, pad: u32) -> Result<Tensor> {
    let (n, s) = src.dims2()?;
    let ids = ids_values(src)?;
    if let Some(k) = ids.chunks(s).position(|row| row.iter().all(|&v| v == pad as f64)) {
        return Err(invalid(format!(
            "source {k} is all padding (all {s} ids are the pad_id {pad}, in a batch of {n}): its padding mask leaves no key to attend to"
        )));
    }
    padding_mask_of(&ids, (n, s), pad, src.device())
}

impl Transformer {
    /// Every knob at its default (see [`TransformerConfig::new`]) but the vocabulary sizes.
    #[errors_as]
    pub fn new(src_vocab: usize, tgt_vocab: usize) -> Result<Self> {
        Self::from_config(&TransformerConfig::new(src_vocab, tgt_vocab))
    }

    /// The model of `cfg`, its parameters drawn in the order above. The config is checked here,
    /// once ([`TransformerConfig`]'s padding id a token of both vocabularies; the layers check
    /// their sizes and heads as they are made), and kept: the model's passes take it as checked.
    #[errors_as("Transformer")]
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        cfg.validate()?;
        let pe = transformer_encoding_table(cfg.max_len, cfg.d_model)?.unsqueeze(0)?;
        let src_embedding = Embeddings::new(cfg.src_vocab, cfg.d_model)?;
        let src_pe = TransformerPositionalEncoding::with_table(pe.clone(), cfg.dropout)?;
        let encoder = TransformerEncoder::from_config(cfg)?;
        let tgt_embedding = Embeddings::new(cfg.tgt_vocab, cfg.d_model)?;
        let tgt_pe = TransformerPositionalEncoding::with_table(pe, cfg.dropout)?;
        let decoder = TransformerDecoder::from_config(cfg)?;
        let linear = Linear::new(cfg.d_model, cfg.tgt_vocab)?;
        let model = Transformer { config: cfg.clone(), src_embedding, src_pe, encoder, tgt_embedding, tgt_pe, decoder, linear };
        if cfg.xavier_init {
            xavier_uniform(&model)?;
        }
        Ok(model)
    }

    /// The config the model was made from (checked then; read-only since).
    pub fn config(&self) -> &TransformerConfig {
        &self.config
    }

    /// The source mask the model uses when given none: the additive padding mask of `src`
    /// (`-inf` where the id is `pad_id`), or `None` when the config has no `pad_id`.
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns `(N, 1, S)`
    ///
    /// An error naming the sentence if a source is padding alone (it would have no key to attend to).
    #[errors_as]
    pub fn src_mask(&self, src: &Tensor) -> Result<Option<Tensor>> {
        check_ids("source", src)?;
        self.config.pad_id.map(|pad| source_padding(src, pad)).transpose()
    }

    /// The target mask the model uses when given none: the causal mask plus, with a
    /// `pad_id`, the target's padding mask ([`target_mask`]).
    ///
    /// # Shapes
    /// - `tgt`: `(N, T)`; returns `(N, T, T)`
    #[errors_as]
    pub fn tgt_mask(&self, tgt: &Tensor) -> Result<Tensor> {
        check_ids("target", tgt)?;
        target_mask(tgt, self.config.pad_id)
    }

    /// Embeds the source, adds the positional encoding and runs the encoder stack: the
    /// "memory" the decoder attends over. `src_mask` is used as given (`None`: no mask; see
    /// [`Transformer::src_mask`]).
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`, each in `0..src_vocab`, `S <= max_len`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or S, S)`
    /// - returns the memory `(N, S, D)`
    #[errors_as]
    pub fn encode(&self, src: &Tensor, src_mask: Option<&Tensor>) -> Result<Tensor> {
        check_ids("source", src)?;
        Ok(weights_unused(|| self.encoder_pass(src, src_mask))?.memory)
    }

    /// The encoder's side of the model, for ids its caller has checked. Its errors read
    /// `Transformer::encode` whoever calls it, under the caller's own name.
    #[errors_as("Transformer::encode")]
    pub(crate) fn encoder_pass(&self, src: &Tensor, src_mask: Option<&Tensor>) -> Result<TransformerEncoderOutput> {
        let x = self.src_pe.forward(&self.src_embedding.forward(src)?)?;
        self.encoder.forward(&x, src_mask)
    }

    /// Embeds the target, adds the positional encoding, runs the decoder stack over `memory` and
    /// maps every position to logits over the target vocabulary. The masks are used as given
    /// (`None`: no mask; see [`Transformer::src_mask`] and [`Transformer::tgt_mask`]).
    ///
    /// # Shapes
    /// - `tgt`: target ids `(N, T)`, each in `0..tgt_vocab`, `T <= max_len`
    /// - `memory`: the encoder's output `(N, S, D)`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or T, S)`; `tgt_mask`: optional `(1 or N, 1 or T, T)`
    /// - returns the logits `(N, T, V)` with `V = tgt_vocab`
    #[errors_as]
    pub fn decode(&self, tgt: &Tensor, memory: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Tensor> {
        check_ids("target", tgt)?;
        Ok(weights_unused(|| self.decoder_pass(tgt, memory, src_mask, tgt_mask))?.0)
    }

    /// The logits and what the decoder stack computed, for ids its caller has checked. Its errors
    /// read `Transformer::decode` whoever calls it.
    #[errors_as("Transformer::decode")]
    fn decoder_pass(
        &self,
        tgt: &Tensor,
        memory: &Tensor,
        src_mask: Option<&Tensor>,
        tgt_mask: Option<&Tensor>,
    ) -> Result<(Tensor, TransformerDecoderOutput)> {
        let x = self.tgt_pe.forward(&self.tgt_embedding.forward(tgt)?)?;
        let out = self.decoder.forward(&x, memory, src_mask, tgt_mask)?;
        Ok((self.linear.forward(&out.output)?, out))
    }

    /// Encodes the source and decodes the (shifted) target in one go: the logits of the next
    /// token at every target position. Masks left out are made from the ids: the source's
    /// padding mask, and the causal mask plus the target's padding mask.
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`; `tgt`: target ids `(N, T)`, the same `N`
    /// - `src_mask`: optional additive mask `(1 or N, 1, S)`; `tgt_mask`: optional `(1 or N, 1 or T, T)`
    /// - returns the logits `(N, T, V)` with `V = tgt_vocab`
    #[errors_as]
    pub fn forward(&self, src: &Tensor, tgt: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Tensor> {
        let (n, s, t) = check_pair(src, tgt)?;
        if n == 0 {
            return Ok(self.empty_batch(src, s, t)?.logits);
        }
        Ok(weights_unused(|| self.passes(src, tgt, src_mask, tgt_mask))?.logits)
    }

    /// [`Transformer::forward`], with every attention map the pass computed (detached), for grids
    /// of heatmaps.
    ///
    /// # Shapes
    /// - as [`Transformer::forward`]; returns the logits `(N, T, V)` and the maps of
    ///   [`AttentionMaps`]
    #[errors_as("Transformer")]
    pub fn forward_with_attention(
        &self,
        src: &Tensor,
        tgt: &Tensor,
        src_mask: Option<&Tensor>,
        tgt_mask: Option<&Tensor>,
    ) -> Result<TransformerOutput> {
        let (n, s, t) = check_pair(src, tgt)?;
        if n == 0 {
            return self.empty_batch(src, s, t);
        }
        let Passes { logits, encoded, decoded, .. } = self.passes(src, tgt, src_mask, tgt_mask)?;
        let detached = |maps: Vec<Tensor>| maps.iter().map(Tensor::detach).collect();
        let maps = AttentionMaps {
            encoder_self: detached(encoded.self_attention),
            decoder_self: detached(decoded.self_attention),
            cross: detached(decoded.cross_attention),
        };
        Ok(TransformerOutput { logits, maps })
    }

    /// Both passes over checked ids, the masks left out made from the ids: the source's padding
    /// mask, and the causal mask plus the target's padding mask.
    pub(crate) fn passes(&self, src: &Tensor, tgt: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Passes> {
        let src_mask = match src_mask {
            Some(m) => Some(m.clone()),
            None => self.config.pad_id.map(|pad| source_padding(src, pad)).transpose()?,
        };
        let tgt_mask = match tgt_mask {
            Some(m) => m.clone(),
            None => target_mask(tgt, self.config.pad_id)?,
        };
        let encoded = self.encoder_pass(src, src_mask.as_ref())?;
        let (logits, decoded) = self.decoder_pass(tgt, &encoded.memory, src_mask.as_ref(), Some(&tgt_mask))?;
        Ok(Passes { logits, encoded, decoded, src_mask, tgt_mask })
    }

    /// What a pass over an empty batch (`N = 0`) gives, as in PyTorch: empty logits `(0, T, V)`
    /// and empty maps, once the lengths fit the positional encodings.
    fn empty_batch(&self, src: &Tensor, s: usize, t: usize) -> Result<TransformerOutput> {
        let cfg = &self.config;
        if s > cfg.max_len || t > cfg.max_len {
            return Err(invalid(format!("sources of {s} and targets of {t} tokens: at most max_len = {} each", cfg.max_len)));
        }
        let dtype = self.linear.weight.tensor().dtype();
        let empty = |dims: (usize, usize, usize, usize)| Tensor::zeros(dims, dtype, src.device());
        let layers = |dims| (0..cfg.n_layers).map(|_| empty(dims)).collect::<Result<Vec<_>>>();
        let maps = AttentionMaps {
            encoder_self: layers((0, cfg.n_heads, s, s))?,
            decoder_self: layers((0, cfg.n_heads, t, t))?,
            cross: layers((0, cfg.n_heads, t, s))?,
        };
        Ok(TransformerOutput { logits: Tensor::zeros((0, t, cfg.tgt_vocab), dtype, src.device())?, maps })
    }
}

/// What [`Transformer::passes`] computed, with the masks it used.
pub(crate) struct Passes {
    pub(crate) logits: Tensor,
    pub(crate) encoded: TransformerEncoderOutput,
    pub(crate) decoded: TransformerDecoderOutput,
    pub(crate) src_mask: Option<Tensor>,
    pub(crate) tgt_mask: Tensor,
}

/// Source and target ids `(N, S)` and `(N, T)` of the same `N`: returns `(N, S, T)`.
pub(crate) fn check_pair(src: &Tensor, tgt: &Tensor) -> Result<(usize, usize, usize)> {
    let (n, s) = check_ids_any_batch("source", src)?;
    let (nt, t) = check_ids_any_batch("target", tgt)?;
    if n != nt {
        return Err(invalid(format!("the source {:?} and the target {:?} differ in batch size", src.dims(), tgt.dims())));
    }
    Ok((n, s, t))
}
