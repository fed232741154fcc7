//! Wrong answers to part 1's exercises, written from the notebook's statements alone: q1 to q4
//! here, q5 to q7 in `seq2seq/later.rs`.

mod later;

use super::{Wrong, wrong};
use attention_zoo::practice::seq2seq::*;
use attention_zoo::prelude::*;

pub fn corpus() -> Vec<Wrong> {
    let mut all = vec![
        // 01.q1: split_sequence(full, input_len) -> (source, target)
        wrong(
            "source and target returned in the other order",
            &["swapped"],
            q1.check(|full, input_len| {
                let l = full.dim(1)?;
                let source = full.narrow(1, 0, input_len)?;
                let target = full.narrow(1, input_len, l - input_len)?;
                Ok((target, source))
            }),
        ),
        wrong(
            "the cut made on the batch dimension",
            &["wrong dimension", "dimension 0"],
            q1.check(|full, input_len| Ok((full.i(..input_len)?, full.i(input_len..)?))),
        ),
        wrong(
            "the target starting one point after input_len",
            &["one point late", "skips", "off by one"],
            q1.check(|full, input_len| Ok((full.i((.., ..input_len))?, full.i((.., input_len + 1..))?))),
        ),
        wrong(
            "the source taking input_len + 1 points (an inclusive range)",
            &["one point too many", "source ends one point late", "off by one"],
            q1.check(|full, input_len| Ok((full.i((.., ..=input_len))?, full.i((.., input_len..))?))),
        ),
        wrong(
            "the target as long as the source, as in the lecture's 2 + 2 squares",
            &["as long as the source", "same length", "the rest"],
            q1.check(|full, input_len| Ok((full.i((.., ..input_len))?, full.i((.., input_len..2 * input_len))?))),
        ),
        // 01.q2: encode_steps(gru, x) -> (outputs (N, L, H), last hidden (1, N, H))
        wrong(
            "the hidden state never passed on to the next step",
            &["zero hidden state", "previous step"],
            q2.check(|gru, x| {
                let mut outputs = vec![];
                let mut last = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.narrow(1, t, 1)?, None)?;
                    outputs.push(out);
                    last = Some(h);
                }
                Ok((Tensor::cat(&outputs, 1)?, last.unwrap()))
            }),
        ),
        wrong(
            "the steps' outputs joined along the batch dimension",
            &["dimension 0", "along the steps", "dimension 1"],
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
        wrong(
            "the steps' outputs stacked, which adds a dimension",
            &["extra dimension", "size 1"],
            q2.check(|gru, x| {
                let mut outputs = vec![];
                let mut hidden: Option<Tensor> = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.i((.., t..t + 1))?, hidden.as_ref())?;
                    outputs.push(out);
                    hidden = Some(h);
                }
                Ok((Tensor::stack(&outputs, 1)?, hidden.unwrap()))
            }),
        ),
        wrong(
            "the last hidden state made batch-first, (N, 1, H)",
            &["sequence-first", "another order", "batch-first"],
            q2.check(|gru, x| {
                let mut outputs = vec![];
                let mut hidden: Option<Tensor> = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.i((.., t..t + 1))?, hidden.as_ref())?;
                    outputs.push(out);
                    hidden = Some(h);
                }
                Ok((Tensor::cat(&outputs, 1)?, hidden.unwrap().transpose(0, 1)?))
            }),
        ),
        wrong(
            "only the last step's output returned",
            &["every step", "last step's output", "only the last"],
            q2.check(|gru, x| {
                let mut hidden: Option<Tensor> = None;
                let mut last_out = None;
                for t in 0..x.dim(1)? {
                    let (out, h) = gru.forward(&x.i((.., t..t + 1))?, hidden.as_ref())?;
                    last_out = Some(out);
                    hidden = Some(h);
                }
                Ok((last_out.unwrap(), hidden.unwrap()))
            }),
        ),
        // 01.q3: init_hidden(hidden_seq (N, L, H)) -> (1, N, H)
        wrong("the encoder's first step taken", &["first step"], q3.check(|hidden_seq| hidden_seq.i((.., 0..1))?.transpose(0, 1))),
        wrong(
            "the last step kept batch-first, not permuted",
            &["batch-first", "permute", "another order"],
            q3.check(|hidden_seq| {
                let l = hidden_seq.dim(1)?;
                hidden_seq.narrow(1, l - 1, 1)
            }),
        ),
        wrong(
            "the last sequence of the batch taken instead of the last step",
            &["dimension 0", "last sequence", "dimension 1"],
            q3.check(|hidden_seq| {
                let n = hidden_seq.dim(0)?;
                hidden_seq.i(n - 1..)?.permute((1, 0, 2))
            }),
        ),
        wrong(
            "the first and last dimensions swapped instead of the first two",
            &["another order", "permute"],
            q3.check(|hidden_seq| {
                let l = hidden_seq.dim(1)?;
                hidden_seq.i((.., l - 1..))?.transpose(0, 2)
            }),
        ),
        wrong(
            "the average of all steps instead of the last",
            &["average", "averaged", "mean", "every step"],
            q3.check(|hidden_seq| hidden_seq.mean_keepdim(1)?.permute((1, 0, 2))),
        ),
        // 01.q4: decoder_step(gru, regression, hidden, x) -> (prediction, new hidden)
        wrong(
            "the hidden state given returned instead of the new one",
            &["the one you were given", "new hidden state"],
            q4.check(|gru, regression, hidden, x| {
                let (out, _) = gru.forward(x, Some(hidden))?;
                Ok((regression.forward(&out)?, hidden.clone()))
            }),
        ),
        wrong(
            "the GRU's output returned without the regression layer",
            &["regression layer"],
            q4.check(|gru, _regression, hidden, x| {
                let (out, new_hidden) = gru.forward(x, Some(hidden))?;
                Ok((out, new_hidden))
            }),
        ),
        wrong(
            "the GRU started from zeros, the hidden state ignored",
            &["started from zeros", "Some(hidden)"],
            q4.check(|gru, regression, _hidden, x| {
                let (out, new_hidden) = gru.forward(x, None)?;
                Ok((regression.forward(&out)?, new_hidden))
            }),
        ),
        wrong(
            "the prediction made from the hidden state given, not from the GRU's output",
            &["the hidden state you were given", "from the old hidden", "GRU's output"],
            q4.check(|gru, regression, hidden, x| {
                let (_, new_hidden) = gru.forward(x, Some(hidden))?;
                Ok((regression.forward(&hidden.permute((1, 0, 2))?)?, new_hidden))
            }),
        ),
        wrong(
            "the hidden state first, the prediction second",
            &["order", "swapped"],
            q4.check(|gru, regression, hidden, x| {
                let (out, new_hidden) = gru.forward(x, Some(hidden))?;
                Ok((new_hidden, regression.forward(&out)?))
            }),
        ),
    ];
    all.extend(later::corpus());
    all
}

