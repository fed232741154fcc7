//! The solutions of part 1 (notebooks/exercises/01_seq2seq.ipynb), as `q1.solution()` to
//! `q7.solution()` show them. Each compiles in a notebook cell as written, after
//! `use attention_zoo::prelude::*;`.

use crate::prelude::*;

pub fn split_sequence(full: &Tensor, input_len: usize) -> Result<(Tensor, Tensor)> {
    let source_seq = full.i((.., ..input_len))?;
    let target_seq = full.i((.., input_len..))?;
    Ok((source_seq, target_seq))
}

pub fn encode_steps(gru: &Gru, x: &Tensor) -> Result<(Tensor, Tensor)> {
    let mut hidden: Option<Tensor> = None;
    let mut outputs = vec![];
    for t in 0..x.dim(1)? {
        let (out, h) = gru.forward(&x.i((.., t..t + 1))?, hidden.as_ref())?;
        outputs.push(out);
        hidden = Some(h);
    }
    let hidden = hidden.ok_or_else(|| candle_core::Error::Msg("x has no steps".into()))?;
    Ok((Tensor::cat(&outputs, 1)?, hidden))
}

pub fn init_hidden(hidden_seq: &Tensor) -> Result<Tensor> {
    let l = hidden_seq.dim(1)?;
    let hidden_final = hidden_seq.i((.., l - 1..))?;
    hidden_final.permute((1, 0, 2))
}

pub fn decoder_step(gru: &Gru, regression: &Linear, hidden: &Tensor, x: &Tensor) -> Result<(Tensor, Tensor)> {
    let (batch_first_output, hidden) = gru.forward(x, Some(hidden))?;
    let l = batch_first_output.dim(1)?;
    let last_output = batch_first_output.i((.., l - 1..))?;
    let out = regression.forward(&last_output)?;
    Ok((out, hidden))
}

pub fn encoder_decoder_forward(
    encoder: &mut Encoder,
    decoder: &mut Decoder,
    x: &Tensor,
    input_len: usize,
    target_len: usize,
    teacher_forcing: bool,
) -> Result<Tensor> {
    let source_seq = x.i((.., ..input_len))?;
    let target_seq = x.i((.., input_len..))?;
    let hidden_seq = encoder.forward(&source_seq)?;
    decoder.init_hidden(&hidden_seq)?;
    let mut dec_inputs = source_seq.i((.., input_len - 1..))?;
    let mut outputs = vec![];
    for i in 0..target_len {
        let out = decoder.forward(&dec_inputs)?;
        outputs.push(out.clone());
        dec_inputs = if teacher_forcing { target_seq.i((.., i..i + 1))? } else { out };
    }
    Tensor::cat(&outputs, 1)
}

pub fn mse_loss(prediction: &Tensor, target: &Tensor) -> Result<Tensor> {
    (prediction - target)?.sqr()?.mean_all()
}

pub struct MyEncoder {
    pub hidden_dim: usize,
    pub basic_rnn: Gru,
}

impl MyEncoder {
    pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
        let basic_rnn = Gru::new(n_features, hidden_dim)?;
        Ok(MyEncoder { hidden_dim, basic_rnn })
    }

    /// # Shapes
    /// - `x`: `(N, L, F)`; returns every step's hidden state, `(N, L, H)`
    pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
        let (rnn_out, _hidden) = self.basic_rnn.forward(x, None)?;
        Ok(rnn_out)
    }
}
