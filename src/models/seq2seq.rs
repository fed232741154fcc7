//! The lecture's first model: a GRU encoder, a GRU decoder with a regression head, and the
//! encoder-decoder that feeds the decoder its own predictions or, with teacher forcing, the truth.
//!
//! Shapes are batch-first: `N` sequences, `L` steps, `F` features, `H` hidden units.

use crate::nn::shape::invalid;
use crate::nn::shape::{MAX_ELEMENTS, Within, check_batch, error, shape_error};
use crate::nn::{Gru, Linear, Model, TrainingMode, Walk, Walker};
use crate::repro;
use candle_core::{Result, Tensor, bail};

/// The encoder's last hidden state made sequence-first for a GRU: `(N, L, H) -> (1, N, H)`.
pub(crate) fn final_state_seq_first(module: &str, hidden_seq: &Tensor, hidden_dim: usize) -> Result<Tensor> {
    match hidden_seq.dims() {
        &[_, l, h] if h == hidden_dim && l > 0 => hidden_seq.narrow(1, l - 1, 1)?.permute((1, 0, 2)),
        d => bail!("{module}::init_hidden: expected hidden states (N, L, {hidden_dim}), got {d:?}"),
    }
}

/// One step of a decoder's GRU: checks the input `(N, 1, F)` against the kept hidden state
/// `(1, N, H)` and returns the step's output `(N, 1, H)` and the new hidden state.
pub(crate) fn gru_step(module: &str, rnn: &Gru, hidden: Option<&Tensor>, x: &Tensor) -> Result<(Tensor, Tensor)> {
    let (n, l) = check_batch(x, rnn.input_size).within(module)?;
    if l != 1 {
        return Err(shape_error(module, format!("one step (N, 1, {}) at a time", rnn.input_size), x.dims()));
    }
    let Some(hidden) = hidden else { bail!("{module}: no hidden state; call init_hidden with the encoder's states first") };
    let h = rnn.hidden_size;
    if hidden.dims() != [1, n, h] {
        bail!("{module}: the hidden state is {:?} but the input is a batch of {n}: expected (1, {n}, {h})", hidden.dims())
    }
    let (out, hidden) = rnn.forward(x, Some(hidden))?;
    let l = out.dim(1)?;
    Ok((out.narrow(1, l - 1, 1)?, hidden))
}

/// `Encoder(n_features, hidden_dim)`: a batch-first GRU that returns every hidden state.
#[derive(Clone, Debug)]
pub struct Encoder {
    pub n_features: usize,
    pub hidden_dim: usize,
    /// The final hidden state of the last call, `(1, N, H)`.
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
}

impl Encoder {
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim).within("Encoder")?;
        Ok(Encoder { n_features, hidden_dim, hidden: None, basic_rnn })
    }

    /// Runs the GRU over the source and keeps its final hidden state in `self.hidden`.
    ///
    /// # Shapes
    /// - `x`: `(N, L, F)`
    /// - returns the hidden state after every step, `(N, L, H)`; `self.hidden` becomes `(1, N, H)`
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        check_batch(x, self.n_features).within("Encoder")?;
        let (out, hidden) = self.basic_rnn.forward(x, None).within("Encoder")?;
        self.hidden = Some(hidden);
        Ok(out)
    }
}

impl Walk for Encoder {
    fn walk(&self, w: &mut Walker) {
        w.child("basic_rnn", &self.basic_rnn);
    }
}

/// `Decoder(n_features, hidden_dim)`: one step at a time, keeping its hidden state between calls;
/// a linear layer turns each hidden state into coordinates.
#[derive(Clone, Debug)]
pub struct Decoder {
    pub n_features: usize,
    pub hidden_dim: usize,
    /// Sequence-first hidden state `(1, N, H)`, set by [`Decoder::init_hidden`].
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
    pub regression: Linear,
}