/// Other correct ways to write part 1's exercises: each checks Correct.
#[test]
fn other_correct_forms() {
    let _serial = crate::common::serial();
    use super::super::correct;
    // q1: narrow instead of ranges
    correct(q1.check(|full, input_len| {
        let l = full.dim(1)?;
        Ok((full.narrow(1, 0, input_len)?, full.narrow(1, input_len, l - input_len)?))
    }));
    // q2: the hidden state kept in a plain variable, the outputs stacked then squeezed
    correct(q2.check(|gru, x| {
        let (out, mut hidden) = gru.forward(&x.narrow(1, 0, 1)?, None)?;
        let mut outputs = vec![out.squeeze(1)?];
        for t in 1..x.dim(1)? {
            let (out, h) = gru.forward(&x.narrow(1, t, 1)?, Some(&hidden))?;
            outputs.push(out.squeeze(1)?);
            hidden = h;
        }
        Ok((Tensor::stack(&outputs, 1)?, hidden))
    }));
    // q3: the last step without its dimension, then a new first one; or a reshape of (N, 1, H)
    correct(q3.check(|h| h.i((.., h.dim(1)? - 1))?.unsqueeze(0)));
    correct(q3.check(|h| {
        let (n, l, d) = h.dims3()?;
        h.narrow(1, l - 1, 1)?.reshape((1, n, d))
    }));
    correct(q3.check(|h| h.permute((1, 0, 2))?.i(h.dim(1)? - 1..)));
    // q4: for one step the GRU's output is its new hidden state
    correct(q4.check(|gru, regression, hidden, x| {
        let (_, new_hidden) = gru.forward(x, Some(hidden))?;
        Ok((regression.forward(&new_hidden.permute((1, 0, 2))?)?, new_hidden))
    }));
    later::other_correct_forms();
}
