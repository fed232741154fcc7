//! Self-attention: the encoder and decoder of the lecture's last part, target masks, positional
//! encoding, and the encoder-decoder that trains on the whole shifted target at once and
//! predicts one step at a time.
//!
//! Shapes: `N` sequences, `L` steps, `F` features, `D` (`d_model`) model dimensions.

use crate::attention::MultiHeadAttention;
use crate::nn::{Linear, Module, NamedParams, prefixed};
use crate::seq2seq::{Model, check_batch};
use candle_core::{DType, Device, Result, Tensor, bail};

/// `nn.Sequential(Linear(d_in, ff_units), ReLU(), Linear(ff_units, d_out))`, named `0` and `2`
/// as PyTorch names a sequential's layers.
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub layer0: Linear,
    pub layer2: Linear,
}

impl FeedForward {
    pub fn new(d_in: usize, ff_units: usize, d_out: usize) -> Result<Self> {
        Ok(FeedForward { layer0: Linear::new(d_in, ff_units)?, layer2: Linear::new(ff_units, d_out)? })
    }

    /// `(..., d_in) -> (..., d_out)`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.layer2.forward(&self.layer0.forward(x)?.relu()?)
    }
}

impl Module for FeedForward {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("0", self.layer0.named_parameters());
        p.extend(prefixed("2", self.layer2.named_parameters()));
        p
    }
}

/// The lecture's `EncoderSelfAttn(n_heads, d_model, ff_units, n_features)`: multi-head
/// self-attention over the source (every point is a query, a key and a value), then a
/// feed-forward network. `(N, L, F) -> (N, L, D)`.
#[derive(Clone, Debug)]
pub struct EncoderSelfAttn {
    pub n_heads: usize,
    pub d_model: usize,
    pub ff_units: usize,
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl EncoderSelfAttn {
    /// `n_features` defaults to `d_model`.
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        let n_features = n_features.unwrap_or(d_model);
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true)?;
        let ffn = FeedForward::new(d_model, ff_units, d_model)?;
        Ok(EncoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, ffn })
    }

    /// `(N, L, F)` and an optional source mask `(N, 1, L)` -> `(N, L, D)`.
    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        check_batch("EncoderSelfAttn", query, self.n_features)?;
        self.self_attn_heads.init_keys(query)?;
        let att = self.self_attn_heads.forward(query, mask)?;
        self.ffn.forward(&att)
    }
}

impl Module for EncoderSelfAttn {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("self_attn_heads", self.self_attn_heads.named_parameters());
        p.extend(prefixed("ffn", self.ffn.named_parameters()));
        p
    }
}

/// The lecture's `DecoderSelfAttn(n_heads, d_model, ff_units, n_features)`: masked
/// self-attention over the (shifted) target, cross-attention over the encoder's states, then a
/// feed-forward network back to `n_features`. `(N, Lt, F) -> (N, Lt, F)`.
#[derive(Clone, Debug)]
pub struct DecoderSelfAttn {
    pub n_heads: usize,
    pub d_model: usize,
    pub ff_units: usize,
    pub n_features: usize,
    pub self_attn_heads: MultiHeadAttention,
    pub cross_attn_heads: MultiHeadAttention,
    pub ffn: FeedForward,
}

impl DecoderSelfAttn {
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>) -> Result<Self> {
        let n_features = n_features.unwrap_or(d_model);
        let self_attn_heads = MultiHeadAttention::new(n_heads, d_model, Some(n_features), true)?;
        let cross_attn_heads = MultiHeadAttention::new(n_heads, d_model, None, true)?;
        let ffn = FeedForward::new(d_model, ff_units, n_features)?;
        Ok(DecoderSelfAttn { n_heads, d_model, ff_units, n_features, self_attn_heads, cross_attn_heads, ffn })
    }

    /// The encoder's states `(N, L, D)` become the keys and values of the cross-attention.
    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        check_batch("DecoderSelfAttn::init_keys", states, self.d_model)?;
        self.cross_attn_heads.init_keys(states)
    }

    /// `(N, Lt, F)`, a source mask `(N, 1, L)` and a target mask `(1, Lt, Lt)` -> `(N, Lt, F)`.
    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        let (_, lt) = check_batch("DecoderSelfAttn", query, self.n_features)?;
        if let Some(m) = target_mask {
            if m.rank() != 3 || m.dim(1)? != lt || m.dim(2)? != lt {
                bail!("DecoderSelfAttn: expected a target mask of shape (1, {lt}, {lt}) for a target of {lt} steps, got {:?}", m.dims())
            }
        }
        if self.cross_attn_heads.attn_heads.first().is_none_or(|h| h.proj_keys.is_none()) {
            bail!("DecoderSelfAttn: no encoder states; call init_keys (or encode) first")
        }
        self.self_attn_heads.init_keys(query)?;
        let att1 = self.self_attn_heads.forward(query, target_mask)?;
        let att2 = self.cross_attn_heads.forward(&att1, source_mask)?;
        self.ffn.forward(&att2)
    }
}

