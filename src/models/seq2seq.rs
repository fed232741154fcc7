//! The lecture's first model: a GRU encoder, a GRU decoder with a regression head, and the
//! encoder-decoder that feeds the decoder its own predictions or, with teacher forcing, the truth.
//!
//! Shapes are batch-first: `N` sequences, `L` steps, `F` features, `H` hidden units.

use crate::nn::shape::{MAX_ELEMENTS, check_batch, invalid, invalid_shape};
use crate::nn::{Gru, Linear, Model, TrainingMode, Walk, Walker, errors_as};
use crate::repro;
use candle_core::{IndexOp, Result, Tensor};

/// `Encoder(n_features, hidden_dim)`: a batch-first GRU that returns every hidden state.
#[derive(Clone, Debug, Walk)]
pub struct Encoder {
    #[walk(skip)]
    pub n_features: usize,
    #[walk(skip)]
    pub hidden_dim: usize,
    /// The final hidden state of the last call, `(1, N, H)`.
    #[walk(skip)]
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
}

impl Encoder {
    #[errors_as]
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim)?;
        Ok(Encoder { n_features, hidden_dim, hidden: None, basic_rnn })
    }

    /// Runs the GRU over the source and keeps its final hidden state in `self.hidden`.
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)`
    /// - returns the hidden state after every step, `(N, L, H)`; `self.hidden` becomes `(1, N, H)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        check_batch(x, self.n_features)?;
        let (rnn_out, hidden) = self.basic_rnn.forward(x, None)?;
        self.hidden = Some(hidden);
        Ok(rnn_out)
    }
}

/// `Decoder(n_features, hidden_dim)`: one step at a time, keeping its hidden state between calls;
/// a linear layer turns each hidden state into coordinates.
#[derive(Clone, Debug, Walk)]
pub struct Decoder {
    #[walk(skip)]
    pub n_features: usize,
    #[walk(skip)]
    pub hidden_dim: usize,
    /// Sequence-first hidden state `(1, N, H)`, set by [`Decoder::init_hidden`].
    #[walk(skip)]
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
    pub regression: Linear,
}

impl Decoder {
    /// Draws the GRU's parameters, then the linear layer's, as PyTorch does.
    #[errors_as]
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim)?;
        let regression = Linear::new(hidden_dim, n_features)?;
        Ok(Decoder { n_features, hidden_dim, hidden: None, basic_rnn, regression })
    }

    /// Takes the encoder's last hidden state as the first one.
    ///
    /// # Shapes
    /// - `hidden_seq`: `(N, L, H)`; `self.hidden` becomes `(1, N, H)`
    #[errors_as]
    pub fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        check_hidden_seq(hidden_seq, self.hidden_dim)?;
        let l = hidden_seq.dim(1)?;
        // We only need the final hidden state: hidden_seq[:, -1:], (N, 1, H)
        let hidden_final = hidden_seq.narrow(1, l - 1, 1)?;
        // But we need to make it sequence-first: (1, N, H)
        self.hidden = Some(hidden_final.permute((1, 0, 2))?);
        Ok(())
    }

    /// The hidden state, as the lecture reads `decoder.hidden`: an error before `init_hidden`.
    ///
    /// # Shapes
    /// - returns `(1, N, H)`, sequence-first
    #[errors_as("Decoder")]
    pub fn hidden(&self) -> Result<&Tensor> {
        kept_hidden(self.hidden.as_ref())
    }

    /// One step, updating the hidden state; a linear layer turns it into the next point.
    ///
    /// # Shapes
    /// - `x`: `(N, 1, F)`
    /// - returns `(N, 1, F)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        check_step(x, &self.basic_rnn, self.hidden.as_ref())?;
        let (batch_first_output, hidden) = self.basic_rnn.forward(x, self.hidden.as_ref())?;
        self.hidden = Some(hidden);
        // batch_first_output[:, -1:]
        let l = batch_first_output.dim(1)?;
        let last_output = batch_first_output.narrow(1, l - 1, 1)?;
        let out = self.regression.forward(&last_output)?;
        out.reshape((x.dim(0)?, 1, self.n_features))
    }
}

/// The door of `init_hidden`: the encoder's states `(N, L, hidden_dim)` with `L > 0`.
pub(crate) fn check_hidden_seq(hidden_seq: &Tensor, hidden_dim: usize) -> Result<()> {
    match hidden_seq.dims() {
        &[_, l, h] if h == hidden_dim && l > 0 => Ok(()),
        d => Err(invalid(format!("expected hidden states (N, L, {hidden_dim}), got {d:?}"))),
    }
}

