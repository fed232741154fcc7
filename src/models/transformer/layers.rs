//! One encoder layer and one decoder layer of the Transformer.

use super::config::{HeadLayout, TransformerConfig};
use super::mha::LayerAttention;
use super::sublayers::{AddNorm, PointwiseFeedforward};
use crate::attention::ProjectedKv;
use crate::nn::shape::{check_batch, invalid};
use crate::nn::{Walk, errors_as};
use candle_core::{Result, Tensor};

/// What an [`EncoderLayer`] computes.
#[derive(Clone, Debug)]
pub struct EncoderLayerOutput {
    /// The layer's output `(N, L, D)`.
    pub output: Tensor,
    /// The self-attention weights `(N, n_heads, L, L)`.
    pub self_attention: Tensor,
}

/// What a [`DecoderLayer`] computes.
#[derive(Clone, Debug)]
pub struct DecoderLayerOutput {
    /// The layer's output `(N, T, D)`.
    pub output: Tensor,
    /// The masked self-attention weights `(N, n_heads, T, T)`.
    pub self_attention: Tensor,
    /// The cross-attention weights over the memory `(N, n_heads, T, S)`.
    pub cross_attention: Tensor,
    /// What the cross-attention's queries were made from: the first AddNorm's output `(N, T, D)`.
    pub cross_input: Tensor,
}

/// The lecture's `EncoderLayer(d_model, num_heads, d_ff, p_drop)`: multi-head self-attention,
/// `AddNorm`, the position-wise feed-forward network, `AddNorm`. Parameters `MHA`, `addNorm1`,
/// `addNorm2`, `PFFN`, drawn in that order, as the lecture creates them.
#[derive(Clone, Debug, Walk)]
pub struct EncoderLayer {
    #[walk(skip)]
    pub d_model: usize,
    #[walk(rename = "MHA")]
    pub mha: LayerAttention,
    #[walk(rename = "addNorm1")]
    pub add_norm1: AddNorm,
    #[walk(rename = "addNorm2")]
    pub add_norm2: AddNorm,
    #[walk(rename = "PFFN")]
    pub pffn: PointwiseFeedforward,
}

impl EncoderLayer {
    /// The lecture's constructor, with its narrow multi-head attention.
    #[errors_as]
    pub fn new(d_model: usize, n_heads: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        Self::with_heads(HeadLayout::Narrow, d_model, n_heads, d_ff, p_drop)
    }

    /// The layer the Transformer of `cfg` stacks.
    #[errors_as("EncoderLayer")]
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        Self::with_heads(cfg.heads, cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout)
    }

    /// The lecture's constructor in either head layout (narrow, as the lecture's, or wide): the
    /// sublayers in the lecture's order, which is the order their weights are drawn in.
    fn with_heads(heads: HeadLayout, d_model: usize, n_heads: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        let mha = LayerAttention::new(heads, d_model, n_heads, p_drop)?;
        let add_norm1 = AddNorm::new(d_model, p_drop)?;
        let add_norm2 = AddNorm::new(d_model, p_drop)?;
        let pffn = PointwiseFeedforward::new(d_model, d_ff, p_drop)?;
        Ok(EncoderLayer { d_model, mha, add_norm1, add_norm2, pffn })
    }

    /// Self-attention over the sequence, then the feed-forward network, each followed by AddNorm.
    ///
    /// # Shapes
    /// - `x`: `(N, L, D)`
    /// - `mask`: optional additive mask `(1 or N, 1 or L, L)`, such as the source padding mask `(N, 1, L)`
    /// - returns the output `(N, L, D)` and the self-attention weights `(N, n_heads, L, L)`
    #[errors_as]
    pub fn forward(&self, x: &Tensor, mask: Option<&Tensor>) -> Result<EncoderLayerOutput> {
        check_batch(x, self.d_model)?;
        let mha = self.mha.forward(x, x, x, mask)?;
        let add_norm_1 = self.add_norm1.forward(&mha.output, x)?;
        let pffn = self.pffn.forward(&add_norm_1)?;
        let output = self.add_norm2.forward(&pffn, &add_norm_1)?;
        Ok(EncoderLayerOutput { output, self_attention: mha.weights })
    }
}

/// A decoder layer, completing the lecture: masked multi-head self-attention over the target,
/// `AddNorm`; multi-head cross-attention of the target over the encoder's output (the
/// "memory"), `AddNorm`; the feed-forward network, `AddNorm`. Parameters `masked_MHA`,
/// `addNorm1`, `cross_MHA`, `addNorm2`, `PFFN`, `addNorm3`, drawn in that order.
#[derive(Clone, Debug, Walk)]
pub struct DecoderLayer {
    #[walk(skip)]
    pub d_model: usize,
    #[walk(rename = "masked_MHA")]
    pub masked_mha: LayerAttention,
    #[walk(rename = "addNorm1")]
    pub add_norm1: AddNorm,
    #[walk(rename = "cross_MHA")]
    pub cross_mha: LayerAttention,
    #[walk(rename = "addNorm2")]
    pub add_norm2: AddNorm,
    #[walk(rename = "PFFN")]
    pub pffn: PointwiseFeedforward,
    #[walk(rename = "addNorm3")]
    pub add_norm3: AddNorm,
}