impl Module for DecoderSelfAttn {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("self_attn_heads", self.self_attn_heads.named_parameters());
        p.extend(prefixed("cross_attn_heads", self.cross_attn_heads.named_parameters()));
        p.extend(prefixed("ffn", self.ffn.named_parameters()));
        p
    }
}

/// The target mask: 1 on and below the diagonal, 0 above (no peeking at later steps),
/// `(1, size, size)`, u8.
pub fn subsequent_mask(size: usize) -> Result<Tensor> {
    if size == 0 {
        bail!("subsequent_mask: size must be positive")
    }
    let data: Vec<u8> = (0..size).flat_map(|i| (0..size).map(move |j| u8::from(j <= i))).collect();
    Tensor::from_vec(data, (1, size, size), &Device::Cpu)
}

/// The sinusoidal encoding table `(max_len, d_model)`: `sin(pos * w_i)` in even dimensions,
/// `cos(pos * w_i)` in odd ones, with angular speeds `w_i = exp(-2i ln(10000) / d_model)`,
/// computed as PyTorch computes them in float32.
pub fn positional_encoding_table(max_len: usize, d_model: usize) -> Result<Tensor> {
    if max_len == 0 || d_model == 0 {
        bail!("PositionalEncoding: max_len and d_model must be positive, got {max_len} and {d_model}")
    }
    let factor = (-(10000.0f64).ln() / d_model as f64) as f32;
    let speeds: Vec<f32> = (0..d_model).step_by(2).map(|i| (i as f32 * factor).exp()).collect();
    let mut pe = vec![0f32; max_len * d_model];
    for pos in 0..max_len {
        for (k, w) in speeds.iter().enumerate() {
            let angle = pos as f32 * w;
            pe[pos * d_model + 2 * k] = angle.sin();
            if 2 * k + 1 < d_model {
                pe[pos * d_model + 2 * k + 1] = angle.cos();
            }
        }
    }
    Tensor::from_vec(pe, (max_len, d_model), &Device::Cpu)
}

/// `PositionalEncoding(max_len, d_model)`: scales the input by `sqrt(d_model)` and adds the
/// encoding of each position. The encoding is a buffer, not a parameter.
#[derive(Clone, Debug)]
pub struct PositionalEncoding {
    pub max_len: usize,
    pub d_model: usize,
    /// `(1, max_len, d_model)`.
    pub pe: Tensor,
}

impl PositionalEncoding {
    pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
        Ok(PositionalEncoding { max_len, d_model, pe: positional_encoding_table(max_len, d_model)?.unsqueeze(0)? })
    }

    /// `(N, L, d_model) -> (N, L, d_model)`, for `L <= max_len`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (_, l) = check_batch("PositionalEncoding", x, self.d_model)?;
        if l > self.max_len {
            bail!("PositionalEncoding: a sequence of {l} steps is longer than max_len = {}", self.max_len)
        }
        (x * (self.d_model as f64).sqrt())?.broadcast_add(&self.pe.narrow(1, 0, l)?)
    }
}

impl Module for PositionalEncoding {
    fn named_parameters(&self) -> NamedParams {
        vec![]
    }
}

/// An encoder the self-attention encoder-decoder can drive.
pub trait SelfAttnEncoder: Module {
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor>;
}

