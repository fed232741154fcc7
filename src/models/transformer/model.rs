//! The full Transformer: source and target embeddings with positional encodings, the encoder and
//! decoder stacks, and a final linear layer to the target vocabulary.

use super::config::TransformerConfig;
use super::embeddings::{Embeddings, TransformerPositionalEncoding, transformer_encoding_table};
use super::stacks::{TransformerDecoder, TransformerDecoderOutput, TransformerEncoder, TransformerEncoderOutput};
use crate::attention::{padding_mask, target_mask};
use crate::models::translate::AttentionMaps;
use crate::nn::shape::{Within, error};
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Linear, Walk, Walker};
use crate::repro::uniform_init;
use candle_core::{DType, Result, Tensor};

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
#[derive(Clone, Debug)]
pub struct Transformer {
    pub config: TransformerConfig,
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

/// Checks that no source row is padding alone: such a sentence leaves its queries no key to attend
/// to under the padding mask (the softmax would be NaN). The error names the sentence.
fn check_not_all_padding(src: &Tensor, pad: u32) -> Result<()> {
    let (n, s) = src.dims2()?;
    if n == 0 {
        return Ok(());
    }
    let ids = src.to_dtype(DType::U32)?.flatten_all()?.to_vec1::<u32>()?;
    match ids.chunks(s).position(|row| row.iter().all(|&v| v == pad)) {
        Some(k) => Err(invalid(format!(
            "source {k} is all padding (all {s} ids are the pad_id {pad}, in a batch of {n}): its padding mask leaves no key to attend to"
        ))),
        None => Ok(()),
    }
}

impl Transformer {
    /// Every knob at its default (see [`TransformerConfig::new`]) but the vocabulary sizes.
    pub fn new(src_vocab: usize, tgt_vocab: usize) -> Result<Self> {
        Self::from_config(&TransformerConfig::new(src_vocab, tgt_vocab))
    }

    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        let module = "Transformer";
        if let Some(pad) = cfg.pad_id {
            for (side, size) in [("source", cfg.src_vocab), ("target", cfg.tgt_vocab)] {
                if pad as usize >= size {
                    return Err(error(
                        module,
                        format!("pad_id {pad} is outside the {side} vocabulary 0..{size}: the padding id must be a token of both"),
                    ));
                }
            }
        }
        let table = transformer_encoding_table(cfg.max_len, cfg.d_model).within(module)?.unsqueeze(0).within(module)?;
        let src_embedding = Embeddings::new(cfg.src_vocab, cfg.d_model).within(module)?;
        let src_pe = TransformerPositionalEncoding::with_table(table.clone(), cfg.dropout).within(module)?;
        let encoder = TransformerEncoder::from_config(cfg).within(module)?;
        let tgt_embedding = Embeddings::new(cfg.tgt_vocab, cfg.d_model).within(module)?;
        let tgt_pe = TransformerPositionalEncoding::with_table(table, cfg.dropout).within(module)?;
        let decoder = TransformerDecoder::from_config(cfg).within(module)?;
        let linear = Linear::new(cfg.d_model, cfg.tgt_vocab).within(module)?;
        let model = Transformer { config: cfg.clone(), src_embedding, src_pe, encoder, tgt_embedding, tgt_pe, decoder, linear };
        if cfg.xavier_init {
            xavier_uniform(&model).within(module)?;
        }
        Ok(model)
    }

    /// The source mask the model uses when given none: the additive padding mask of `src`
    /// (`-inf` where the id is `pad_id`), or `None` when the config has no `pad_id`.
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns `(N, 1, S)`
    ///
    /// An error naming the sentence if a source is padding alone (it would have no key to attend to).
    pub fn src_mask(&self, src: &Tensor) -> Result<Option<Tensor>> {
        let module = "Transformer::src_mask";
        check_ids("source", src).within(module)?;
        let Some(pad) = self.config.pad_id else { return Ok(None) };
        check_not_all_padding(src, pad).within(module)?;
        padding_mask(src, pad).within(module).map(Some)
    }

    /// The target mask the model uses when given none: the causal mask plus, with a
    /// `pad_id`, the target's padding mask ([`target_mask`]).
    ///
    /// # Shapes
    /// - `tgt`: `(N, T)`; returns `(N, T, T)`
    pub fn tgt_mask(&self, tgt: &Tensor) -> Result<Tensor> {
        let module = "Transformer::tgt_mask";
        check_ids("target", tgt).within(module)?;
        target_mask(tgt, self.config.pad_id).within(module)
    }

    /// Embeds the source, adds the positional encoding and runs the encoder stack: the
    /// "memory" the decoder attends over. `src_mask` is used as given (`None`: no mask; see
    /// [`Transformer::src_mask`]).
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`, each in `0..src_vocab`, `S <= max_len`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or S, S)`
    /// - returns the memory `(N, S, D)`
    pub fn encode(&self, src: &Tensor, src_mask: Option<&Tensor>) -> Result<Tensor> {
        Ok(self.encoder_pass(src, src_mask)?.memory)
    }

