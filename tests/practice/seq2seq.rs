//! Part 1's exercises, both ways.

use super::{correct, incorrect, mistake, not_attempted};
use attention_zoo::practice::seq2seq::*;
use attention_zoo::practice::solutions::seq2seq as s;
use attention_zoo::prelude::*;

#[test]
fn q1_split_sequence() {
    let _serial = crate::common::serial();
    correct(q1.check(s::split_sequence));
    not_attempted(q1.check(|_, _| todo!()));
    mistake(q1.check(|x, n| Ok((x.i((.., n..))?, x.i((.., ..n))?))), "swapped");
    mistake(q1.check(|x, n| Ok((x.narrow(0, 0, n)?, x.narrow(0, n, x.dim(0)? - n)?))), "dimension 0 is the batch");
    mistake(q1.check(|x, n| Ok((x.narrow(1, 0, n)?, x.narrow(1, n - 1, x.dim(1)? - n + 1)?))), "one point early");
}

#[test]
fn q2_encode_steps() {
    let _serial = crate::common::serial();
    correct(q2.check(s::encode_steps));
    not_attempted(q2.check(|_, _| unimplemented!()));
    mistake(
        q2.check(|gru, x| {
            let mut outs = vec![];
            let mut hidden = None;
            for t in 0..x.dim(1)? {
                let (o, h) = gru.forward(&x.narrow(1, t, 1)?, None)?;
                outs.push(o);
                hidden = Some(h);
            }
            Ok((Tensor::cat(&outs, 1)?, hidden.unwrap()))
        }),
        "zero hidden state",
    );
    mistake(
        q2.check(|gru, x| {
            let (o, h) = gru.forward(x, None)?;
            Ok((o, h.squeeze(0)?))
        }),
        "sequence-first",
    );
}

#[test]
fn q3_init_hidden() {
    let _serial = crate::common::serial();
    correct(q3.check(s::init_hidden));
    not_attempted(q3.check(|_| todo!()));
    mistake(q3.check(|h| h.narrow(1, 0, 1)?.permute((1, 0, 2))), "first step");
    mistake(q3.check(|h| h.narrow(1, h.dim(1)? - 1, 1)), "batch-first");
    // a cut without the step dimension: a shape the check names, without a targeted sentence
    incorrect(q3.check(|h| h.i((.., h.dim(1)? - 1))), "shape [1, 2]");
}

#[test]
fn q4_decoder_step() {
    let _serial = crate::common::serial();
    correct(q4.check(s::decoder_step));
    not_attempted(q4.check(|_, _, _, _| todo!()));
    mistake(
        q4.check(|gru, reg, hidden, x| {
            let (out, _new) = gru.forward(x, Some(hidden))?;
            Ok((reg.forward(&out)?, hidden.clone()))
        }),
        "the one you were given",
    );
    mistake(q4.check(|gru, _reg, hidden, x| gru.forward(x, Some(hidden))), "regression layer");
    mistake(
        q4.check(|gru, reg, _hidden, x| {
            let (out, h) = gru.forward(x, None)?;
            Ok((reg.forward(&out)?, h))
        }),
        "started from zeros",
    );
}

#[test]
fn q5_encoder_decoder_forward() {
    let _serial = crate::common::serial();
    correct(q5.check(s::encoder_decoder_forward));
    not_attempted(q5.check(|_, _, _, _, _, _| todo!()));
    // teacher forcing whatever the flag says
    mistake(
        q5.check(|enc, dec, x, input_len, target_len, _forcing| {
            let hidden_seq = enc.forward(&x.narrow(1, 0, input_len)?)?;
            dec.init_hidden(&hidden_seq)?;
            let mut input = x.narrow(1, input_len - 1, 1)?;
            let mut outs = vec![];
            for i in 0..target_len {
                outs.push(dec.forward(&input)?);
                input = x.narrow(1, input_len + i, 1)?;
            }
            Tensor::cat(&outs, 1)
        }),
        "Teacher forcing is on at prediction",
    );
    mistake(
        q5.check(|enc, dec, x, input_len, target_len, forcing| {
            dec.init_hidden(&enc.forward(&x.narrow(1, 0, input_len)?)?)?;
            let mut input = x.narrow(1, 0, 1)?;
            let mut outs = vec![];
            for i in 0..target_len {
                let out = dec.forward(&input)?;
                outs.push(out.clone());
                input = if forcing { x.narrow(1, input_len + i, 1)? } else { out };
            }
            Tensor::cat(&outs, 1)
        }),
        "source's last point",
    );
}

#[test]
fn q6_mse_loss() {
    let _serial = crate::common::serial();
    correct(q6.check(s::mse_loss));
    not_attempted(q6.check(|_, _| todo!()));
    mistake(q6.check(|p, t| (p - t)?.sqr()?.sum_all()), "sum of the squares");
    mistake(q6.check(|p, t| (p - t)?.abs()?.mean_all()), "not squared");
    mistake(q6.check(|p, t| (p - t)?.sqr()?.mean_all()?.sqrt()), "square root");
}

