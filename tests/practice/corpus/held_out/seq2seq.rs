//! Held-out wrong answers to part 1 (01_seq2seq.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::seq2seq::*;
use attention_zoo::prelude::*;

mod swapped_gru {
    use attention_zoo::prelude::*;

    #[allow(dead_code)] // the notebook's field, unused by this answer
    pub struct MyEncoder {
        pub hidden_dim: usize,
        pub basic_rnn: Gru,
    }

    impl MyEncoder {
        pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
            // the GRU's sizes given the other way round
            let basic_rnn = Gru::new(hidden_dim, n_features)?;
            Ok(MyEncoder { hidden_dim, basic_rnn })
        }

        pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
            let (rnn_out, _hidden) = self.basic_rnn.forward(x, None)?;
            Ok(rnn_out)
        }
    }
}

mod last_hidden {
    use attention_zoo::prelude::*;

    #[allow(dead_code)] // the notebook's field, unused by this answer
    pub struct MyEncoder {
        pub hidden_dim: usize,
        pub basic_rnn: Gru,
    }

    impl MyEncoder {
        pub fn new(n_features: usize, hidden_dim: usize) -> Result<Self> {
            let basic_rnn = Gru::new(n_features, hidden_dim)?;
            Ok(MyEncoder { hidden_dim, basic_rnn })
        }

        pub fn forward(&mut self, x: &Tensor) -> Result<Tensor> {
            // the last hidden state, not the output at every step
            let (_rnn_out, hidden) = self.basic_rnn.forward(x, None)?;
            Ok(hidden)
        }
    }
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 01.q1 split_sequence
        wrong(
            "the batch split instead of the steps",
            &["batch", "dimension 0", "wrong dimension", "sequences instead"],
            q1.check(|full, input_len| Ok((full.i(..input_len)?, full.i(input_len..)?))),
        ),
        wrong(
            "target returned first, source second",
            &["swapped", "order", "target first", "the other way"],
            q1.check(|full, input_len| Ok((full.i((.., input_len..))?, full.i((.., ..input_len))?))),
        ),
        // 01.q2 encode_steps
        wrong(
            "the hidden state never carried to the next step",
            &["carried", "carry", "fed back", "feed back", "not passed", "from zero", "fresh", "reset"],
            q2.check(|gru, x| {
                let mut outputs = vec![];
                let mut last = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.i((.., t..t + 1))?, None)?;
                    outputs.push(out);
                    last = Some(h);
                }
                Ok((Tensor::cat(&outputs, 1)?, last.unwrap()))
            }),
        ),
        wrong(
            "the outputs joined along dimension 0",
            &["dimension 0", "wrong dimension", "along the batch", "batch dimension"],
            q2.check(|gru, x| {
                let mut outputs = vec![];
                let mut hidden: Option<Tensor> = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.i((.., t..t + 1))?, hidden.as_ref())?;
                    outputs.push(out);
                    hidden = Some(h);
                }
                Ok((Tensor::cat(&outputs, 0)?, hidden.unwrap()))
            }),
        ),
        // 01.q3 init_hidden
        wrong(
            "the first step taken instead of the last",
            &["first step", "step 0", "first"],
            q3.check(|hidden_seq| hidden_seq.i((.., 0..1))?.permute((1, 0, 2))),
        ),
        wrong(
            "the last step left batch-first, (N, 1, H)",
            &["sequence-first", "permute", "batch-first", "layout", "transpose"],
            q3.check(|hidden_seq| {
                let l = hidden_seq.dim(1)?;
                hidden_seq.i((.., l - 1..))
            }),
        ),
        // 01.q4 decoder_step
        wrong(
            "the regression applied to the new hidden state, sequence-first",
            &["hidden state instead", "sequence-first", "permute", "transposed"],
            q4.check(|gru, regression, hidden, x| {
                let (_out, hidden) = gru.forward(x, Some(hidden))?;
                Ok((regression.forward(&hidden)?, hidden))
            }),
        ),
        wrong(
            "the old hidden state returned instead of the new one",
            &["old hidden", "new hidden", "not updated", "unchanged", "the hidden state you were given", "input hidden"],
            q4.check(|gru, regression, hidden, x| {
                let (out, _new) = gru.forward(x, Some(hidden))?;
                Ok((regression.forward(&out)?, hidden.clone()))
            }),
        ),
        // 01.q5 encoder_decoder_forward
        wrong(
            "teacher forcing inverted: the prediction fed with forcing on, the target with it off",
            &["inverted", "reversed", "the other way round", "swapped", "opposite"],
            q5.check(|encoder, decoder, x, input_len, target_len, teacher_forcing| {
                let source_seq = x.i((.., ..input_len))?;
                let target_seq = x.i((.., input_len..))?;
                let hidden_seq = encoder.forward(&source_seq)?;
                decoder.init_hidden(&hidden_seq)?;
                let mut dec_inputs = source_seq.i((.., input_len - 1..))?;
                let mut outputs = vec![];
                for i in 0..target_len {
                    let out = decoder.forward(&dec_inputs)?;
                    outputs.push(out.clone());
                    dec_inputs = if teacher_forcing { out } else { target_seq.i((.., i..i + 1))? };
                }
                Tensor::cat(&outputs, 1)
            }),
        ),
        wrong(
            "the decoder started from the source's first point",
            &["first point", "first source point", "last point"],
            q5.check(|encoder, decoder, x, input_len, target_len, teacher_forcing| {
                let source_seq = x.i((.., ..input_len))?;
                let target_seq = x.i((.., input_len..))?;
                let hidden_seq = encoder.forward(&source_seq)?;
                decoder.init_hidden(&hidden_seq)?;
                let mut dec_inputs = source_seq.i((.., 0..1))?;
                let mut outputs = vec![];
                for i in 0..target_len {
                    let out = decoder.forward(&dec_inputs)?;
                    outputs.push(out.clone());
                    dec_inputs = if teacher_forcing { target_seq.i((.., i..i + 1))? } else { out };
                }
                Tensor::cat(&outputs, 1)
            }),
        ),
        // 01.q6 mse_loss
        wrong(
            "the root of the mean squared error",
            &["square root", "rmse", "root"],
            q6.check(|prediction, target| (prediction - target)?.sqr()?.mean_all()?.sqrt()),
        ),
        wrong(
            "the squared differences summed, not averaged",
            &["sum", "summed", "not averaged", "average"],
            q6.check(|prediction, target| (prediction - target)?.sqr()?.sum_all()),
        ),
        // 01.q7 MyEncoder
        wrong(
            "the GRU made with its two sizes swapped",
            &["swapped", "arguments", "other order"],
            q7.check(swapped_gru::MyEncoder::new, swapped_gru::MyEncoder::forward),
        ),
        wrong(
            "forward returns the last hidden state, not every step's output",
            &["hidden state", "last hidden", "instead of the outputs", "every step"],
            q7.check(last_hidden::MyEncoder::new, last_hidden::MyEncoder::forward),
        ),
    ]
}
