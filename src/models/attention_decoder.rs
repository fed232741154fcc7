//! The lecture's attention decoder: a GRU step whose output attends over the encoder's states.

use super::seq2seq::{EncoderDecoder, StepDecoder, final_state_seq_first, gru_step};
use crate::attention::Attention;
use crate::nn::shape::{Within, error};
use crate::nn::{Gru, Linear, Walk, Walker};
use candle_core::{D, Result, Tensor};

/// The lecture's `DecoderAttn(n_features, hidden_dim)`: a GRU step, attention of its output over
/// the encoder's states, and a linear layer on `[context; query]`.
#[derive(Clone, Debug)]
pub struct DecoderAttn {
    pub n_features: usize,
    pub hidden_dim: usize,
    pub hidden: Option<Tensor>,
    pub basic_rnn: Gru,
    pub attn: Attention,
    pub regression: Linear,
}

impl DecoderAttn {
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim).within("DecoderAttn")?;
        let attn = Attention::new(hidden_dim, None, false).within("DecoderAttn")?;
        let regression = Linear::new(2 * hidden_dim, n_features).within("DecoderAttn")?;
        Ok(DecoderAttn { n_features, hidden_dim, hidden: None, basic_rnn, attn, regression })
    }
}

impl DecoderAttn {
    /// Keys are the encoder's states; the first hidden state is the last of them.
    ///
    /// # Shapes
    /// - `hidden_seq`: `(N, L, H)`
    pub fn init_hidden(&mut self, hidden_seq: &Tensor) -> Result<()> {
        let hidden = final_state_seq_first("DecoderAttn", hidden_seq, self.hidden_dim)?;
        self.attn.init_keys(hidden_seq)?;
        self.hidden = Some(hidden);
        Ok(())
    }

    /// The hidden state, as the lecture reads `decoder.hidden`: an error before `init_hidden`.
    ///
    /// # Shapes
    /// - returns `(1, N, H)`, sequence-first
    pub fn hidden(&self) -> Result<&Tensor> {
        self.hidden.as_ref().ok_or_else(|| error("DecoderAttn", "no hidden state yet: call init_hidden with the encoder's states first"))
    }

    /// One step: the GRU's output attends over the encoder's states, and a linear layer maps
    /// `[context; query]` to the next point.
    ///
    /// # Shapes
    /// - `x`: `(N, 1, F)`
    /// - `mask`: optional source mask `(N, 1, L)`
    /// - returns `(N, 1, F)`
    pub fn forward(&mut self, x: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let module = "DecoderAttn";
        let (query, hidden) = gru_step(module, &self.basic_rnn, self.hidden.as_ref(), x).within(module)?;
        self.hidden = Some(hidden);
        let n = x.dim(0).within(module)?;
        let context = self.attn.forward(&query, mask).within(module)?;
        let concatenated = Tensor::cat(&[context, query], D::Minus1).within(module)?;
        self.regression.forward(&concatenated).within(module)?.reshape((n, 1, self.n_features)).within(module)
    }
}

impl Walk for DecoderAttn {
    fn walk(&self, w: &mut Walker) {
        w.child("basic_rnn", &self.basic_rnn);
        w.child("attn", &self.attn);
        w.child("regression", &self.regression);
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