/// A decoder's hidden state, as the lecture reads `decoder.hidden`: an error before `init_hidden`
/// has set it (what `Decoder::hidden` and `DecoderAttn::hidden` return).
pub(crate) fn kept_hidden(hidden: Option<&Tensor>) -> Result<&Tensor> {
    hidden.ok_or_else(|| invalid("no hidden state yet: call init_hidden with the encoder's states first"))
}

/// The door of a decoder's step: an input `(N, 1, F)` for the GRU, and a hidden state `(1, N, H)`
/// kept from `init_hidden`.
pub(crate) fn check_step(x: &Tensor, rnn: &Gru, hidden: Option<&Tensor>) -> Result<()> {
    let (n, l) = check_batch(x, rnn.input_size)?;
    if l != 1 {
        return Err(invalid_shape(format!("one step (N, 1, {}) at a time", rnn.input_size), x.dims()));
    }
    let Some(hidden) = hidden else { return Err(invalid("no hidden state; call init_hidden with the encoder's states first")) };
    let h = rnn.hidden_size;
    if hidden.dims() != [1, n, h] {
        return Err(invalid(format!("the hidden state is {:?} but the input is a batch of {n}: expected (1, {n}, {h})", hidden.dims())));
    }
    Ok(())
}

/// A decoder an [`EncoderDecoder`] can drive, one step at a time.
pub trait StepDecoder: Walk {
    fn n_features(&self) -> usize;
    fn hidden_dim(&self) -> usize;
    /// Takes the encoder's states.
    ///
    /// # Shapes
    /// - `hidden_seq`: `(N, L, H)`
    fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()>;
    /// One decoding step.
    ///
    /// # Shapes
    /// - `x`: `(N, 1, F)`; `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, 1, F)`
    fn step(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor>;
    /// The alphas of the last step, `(N, 1, L)`, for decoders with attention.
    fn step_alphas(&self) -> Option<Tensor> {
        None
    }
}

impl StepDecoder for Decoder {
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn hidden_dim(&self) -> usize {
        self.hidden_dim
    }
    fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        Decoder::init_hidden(self, hidden_seq)
    }
    fn step(&mut self, x: &Tensor, _mask: Option<&Tensor>) -> Result<Tensor> {
        Decoder::forward(self, x)
    }
}

/// Draws one uniform from the default generator and compares it with `prob`, exactly where
/// PyTorch's `torch.rand(1) <= prob` does (also in evaluation, where `prob` is 0).
pub fn teacher_forcing(prob: f64) -> bool {
    (repro::rand_scalar() as f64) <= prob
}

/// `EncoderDecoder(encoder, decoder, input_len, target_len, teacher_forcing_prob)`. The decoder
/// is the plain [`Decoder`] or any other [`StepDecoder`] (the attention decoder: see
/// [`crate::models::EncoderDecoderAttn`]).
#[derive(Clone, Debug)]
pub struct EncoderDecoder<D: StepDecoder = Decoder> {
    pub encoder: Encoder,
    pub decoder: D,
    pub input_len: usize,
    pub target_len: usize,
    pub teacher_forcing_prob: f64,
    /// The predictions of the last call, `(N, target_len, F)`.
    pub outputs: Option<Tensor>,
    /// With an attention decoder, the alphas of every target step of the last call,
    /// `(N, target_len, input_len)`.
    pub alphas: Option<Tensor>,
    training: TrainingMode,
}

impl<D: StepDecoder> EncoderDecoder<D> {
    #[errors_as]
    pub fn new(encoder: Encoder, decoder: D, input_len: usize, target_len: usize, teacher_forcing_prob: f64) -> Result<Self> {
        check_fit(&encoder, &decoder)?;
        check_lengths(input_len, target_len)?;
        check_probability(teacher_forcing_prob)?;
        Ok(EncoderDecoder {
            encoder,
            decoder,
            input_len,
            target_len,
            teacher_forcing_prob,
            outputs: None,
            alphas: None,
            training: TrainingMode::new(true),
        })
    }

