//! The lecture's `EncoderDecoderSelfAttn`: the whole shifted target at once in training, one step
//! at a time in evaluation.

use super::layers::{DecoderSelfAttn, EncoderSelfAttn, SelfAttnDecoder, SelfAttnEncoder};
use crate::attention::subsequent_mask;
use crate::models::seq2seq::check_lengths;
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Model, TrainingMode, Walk, Walker, errors_as};
use candle_core::{IndexOp, Result, Tensor};

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
    training: TrainingMode,
    encoded: bool,
}

impl<E: SelfAttnEncoder, D: SelfAttnDecoder> EncoderDecoderSelfAttn<E, D> {
    #[errors_as]
    pub fn new(encoder: E, decoder: D, input_len: usize, target_len: usize) -> Result<Self> {
        check_lengths(input_len, target_len)?;
        check_fit(&encoder, &decoder)?;
        let trg_masks = subsequent_mask(target_len)?;
        Ok(EncoderDecoderSelfAttn { encoder, decoder, input_len, target_len, trg_masks, training: TrainingMode::new(true), encoded: false })
    }

    /// Encodes the source and hands the states to the decoder.
    ///
    /// # Shapes
    /// - `source_seq`: `(N, L, F)`; `source_mask`: optional `(N, 1, L)`
    #[errors_as("EncoderDecoderSelfAttn")]
    pub fn encode(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<()> {
        let encoder_states = self.encoder.encode(source_seq, source_mask)?;
        self.decoder.init_keys(&encoder_states)?;
        self.encoded = true;
        Ok(())
    }

    /// Decodes a (shifted) target in one go; needs [`encode`](Self::encode) first.
    ///
    /// # Shapes
    /// - `shifted_target_seq`: `(N, Lt, F)`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    #[errors_as]
    pub fn decode(&mut self, shifted_target_seq: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        check_encoded(self.encoded)?;
        self.decoder.decode(shifted_target_seq, source_mask, target_mask)
    }

    /// Generates `target_len` points one at a time from the last source point: each step decodes
    /// everything generated so far under a growing mask and appends its last prediction.
    ///
    /// # Shapes
    /// - `source_seq`: `(N, L, F)` with `L > 0`; `source_mask`: optional `(N, 1, L)`
    /// - returns `(N, target_len, F)`
    #[errors_as]
    pub fn predict(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        check_encoded(self.encoded)?;
        check_source(source_seq)?;
        self.predict_steps(source_seq, source_mask)
    }

    /// The lecture's `predict`, once its inputs are checked.
    fn predict_steps(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        // source_seq[:, -1:]
        let mut inputs = source_seq.i((.., source_seq.dim(1)? - 1..))?;
        for i in 0..self.target_len {
            let trg_masks = self.trg_masks.i((.., ..i + 1, ..i + 1))?;
            let out = self.decoder.decode(&inputs, source_mask, Some(&trg_masks))?;
            let out = Tensor::cat(&[inputs, out.i((.., i..i + 1))?], 1)?;
            inputs = out.detach();
        }
        inputs.i((.., 1..))
    }

    /// Training: decodes the whole shifted target at once under the subsequent mask.
    /// Evaluation: [`predict`](Self::predict)s step by step.
    ///
    /// # Shapes
    /// - `x`: `(N, input_len + target_len, F)` in training, `(N, input_len [+ ...], F)` in evaluation
    /// - `source_mask`: optional `(N, 1, input_len)`
    /// - returns `(N, target_len, F)`
    #[errors_as("EncoderDecoderSelfAttn")]
    pub fn forward_masked(&mut self, x: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        // The fields are public: a length set to 0, or to one past any sequence, is refused here.
        check_lengths(self.input_len, self.target_len)?;
        check_steps(x, self.input_len, self.target_len, self.training.get())?;
        let source_seq = x.i((.., ..self.input_len))?;
        // Encodes the source sequence AND initializes the decoder
        self.encode(&source_seq, source_mask)?;
        if self.training.get() {
            // The shifted target: X[:, input_len - 1:-1]
            let shifted_target_seq = x.i((.., self.input_len - 1..self.input_len - 1 + self.target_len))?;
            // the whole shifted target at once, the mask hiding every later step
            self.decoder.decode(&shifted_target_seq, source_mask, Some(&self.trg_masks))
        } else {
            // step by step, each prediction fed back as the next input
            self.predict_steps(&source_seq, source_mask)
        }
    }

    /// [`forward_masked`](Self::forward_masked) without a source mask.
    ///
    /// # Shapes
    /// - `x`: `(N, input_len + target_len, F)` in training, `(N, input_len [+ ...], F)` in evaluation
    /// - returns `(N, target_len, F)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.forward_masked(x, None)
    }
}