impl DecoderLayer {
    /// The decoder layer with the lecture's narrow multi-head attention.
    #[errors_as]
    pub fn new(d_model: usize, n_heads: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        Self::with_heads(HeadLayout::Narrow, d_model, n_heads, d_ff, p_drop)
    }

    /// The layer the Transformer of `cfg` stacks.
    #[errors_as("DecoderLayer")]
    pub fn from_config(cfg: &TransformerConfig) -> Result<Self> {
        Self::with_heads(cfg.heads, cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout)
    }

    /// The decoder layer in either head layout (narrow, as the lecture's, or wide): the sublayers
    /// in the order their weights are drawn in.
    fn with_heads(heads: HeadLayout, d_model: usize, n_heads: usize, d_ff: usize, p_drop: f64) -> Result<Self> {
        let masked_mha = LayerAttention::new(heads, d_model, n_heads, p_drop)?;
        let add_norm1 = AddNorm::new(d_model, p_drop)?;
        let cross_mha = LayerAttention::new(heads, d_model, n_heads, p_drop)?;
        let add_norm2 = AddNorm::new(d_model, p_drop)?;
        let pffn = PointwiseFeedforward::new(d_model, d_ff, p_drop)?;
        let add_norm3 = AddNorm::new(d_model, p_drop)?;
        Ok(DecoderLayer { d_model, masked_mha, add_norm1, cross_mha, add_norm2, pffn, add_norm3 })
    }

    /// Masked self-attention, cross-attention over `memory`, feed-forward, each followed by
    /// AddNorm.
    ///
    /// # Shapes
    /// - `x`: the target so far `(N, T, D)`; `memory`: the encoder's output `(N, S, D)`
    /// - `src_mask`: optional additive mask `(1 or N, 1 or T, S)` over the source (its padding, `(N, 1, S)`)
    /// - `tgt_mask`: optional additive mask `(1 or N, 1 or T, T)` over the target (the causal mask `(N, T, T)`)
    /// - returns the output `(N, T, D)` and both attentions' weights
    #[errors_as]
    pub fn forward(&self, x: &Tensor, memory: &Tensor, src_mask: Option<&Tensor>, tgt_mask: Option<&Tensor>) -> Result<DecoderLayerOutput> {
        let (n, _) = check_batch(x, self.d_model)?;
        let (nm, _) = check_batch(memory, self.d_model)?;
        if nm != n {
            return Err(invalid(format!("the target {:?} and the memory {:?} differ in batch size", x.dims(), memory.dims())));
        }
        let mha1 = self.masked_mha.forward(x, x, x, tgt_mask)?;
        let add_norm_1 = self.add_norm1.forward(&mha1.output, x)?;
        let mha2 = self.cross_mha.forward(&add_norm_1, memory, memory, src_mask)?;
        let add_norm_2 = self.add_norm2.forward(&mha2.output, &add_norm_1)?;
        let pffn = self.pffn.forward(&add_norm_2)?;
        let output = self.add_norm3.forward(&pffn, &add_norm_2)?;
        Ok(DecoderLayerOutput { output, self_attention: mha1.weights, cross_attention: mha2.weights, cross_input: add_norm_1 })
    }
}

/// One decoder layer's keys and values: its masked self-attention's over the cached target
/// positions (`None` before the first), its cross-attention's over the memory.
#[derive(Clone, Debug)]
pub(crate) struct LayerCache {
    pub(crate) self_kv: Option<ProjectedKv>,
    pub(crate) cross_kv: ProjectedKv,
}

impl DecoderLayer {
    /// [`DecoderLayer::forward`] for the target positions after those `cache` holds, without
    /// checks (the caller checks): the new positions' keys and values join the cache, the
    /// cross-attention reads the memory's keys and values projected once.
    ///
    /// # Shapes
    /// - `x`: the new positions `(N, m, D)`; `self_mask`: optional `(N, m, c + m)` over the `c` cached
    ///   positions and the new ones; `src_mask`: optional `(N, 1, S)`
    /// - returns the output `(N, m, D)`
    pub(crate) fn forward_cached(
        &self,
        x: &Tensor,
        cache: &mut LayerCache,
        self_mask: Option<&Tensor>,
        src_mask: Option<&Tensor>,
    ) -> Result<Tensor> {
        let new = self.masked_mha.project_kv(x, x)?;
        let kv = match &cache.self_kv {
            Some(old) => old.append(&new)?,
            None => new,
        };
        let mha1 = self.masked_mha.attend_kv(x, &kv, self_mask)?;
        cache.self_kv = Some(kv.detach());
        let add_norm_1 = self.add_norm1.forward(&mha1.output, x)?;
        let mha2 = self.cross_mha.attend_kv(&add_norm_1, &cache.cross_kv, src_mask)?;
        let add_norm_2 = self.add_norm2.forward(&mha2.output, &add_norm_1)?;
        self.add_norm3.forward(&self.pffn.forward(&add_norm_2)?, &add_norm_2)
    }
}