    /// Encodes the source, then decodes `target_len` steps from its last point, feeding back the
    /// predictions or, with teacher forcing in training, the true points.
    ///
    /// # Shapes
    /// - `x`: `(N, input_len + target_len, F)` in training (the target serves teacher forcing),
    ///   `(N, input_len [+ ...], F)` in evaluation
    /// - returns `(N, target_len, F)`; with an attention decoder `self.alphas` becomes
    ///   `(N, target_len, input_len)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        // The fields are public: a length set to 0, or to one past any sequence, is refused here.
        check_lengths(self.input_len, self.target_len)?;
        check_batch(x, self.encoder.n_features)?;
        check_steps(x, self.input_len, self.target_len, self.training.get(), self.teacher_forcing_prob)?;
        // Splits the data in source and target sequences (the target is empty in evaluation)
        let source_seq = x.i((.., ..self.input_len))?;
        let target_seq = x.i((.., self.input_len..))?;
        let hidden_seq = self.encoder.forward(&source_seq)?;
        self.decoder.init_hidden(&hidden_seq)?;
        // The last input of the encoder is also the first input of the decoder
        let mut dec_inputs = source_seq.i((.., self.input_len - 1..))?;
        let (mut outputs, mut alphas) = (vec![], vec![]);
        for i in 0..self.target_len {
            let out = self.decoder.step(&dec_inputs, None)?;
            outputs.push(out.clone());
            alphas.extend(self.decoder.step_alphas());
            // In evaluation the target is unknown: no teacher forcing
            let prob = if self.training.get() { self.teacher_forcing_prob } else { 0.0 };
            dec_inputs = if teacher_forcing(prob) { target_seq.i((.., i..i + 1))? } else { out };
        }
        let outputs = Tensor::cat(&outputs, 1)?;
        self.outputs = Some(outputs.clone());
        self.alphas = if alphas.is_empty() { None } else { Some(Tensor::cat(&alphas, 1)?) };
        Ok(outputs)
    }
}

// By hand, not derived: evcxr as published infers a notebook variable's type with a
// rust-analyzer that does not expand derives (the project's kernel does); a generic model whose
// walk it cannot see leaves a variable computed through its trainer without a type.
impl<D: StepDecoder> Walk for EncoderDecoder<D> {
    fn walk(&self, w: &mut Walker) {
        w.mode(&self.training);
        w.child("encoder", &self.encoder);
        w.child("decoder", &self.decoder);
    }
}

impl<D: StepDecoder> Model for EncoderDecoder<D> {
    fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        EncoderDecoder::forward(self, x)
    }
}

/// An encoder and a decoder fit together when they share `n_features` and `hidden_dim`.
fn check_fit<D: StepDecoder>(encoder: &Encoder, decoder: &D) -> Result<()> {
    if encoder.n_features == decoder.n_features() && encoder.hidden_dim == decoder.hidden_dim() {
        return Ok(());
    }
    Err(invalid(format!(
        "encoder (n_features {}, hidden_dim {}) and decoder (n_features {}, hidden_dim {}) do not fit together",
        encoder.n_features,
        encoder.hidden_dim,
        decoder.n_features(),
        decoder.hidden_dim()
    )))
}

/// The door of `EncoderDecoder::forward` past the batch's shape: at least `input_len` steps, and
/// in training a valid `teacher_forcing_prob` and, when it can pick the target, all `target_len`
/// steps.
fn check_steps(x: &Tensor, input_len: usize, target_len: usize, training: bool, teacher_forcing_prob: f64) -> Result<()> {
    let l = x.dim(1)?;
    if l < input_len {
        return Err(invalid(format!("expected at least input_len = {input_len} steps, got {:?}", x.dims())));
    }
    if !training {
        return Ok(());
    }
    let prob = check_probability(teacher_forcing_prob)?;
    if prob > 0.0 && l < input_len + target_len {
        return Err(invalid(format!("teacher forcing needs the target: expected {} steps, got {:?}", input_len + target_len, x.dims())));
    }
    Ok(())
}

/// A teacher-forcing probability must lie in `[0, 1]` (NaN is refused).
fn check_probability(p: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&p) { Ok(p) } else { Err(invalid(format!("teacher_forcing_prob must be in [0, 1], got {p}"))) }
}

/// Checks an encoder-decoder's `input_len` and `target_len` (public fields, so checked at every
/// forward too): both at least 1, and their sum a length a sequence can have.
pub(crate) fn check_lengths(input_len: usize, target_len: usize) -> Result<()> {
    if input_len == 0 || target_len == 0 {
        return Err(invalid(format!("input_len and target_len must be positive, got {input_len} and {target_len}")));
    }
    if input_len.checked_add(target_len).is_none_or(|total| total > MAX_ELEMENTS) {
        return Err(invalid(format!("input_len {input_len} and target_len {target_len} are longer than any sequence")));
    }
    Ok(())
}