// By hand, not derived: evcxr as published infers a notebook variable's type with a
// rust-analyzer that does not expand derives (the project's kernel does); a generic model whose
// walk it cannot see leaves a variable computed through its trainer without a type.
impl<E: SelfAttnEncoder, D: SelfAttnDecoder> Walk for EncoderDecoderSelfAttn<E, D> {
    fn walk(&self, w: &mut Walker) {
        w.mode(&self.training);
        w.child("encoder", &self.encoder);
        w.child("decoder", &self.decoder);
    }
}

impl<E: SelfAttnEncoder, D: SelfAttnDecoder> Model for EncoderDecoderSelfAttn<E, D> {
    fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.forward_masked(x, None)
    }
}

/// An encoder and a decoder fit together when they share `d_model` and `n_features`.
fn check_fit<E: SelfAttnEncoder, D: SelfAttnDecoder>(encoder: &E, decoder: &D) -> Result<()> {
    if encoder.d_model() == decoder.d_model() && encoder.n_features() == decoder.n_features() {
        return Ok(());
    }
    Err(invalid(format!(
        "encoder (d_model {}, n_features {}) and decoder (d_model {}, n_features {}) do not fit together",
        encoder.d_model(),
        encoder.n_features(),
        decoder.d_model(),
        decoder.n_features()
    )))
}

/// `decode` and `predict` need the encoder's states: [`EncoderDecoderSelfAttn::encode`] first.
fn check_encoded(encoded: bool) -> Result<()> {
    if encoded { Ok(()) } else { Err(invalid("nothing encoded yet; call encode first")) }
}

/// `predict` starts from the last point of a source `(N, L, F)`, so `L > 0`.
fn check_source(source_seq: &Tensor) -> Result<()> {
    match source_seq.dims() {
        &[_, l, _] if l > 0 => Ok(()),
        d => Err(invalid_shape("a source (N, L, F) with L > 0", d)),
    }
}

/// The door of `forward_masked`: a batch `(N, L, F)` of at least `input_len` steps, in training
/// `input_len + target_len`.
fn check_steps(x: &Tensor, input_len: usize, target_len: usize, training: bool) -> Result<()> {
    let l = match x.dims() {
        &[_, l, _] => l,
        d => return Err(invalid_shape("a batch (N, L, F)", d)),
    };
    if l < input_len {
        return Err(invalid(format!("expected at least input_len = {input_len} steps, got {:?}", x.dims())));
    }
    if training && l < input_len + target_len {
        return Err(invalid(format!("training needs the target too: expected {} steps, got {:?}", input_len + target_len, x.dims())));
    }
    Ok(())
}

/// The shifted target of the lecture, `torch.cat([source_seq[:, -1:], target_seq[:, :-1]], dim=1)`:
/// the last source point followed by every target point but the last.
///
/// # Shapes
/// - `full_seq`: `(N, L, F)`, its first `input_len` steps the source, `0 < input_len < L`
/// - returns `(N, L - input_len, F)`
#[errors_as]
pub fn shifted_target(full_seq: &Tensor, input_len: usize) -> Result<Tensor> {
    check_split(full_seq, input_len)?;
    if full_seq.elem_count() == 0 {
        return empty_shifted_target(full_seq, input_len);
    }
    let source_seq = full_seq.i((.., ..input_len))?;
    let target_seq = full_seq.i((.., input_len..))?;
    Tensor::cat(&[source_seq.i((.., input_len - 1..))?, target_seq.i((.., ..target_seq.dim(1)? - 1))?], 1)
}

/// `shifted_target` splits a sequence `(N, L, ..)` into a source and a target, neither empty.
fn check_split(full_seq: &Tensor, input_len: usize) -> Result<()> {
    if full_seq.rank() < 2 {
        return Err(invalid(format!("expected a full sequence (N, L, F), got shape {:?}", full_seq.dims())));
    }
    let l = full_seq.dim(1)?;
    if input_len == 0 || input_len >= l {
        return Err(invalid(format!("expected 0 < input_len < L, got input_len = {input_len} for {:?}", full_seq.dims())));
    }
    Ok(())
}

/// The shifted target of an empty batch: candle's `cat` copies from the pieces' storage at their
/// offsets, which an empty storage does not have, so the result is the same (empty) steps cut out.
fn empty_shifted_target(full_seq: &Tensor, input_len: usize) -> Result<Tensor> {
    full_seq.narrow(1, input_len - 1, full_seq.dim(1)? - input_len)
}
