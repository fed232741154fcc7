//! The lecture's `EncoderDecoderSelfAttn`: the whole shifted target at once in training, one step
//! at a time in evaluation.

use super::layers::{DecoderSelfAttn, EncoderSelfAttn, SelfAttnDecoder, SelfAttnEncoder};
use crate::attention::subsequent_mask;
use crate::models::seq2seq::check_lengths;
use crate::nn::shape::{Within, shape_error};
use crate::nn::{Model, TrainingMode, Walk, Walker};
use candle_core::{Result, Tensor, bail};

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
    pub fn new(encoder: E, decoder: D, input_len: usize, target_len: usize) -> Result<Self> {
        check_lengths(input_len, target_len).within("EncoderDecoderSelfAttn")?;
        if encoder.d_model() != decoder.d_model() || encoder.n_features() != decoder.n_features() {
            bail!(
                "EncoderDecoderSelfAttn: encoder (d_model {}, n_features {}) and decoder (d_model {}, n_features {}) do not fit together",
                encoder.d_model(),
                encoder.n_features(),
                decoder.d_model(),
                decoder.n_features()
            )
        }
        Ok(EncoderDecoderSelfAttn {
            encoder,
            decoder,
            input_len,
            target_len,
            trg_masks: subsequent_mask(target_len)?,
            training: TrainingMode::new(true),
            encoded: false,
        })
    }

    /// Encodes the source and hands the states to the decoder.
    ///
    /// # Shapes
    /// - `source_seq`: `(N, L, F)`; `source_mask`: optional `(N, 1, L)`
    pub fn encode(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<()> {
        let states = self.encoder.encode(source_seq, source_mask)?;
        self.decoder.init_keys(&states)?;
        self.encoded = true;
        Ok(())
    }

    /// Decodes a (shifted) target in one go; needs [`encode`](Self::encode) first.
    ///
    /// # Shapes
    /// - `shifted_target_seq`: `(N, Lt, F)`
    /// - `source_mask`: optional `(N, 1, L)`; `target_mask`: optional `(1, Lt, Lt)`
    /// - returns `(N, Lt, F)`
    pub fn decode(&mut self, shifted_target_seq: &Tensor, source_mask: Option<&Tensor>, target_mask: Option<&Tensor>) -> Result<Tensor> {
        if !self.encoded {
            bail!("EncoderDecoderSelfAttn::decode: nothing encoded yet; call encode first")
        }
        self.decoder.decode(shifted_target_seq, source_mask, target_mask)
    }

    /// Generates `target_len` points one at a time from the last source point: each step decodes
    /// everything generated so far under a growing mask and appends its last prediction.
    ///
    /// # Shapes
    /// - `source_seq`: `(N, L, F)` with `L > 0`; `source_mask`: optional `(N, 1, L)`
    /// - returns `(N, target_len, F)`
    pub fn predict(&mut self, source_seq: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        if !self.encoded {
            bail!("EncoderDecoderSelfAttn::predict: nothing encoded yet; call encode first")
        }
        let l = match source_seq.dims() {
            &[_, l, _] if l > 0 => l,
            d => return Err(shape_error("EncoderDecoderSelfAttn::predict", "a source (N, L, F) with L > 0", d)),
        };
        let mut inputs = source_seq.narrow(1, l - 1, 1)?;
        for i in 0..self.target_len {
            let mask = self.trg_masks.narrow(1, 0, i + 1)?.narrow(2, 0, i + 1)?;
            let out = self.decode(&inputs, source_mask, Some(&mask))?;
            let last = out.narrow(1, i, 1)?;
            inputs = Tensor::cat(&[inputs, last], 1)?.detach();
        }
        inputs.narrow(1, 1, self.target_len)
    }

    /// Training: decodes the whole shifted target at once under the subsequent mask.
    /// Evaluation: [`predict`](Self::predict)s step by step.
    ///
    /// # Shapes
    /// - `x`: `(N, input_len + target_len, F)` in training, `(N, input_len [+ ...], F)` in evaluation
    /// - `source_mask`: optional `(N, 1, input_len)`
    /// - returns `(N, target_len, F)`
    pub fn forward_masked(&mut self, x: &Tensor, source_mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "EncoderDecoderSelfAttn";
        check_lengths(self.input_len, self.target_len).within(module)?;
        let l = match x.dims() {
            &[_, l, _] => l,
            d => bail!("EncoderDecoderSelfAttn: expected a batch (N, L, F), got {d:?}"),
        };
        if l < self.input_len {
            bail!("EncoderDecoderSelfAttn: expected at least input_len = {} steps, got {:?}", self.input_len, x.dims())
        }
        let source = x.narrow(1, 0, self.input_len).within(module)?;
        self.encode(&source, source_mask).within(module)?;
        if self.training.get() {
            if l < self.input_len + self.target_len {
                bail!(
                    "EncoderDecoderSelfAttn: training needs the target too: expected {} steps, got {:?}",
                    self.input_len + self.target_len,
                    x.dims()
                )
            }
            let shifted = x.narrow(1, self.input_len - 1, self.target_len).within(module)?;
            let mask = self.trg_masks.clone();
            self.decode(&shifted, source_mask, Some(&mask)).within(module)
        } else {
            self.predict(&source, source_mask).within(module)
        }
    }

    /// [`forward_masked`](Self::forward_masked) without a source mask.
    ///
    /// # Shapes
    /// - `x`: `(N, input_len + target_len, F)` in training, `(N, input_len [+ ...], F)` in evaluation
    /// - returns `(N, target_len, F)`
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        self.forward_masked(x, None)
    }
}

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

/// The shifted target of the lecture: the last source point followed by every target point but
/// the last. `(N, L, F)` with the first `input_len` steps as source -> `(N, L - input_len, F)`.
pub fn shifted_target(full_seq: &Tensor, input_len: usize) -> Result<Tensor> {
    if full_seq.rank() < 2 {
        bail!("shifted_target: expected a full sequence (N, L, F), got shape {:?}", full_seq.dims())
    }
    let l = full_seq.dim(1)?;
    if input_len == 0 || input_len >= l {
        bail!("shifted_target: expected 0 < input_len < L, got input_len = {input_len} for {:?}", full_seq.dims())
    }
    full_seq.narrow(1, input_len - 1, l - input_len)
}
