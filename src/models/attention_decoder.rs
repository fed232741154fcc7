//! The lecture's attention decoder: a GRU step whose output attends over the encoder's states.

use super::seq2seq::{EncoderDecoder, StepDecoder, check_hidden_seq, check_step, kept_hidden};
use crate::attention::Attention;
use crate::nn::{Gru, Linear, Walk, errors_as};
use candle_core::{D, Result, Tensor};

/// The lecture's `DecoderAttn(n_features, hidden_dim)`: a GRU step, attention of its output over
/// the encoder's states, and a linear layer on `[context; query]`.
#[derive(Clone, Debug, Walk)]
pub struct DecoderAttn {
    #[walk(skip)]
    pub n_features: usize,
    #[walk(skip)]
    pub hidden_dim: usize,
    #[walk(skip)]
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
    pub attn: Attention,
    pub regression: Linear,
}

impl DecoderAttn {
    #[errors_as]
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim)?;
        let attn = Attention::new(hidden_dim, None, false)?;
        let regression = Linear::new(2 * hidden_dim, n_features)?;
        Ok(DecoderAttn { n_features, hidden_dim, hidden: None, basic_rnn, attn, regression })
    }

    /// Keys are the encoder's states; the first hidden state is the last of them.
    ///
    /// # Shapes
    /// - `hidden_seq`: `(N, L, H)`; `self.hidden` becomes `(1, N, H)`
    #[errors_as]
    pub fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        check_hidden_seq(hidden_seq, self.hidden_dim)?;
        let l = hidden_seq.dim(1)?;
        // The encoder's states are batch-first, (N, L, H), as init_keys expects them
        self.attn.init_keys(hidden_seq)?;
        // hidden_seq[:, -1:], made sequence-first: (1, N, H)
        let hidden_final = hidden_seq.narrow(1, l - 1, 1)?;
        self.hidden = Some(hidden_final.permute((1, 0, 2))?);
        Ok(())
    }

    /// The hidden state `(1, N, H)`, as [`Decoder::hidden`](super::Decoder::hidden) returns it.
    #[errors_as("DecoderAttn")]
    pub fn hidden(&self) -> Result<&Tensor> {
        kept_hidden(self.hidden.as_ref())
    }

    /// One step: the GRU's output attends over the encoder's states, and a linear layer maps
    /// `[context; query]` to the next point.
    ///
    /// # Shapes
    /// - `x`: `(N, 1, F)`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, 1, F)`
    #[errors_as]
    pub fn forward(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        check_step(x, &self.basic_rnn, self.hidden.as_ref())?;
        let (batch_first_output, hidden) = self.basic_rnn.forward(x, self.hidden.as_ref())?;
        self.hidden = Some(hidden);
        // batch_first_output[:, -1:]
        let l = batch_first_output.dim(1)?;
        let query = batch_first_output.narrow(1, l - 1, 1)?;
        // Attention
        let context = self.attn.forward(&query, mask)?;
        let concatenated = Tensor::cat(&[context, query], D::Minus1)?;
        let out = self.regression.forward(&concatenated)?;
        out.reshape((x.dim(0)?, 1, self.n_features))
    }
}

impl StepDecoder for DecoderAttn {
    fn n_features(&self) -> usize {
        self.n_features
    }
    fn hidden_dim(&self) -> usize {
        self.hidden_dim
    }
    fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        DecoderAttn::init_hidden(self, hidden_seq)
    }
    fn step(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        DecoderAttn::forward(self, x, mask)
    }
    fn step_alphas(&self) -> Option<Tensor> {
        self.attn.alphas.clone()
    }
}

/// The lecture's `EncoderDecoderAttn`: the encoder-decoder driving an attention decoder, keeping
/// the alphas of every target step in `alphas`, `(N, target_len, input_len)`.
pub type EncoderDecoderAttn = EncoderDecoder<DecoderAttn>;