/// A decoder the self-attention encoder-decoder can drive.
pub trait SelfAttnDecoder: Module {
    fn init_keys(&mut self, states: &Tensor) -> Result<()>;
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor>;
}

impl SelfAttnEncoder for EncoderSelfAttn {
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(source, mask)
    }
}

impl SelfAttnDecoder for DecoderSelfAttn {
    fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        DecoderSelfAttn::init_keys(self, states)
    }
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(query, source_mask, target_mask)
    }
}

/// `EncoderPe(n_heads, d_model, ff_units, n_features, max_len)`: positional encoding, then
/// the self-attention encoder (parameters under `layer.`).
#[derive(Clone, Debug)]
pub struct EncoderPe {
    pub pe: PositionalEncoding,
    pub layer: EncoderSelfAttn,
}

impl EncoderPe {
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        let pe = PositionalEncoding::new(max_len, n_features.unwrap_or(d_model))?;
        Ok(EncoderPe { pe, layer: EncoderSelfAttn::new(n_heads, d_model, ff_units, n_features)? })
    }

    pub fn forward(&mut self, query: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let q = self.pe.forward(query)?;
        self.layer.forward(&q, mask)
    }
}

impl Module for EncoderPe {
    fn named_parameters(&self) -> NamedParams {
        prefixed("layer", self.layer.named_parameters())
    }
}

impl SelfAttnEncoder for EncoderPe {
    fn encode(&mut self, source: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(source, mask)
    }
}

/// `DecoderPe(n_heads, d_model, ff_units, n_features, max_len)`: positional encoding, then the
/// self-attention decoder (parameters under `layer.`).
#[derive(Clone, Debug)]
pub struct DecoderPe {
    pub pe: PositionalEncoding,
    pub layer: DecoderSelfAttn,
}

impl DecoderPe {
    pub fn new(n_heads: usize, d_model: usize, ff_units: usize, n_features: Option<usize>, max_len: usize) -> Result<Self> {
        let pe = PositionalEncoding::new(max_len, n_features.unwrap_or(d_model))?;
        Ok(DecoderPe { pe, layer: DecoderSelfAttn::new(n_heads, d_model, ff_units, n_features)? })
    }

    pub fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        self.layer.init_keys(states)
    }

    pub fn forward(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        let q = self.pe.forward(query)?;
        self.layer.forward(&q, source_mask, target_mask)
    }
}

impl Module for DecoderPe {
    fn named_parameters(&self) -> NamedParams {
        prefixed("layer", self.layer.named_parameters())
    }
}

impl SelfAttnDecoder for DecoderPe {
    fn init_keys(&mut self, states: &Tensor) -> Result<()> {
        DecoderPe::init_keys(self, states)
    }
    fn decode(&mut self, query: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        self.forward(query, source_mask, target_mask)
    }
}

/// The lecture's `EncoderDecoderSelfAttn(encoder, decoder, input_len, target_len)`. In training
/// mode it decodes the whole shifted target at once under the subsequent mask; in evaluation it
/// predicts one step at a time, feeding its predictions back and growing the mask.
#[derive(Clone, Debug)]
pub struct EncoderDecoderSelfAttn<E: SelfAttnEncoder = EncoderSelfAttn, D: SelfAttnDecoder = DecoderSelfAttn> {
    pub encoder: E,
    pub decoder: D,
    pub input_len: usize,
    pub target_len: usize,
    /// `(1, target_len, target_len)`.
    pub trg_masks: Tensor,
    pub training: bool,
    encoded: bool,
}

impl<E: SelfAttnEncoder, D: SelfAttnDecoder> EncoderDecoderSelfAttn<E, D> {
    pub fn new(encoder: E, decoder: D, input_len: usize, target_len: usize) -> Result<Self> {
        if input_len == 0 || target_len == 0 {
            bail!("EncoderDecoderSelfAttn: input_len and target_len must be positive, got {input_len} and {target_len}")
        }
        Ok(EncoderDecoderSelfAttn { encoder, decoder, input_len, target_len, trg_masks: subsequent_mask(target_len)?, training: true, encoded: false })
    }