#[test]
fn q7_encoder_of_ones_own() {
    let _serial = crate::common::serial();
    correct(q7.check(s::MyEncoder::new, s::MyEncoder::forward));
    not_attempted(q7.check(|_, _| -> Result<s::MyEncoder> { todo!() }, s::MyEncoder::forward));
    mistake(
        q7.check(s::MyEncoder::new, |m, x| {
            let (_out, hidden) = m.basic_rnn.forward(x, None)?;
            Ok(hidden)
        }),
        "final hidden state",
    );
    struct Extra {
        rnn: Gru,
    }
    mistake(
        q7.check(
            |n, h| {
                let _input_layer = Linear::new(n, h)?;
                Ok(Extra { rnn: Gru::new(n, h)? })
            },
            |m, x| Ok(m.rnn.forward(x, None)?.0),
        ),
        "drew from the generator",
    );
}

/// The sentences added for the wrong-answer corpus, each reached by an answer of its own.
#[test]
fn more_named_mistakes() {
    let _serial = crate::common::serial();
    let l = |x: &Tensor| x.dim(1).unwrap();
    mistake(q1.check(|x, n| Ok((x.narrow(1, 0, n)?, x.narrow(1, n + 1, l(x) - n - 1)?))), "skips a point");
    mistake(q1.check(|x, n| Ok((x.narrow(1, 0, n + 1)?, x.narrow(1, n, l(x) - n)?))), "one point too many");
    mistake(q1.check(|x, n| Ok((x.narrow(1, 0, n)?, x.narrow(1, n, n)?))), "as long as the source");
    mistake(
        q2.check(|gru, x| {
            let (out, h) = gru.forward(x, None)?;
            Ok((Tensor::cat(&out.chunk(l(x), 1)?, 0)?, h))
        }),
        "along dimension 0",
    );
    mistake(
        q2.check(|gru, x| {
            let (out, h) = gru.forward(x, None)?;
            Ok((out.narrow(1, l(x) - 1, 1)?, h))
        }),
        "Only the last step's output",
    );
    mistake(q3.check(|h| h.narrow(0, h.dim(0)? - 1, 1)?.transpose(0, 1)), "batch's last sequence");
    mistake(q3.check(|h| (h.sum_keepdim(1)? / l(h) as f64)?.transpose(0, 1)), "steps are averaged");
    mistake(q3.check(|h| h.narrow(1, l(h) - 1, 1)?.permute((2, 1, 0))), "wrong pair of dimensions");
    mistake(
        q4.check(|gru, reg, hidden, x| {
            let prediction = reg.forward(&hidden.transpose(0, 1)?)?;
            Ok((prediction, gru.forward(x, Some(hidden))?.1))
        }),
        "hidden state you were given",
    );
    mistake(
        q4.check(|gru, reg, hidden, x| {
            let (out, new_hidden) = gru.forward(x, Some(hidden))?;
            Ok((new_hidden, reg.forward(&out)?))
        }),
        "in the other order",
    );
    mistake(
        q6.check(|p, t| {
            let d = (p - t)?;
            (&d * &d)?.mean_keepdim(2)?.squeeze(2)
        }),
        "last dimension only",
    );
    mistake(q6.check(|p, t| (p - t)?.sqr()?.sum_all()? / p.dims()[0] as f64), "batch size");
    mistake(
        q7.check(s::MyEncoder::new, |m, x| {
            let (out, _) = m.basic_rnn.forward(x, None)?;
            out.i((.., out.dim(1)? - 1..))
        }),
        "last step's output alone",
    );
}

/// q5's loop with one choice a student may get wrong: the encoder's input, the first input and the
/// step of `x` fed with teacher forcing (the flag as given, or always off).
fn q5_loop(encode_all: bool, first_is_target: bool, behind: bool, never: bool) -> attention_zoo::practice::Outcome {
    q5.check(move |enc, dec, x, input_len, target_len, forcing| {
        let source = x.narrow(1, 0, input_len)?;
        dec.init_hidden(&enc.forward(if encode_all { x } else { &source })?)?;
        let mut input = x.narrow(1, if first_is_target { input_len } else { input_len - 1 }, 1)?;
        let mut outs = vec![];
        for i in 0..target_len {
            let out = dec.forward(&input)?;
            outs.push(out.clone());
            input = if forcing && !never { x.narrow(1, input_len + i - usize::from(behind), 1)? } else { out };
        }
        Tensor::cat(&outs, 1)
    })
}

#[test]
fn q5_more_named_mistakes() {
    let _serial = crate::common::serial();
    correct(q5_loop(false, false, false, false));
    mistake(q5_loop(false, false, false, true), "never used");
    mistake(q5_loop(false, true, false, false), "target's first point");
    mistake(q5_loop(false, false, true, false), "one point behind");
    mistake(q5_loop(true, false, false, false), "whole sequence");
}