impl Decoder {
    /// Draws the GRU's parameters, then the linear layer's, as PyTorch does.
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim).within("Decoder")?;
        let regression = Linear::new(hidden_dim, n_features).within("Decoder")?;
        Ok(Decoder { n_features, hidden_dim, hidden: None, basic_rnn, regression })
    }

    /// Takes the encoder's last hidden state as the first one.
    ///
    /// # Shapes
    /// - `hidden_seq`: `(N, L, H)`; `self.hidden` becomes `(1, N, H)`
    pub fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        self.hidden = Some(final_state_seq_first("Decoder", hidden_seq, self.hidden_dim)?);
        Ok(())
    }

    /// The hidden state, as the lecture reads `decoder.hidden`: an error before `init_hidden`.
    ///
    /// # Shapes
    /// - returns `(1, N, H)`, sequence-first
    pub fn hidden(&self) -> Result<&Tensor> {
        self.hidden.as_ref().ok_or_else(|| error("Decoder", "no hidden state yet: call init_hidden with the encoder's states first"))
    }

    /// One step, updating the hidden state; a linear layer turns it into the next point.
    ///
    /// # Shapes
    /// - `x`: `(N, 1, F)`
    /// - returns `(N, 1, F)`
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        let (last, hidden) = gru_step("Decoder", &self.basic_rnn, self.hidden.as_ref(), x)?;
        self.hidden = Some(hidden);
        self.regression.forward(&last)?.reshape((x.dim(0)?, 1, self.n_features))
    }
}

impl Walk for Decoder {
    fn walk(&self, w: &mut Walker) {
        w.child("basic_rnn", &self.basic_rnn);
        w.child("regression", &self.regression);
    }
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

/// A teacher-forcing probability must lie in `[0, 1]` (NaN is refused).
fn check_probability(p: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&p) { Ok(p) } else { Err(error("EncoderDecoder", format!("teacher_forcing_prob must be in [0, 1], got {p}"))) }
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
    pub fn new(encoder: Encoder, decoder: D, input_len: usize, target_len: usize, teacher_forcing_prob: f64) -> Result<Self> {
        if encoder.n_features != decoder.n_features() || encoder.hidden_dim != decoder.hidden_dim() {
            bail!(
                "EncoderDecoder: encoder (n_features {}, hidden_dim {}) and decoder (n_features {}, hidden_dim {}) do not fit together",
                encoder.n_features,
                encoder.hidden_dim,
                decoder.n_features(),
                decoder.hidden_dim()
            )
        }
        check_lengths(input_len, target_len).within("EncoderDecoder")?;
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
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        let module = "EncoderDecoder";
        // The fields are public: a length set to 0, or to one past any sequence, is refused here.
        check_lengths(self.input_len, self.target_len).within(module)?;
        let (_, l) = check_batch(x, self.encoder.n_features).within(module)?;
        if l < self.input_len {
            bail!("EncoderDecoder: expected at least input_len = {} steps, got {:?}", self.input_len, x.dims())
        }
        let source = x.narrow(1, 0, self.input_len).within(module)?;
        let target = x.narrow(1, self.input_len, l - self.input_len).within(module)?;
        let hidden_seq = self.encoder.forward(&source).within(module)?;
        StepDecoder::init_hidden(&mut self.decoder, &hidden_seq).within(module)?;
        let mut dec_inputs = source.narrow(1, self.input_len - 1, 1).within(module)?;
        let mut outs = Vec::with_capacity(self.target_len.min(l + 1));
        let mut alphas = Vec::with_capacity(self.target_len.min(l + 1));
        for i in 0..self.target_len {
            let out = self.decoder.step(&dec_inputs, None).within(module)?;
            if let Some(a) = self.decoder.step_alphas() {
                alphas.push(a);
            }
            let prob = if self.training.get() { check_probability(self.teacher_forcing_prob)? } else { 0.0 };
            dec_inputs = if teacher_forcing(prob) {
                if i >= target.dim(1).within(module)? {
                    bail!(
                        "EncoderDecoder: teacher forcing needs the target: expected {} steps, got {:?}",
                        self.input_len + self.target_len,
                        x.dims()
                    )
                }
                target.narrow(1, i, 1).within(module)?
            } else {
                out.clone()
            };
            outs.push(out);
        }
        let outputs = Tensor::cat(&outs, 1).within(module)?;
        self.outputs = Some(outputs.clone());
        self.alphas = if alphas.is_empty() { None } else { Some(Tensor::cat(&alphas, 1).within(module)?) };
        Ok(outputs)
    }
}

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