    /// Encodes the source `(N, input_len, F)` and hands the states to the decoder.
    pub fn encode(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<()> {
        let states = self.encoder.encode(source_seq, source_mask)?;
        self.decoder.init_keys(&states)?;
        self.encoded = true;
        Ok(())
    }

    /// Decodes a (shifted) target `(N, Lt, F)` in one go.
    pub fn decode(&mut self, shifted_target_seq: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        if !self.encoded {
            bail!("EncoderDecoderSelfAttn::decode: nothing encoded yet; call encode first")
        }
        self.decoder.decode(shifted_target_seq, source_mask, target_mask)
    }

    /// Generates `target_len` points one at a time from the last source point: each step decodes
    /// everything generated so far under a growing mask and appends its last prediction.
    pub fn predict(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        if !self.encoded {
            bail!("EncoderDecoderSelfAttn::predict: nothing encoded yet; call encode first")
        }
        let l = source_seq.dim(1)?;
        let mut inputs = source_seq.narrow(1, l - 1, 1)?;
        for i in 0..self.target_len {
            let mask = self.trg_masks.narrow(1, 0, i + 1)?.narrow(2, 0, i + 1)?;
            let out = self.decode(&inputs, source_mask, Some(&mask))?;
            let last = out.narrow(1, i, 1)?;
            inputs = Tensor::cat(&[inputs, last], 1)?.detach();
        }
        inputs.narrow(1, 1, self.target_len)
    }

    /// `(N, input_len + target_len, F)` in training, `(N, input_len [+ ...], F)` in evaluation
    /// -> `(N, target_len, F)`.
    pub fn forward_masked(&mut self, x: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        let l = match x.dims() {
            &[_, l, _] => l,
            d => bail!("EncoderDecoderSelfAttn: expected a batch (N, L, F), got {d:?}"),
        };
        if l < self.input_len {
            bail!("EncoderDecoderSelfAttn: expected at least input_len = {} steps, got {:?}", self.input_len, x.dims())
        }
        let source = x.narrow(1, 0, self.input_len)?;
        self.encode(&source, source_mask)?;
        if self.training {
            if l < self.input_len + self.target_len {
                bail!("EncoderDecoderSelfAttn: training needs the target too: expected {} steps, got {:?}", self.input_len + self.target_len, x.dims())
            }
            let shifted = x.narrow(1, self.input_len - 1, self.target_len)?;
            let mask = self.trg_masks.clone();
            self.decode(&shifted, source_mask, Some(&mask))
        } else {
            self.predict(&source, source_mask)
        }
    }

    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.forward_masked(x, None)
    }
}

impl<E: SelfAttnEncoder, D: SelfAttnDecoder> Module for EncoderDecoderSelfAttn<E, D> {
    fn named_parameters(&self) -> NamedParams {
        let mut p = prefixed("encoder", self.encoder.named_parameters());
        p.extend(prefixed("decoder", self.decoder.named_parameters()));
        p
    }

    fn set_training(&mut self, training: bool) {
        self.training = training;
    }
}

impl<E: SelfAttnEncoder, D: SelfAttnDecoder> Model for EncoderDecoderSelfAttn<E, D> {
    fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.forward_masked(x, None)
    }
}

/// The shifted target of the lecture: the last source point followed by every target point but
/// the last. `(N, L, F)` with the first `input_len` steps as source -> `(N, L - input_len, F)`.
pub fn shifted_target(full_seq: &Tensor, input_len: usize) -> Result<Tensor> {
    let l = full_seq.dim(1)?;
    if input_len == 0 || input_len >= l {
        bail!("shifted_target: expected 0 < input_len < L, got input_len = {input_len} for {:?}", full_seq.dims())
    }
    full_seq.narrow(1, input_len - 1, l - input_len)
}

/// Euclidean distances between the first `n` rows of an encoding table: `(n, n)`.
pub fn encoding_distances(table: &Tensor, n: usize) -> Result<Tensor> {
    let rows = table.narrow(0, 0, n)?.to_dtype(DType::F32)?;
    let a = rows.unsqueeze(1)?;
    let b = rows.unsqueeze(0)?;
    a.broadcast_sub(&b)?.sqr()?.sum(2)?.sqrt()
}