    fn encoder_pass(&self, src: &Tensor, src_mask: Option<&Tensor>) -> Result<TransformerEncoderOutput> {
        let module = "Transformer::encode";
        check_ids("source", src).within(module)?;
        let embedded = self.src_embedding.forward(src).within(module)?;
        let x = self.src_pe.forward(&embedded).within(module)?;
        self.encoder.forward(&x, src_mask).within(module)
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
    pub fn decode(&self, tgt: &Tensor, memory: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Tensor> {
        Ok(self.decoder_pass(tgt, memory, src_mask, tgt_mask)?.0)
    }

    /// The logits and what the decoder stack computed.
    fn decoder_pass(
        &self,
        tgt: &Tensor,
        memory: &Tensor,
        src_mask: Option<&Tensor>,
        tgt_mask: Option<&Tensor>,
    ) -> Result<(Tensor, TransformerDecoderOutput)> {
        let module = "Transformer::decode";
        check_ids("target", tgt).within(module)?;
        let embedded = self.tgt_embedding.forward(tgt).within(module)?;
        let x = self.tgt_pe.forward(&embedded).within(module)?;
        let out = self.decoder.forward(&x, memory, src_mask, tgt_mask).within(module)?;
        Ok((self.linear.forward(&out.output).within(module)?, out))
    }

    /// Encodes the source and decodes the (shifted) target in one go: the logits of the next
    /// token at every target position. Masks left out are made from the ids: the source's
    /// padding mask, and the causal mask plus the target's padding mask.
    ///
    /// # Shapes
    /// - `src`: source ids `(N, S)`; `tgt`: target ids `(N, T)`, the same `N`
    /// - `src_mask`: optional additive mask `(1 or N, 1, S)`; `tgt_mask`: optional `(1 or N, 1 or T, T)`
    /// - returns the logits `(N, T, V)` with `V = tgt_vocab`
    pub fn forward(&self, src: &Tensor, tgt: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<Tensor> {
        Ok(self.forward_with_attention(src, tgt, src_mask, tgt_mask)?.logits)
    }

    /// [`Transformer::forward`], with every attention map the pass computed (detached), for grids
    /// of heatmaps.
    ///
    /// # Shapes
    /// - as [`Transformer::forward`]; returns the logits `(N, T, V)` and the maps of
    ///   [`AttentionMaps`]
    pub fn forward_with_attention(
        &self,
        src: &Tensor,
        tgt: &Tensor,
        src_mask: Option<&Tensor>,
        tgt_mask: Option<&Tensor>,
    ) -> Result<TransformerOutput> {
        let module = "Transformer";
        let (ns, s) = check_ids_any_batch("source", src).within(module)?;
        let (nt, t) = check_ids_any_batch("target", tgt).within(module)?;
        if ns != nt {
            return Err(error(module, format!("the source {:?} and the target {:?} differ in batch size", src.dims(), tgt.dims())));
        }
        if ns == 0 {
            return self.empty_batch(src, s, t);
        }
        let src_mask = match (src_mask, self.config.pad_id) {
            (Some(m), _) => Some(m.clone()),
            (None, Some(pad)) => {
                check_not_all_padding(src, pad).within(module)?;
                self.src_mask(src)?
            }
            (None, None) => None,
        };
        let tgt_mask = match tgt_mask {
            Some(m) => m.clone(),
            None => self.tgt_mask(tgt)?,
        };
        let encoded = self.encoder_pass(src, src_mask.as_ref()).within(module)?;
        let (logits, decoded) = self.decoder_pass(tgt, &encoded.memory, src_mask.as_ref(), Some(&tgt_mask)).within(module)?;
        let detached = |maps: Vec<Tensor>| maps.iter().map(Tensor::detach).collect();
        let maps = AttentionMaps {
            encoder_self: detached(encoded.self_attention),
            decoder_self: detached(decoded.self_attention),
            cross: detached(decoded.cross_attention),
        };
        Ok(TransformerOutput { logits, maps })
    }

    /// What a pass over an empty batch (`N = 0`) gives, as in PyTorch: empty logits `(0, T, V)`
    /// and empty maps, once the lengths fit the positional encodings.
    fn empty_batch(&self, src: &Tensor, s: usize, t: usize) -> Result<TransformerOutput> {
        let cfg = &self.config;
        if s > cfg.max_len || t > cfg.max_len {
            return Err(error("Transformer", format!("sources of {s} and targets of {t} tokens: at most max_len = {} each", cfg.max_len)));
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

impl Walk for Transformer {
    fn walk(&self, w: &mut Walker) {
        // The two encodings' tables are buffers, as PyTorch's `state_dict` names them: `src_pe.pe` and
        // `tgt_pe.pe`, each `(1, max_len, d_model)` (one table here, shared).
        w.child("src_embedding", &self.src_embedding);
        w.child("src_pe", &self.src_pe);
        w.child("encoder", &self.encoder);
        w.child("tgt_embedding", &self.tgt_embedding);
        w.child("tgt_pe", &self.tgt_pe);
        w.child("decoder", &self.decoder);
        w.child("linear", &self.linear);
    }
}
