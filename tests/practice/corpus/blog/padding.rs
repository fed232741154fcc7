//! Wrong answers to part 5's padded batches, q6 to q8, written from the notebook's statements alone.

use super::super::{Wrong, wrong};
use attention_zoo::practice::blog::*;
use attention_zoo::prelude::*;
use candle_nn::ops::log_softmax;

/// The log-probability of each target `(N, T)` with the log-softmax over `dim`.
fn picked(logits: &Tensor, targets: &Tensor, dim: usize) -> Result<Tensor> {
    log_softmax(logits, dim)?.gather(&targets.unsqueeze(2)?.contiguous()?, 2)?.squeeze(2)
}

pub(super) fn q6_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the mean over every position", &["padding is counted", "ignore"], q6.check(|l, t, _| picked(l, t, 2)?.mean_all()?.neg())),
        wrong(
            "the padding masked but the mean over N * T",
            &["still divides by every position"],
            q6.check(|l, t, pad| {
                let keep = t.ne(pad)?.to_dtype(DType::F32)?;
                (picked(l, t, 2)? * keep)?.sum_all()?.neg()? / t.elem_count() as f64
            }),
        ),
        wrong(
            "the padding id taken as 0",
            &["pad_id", "padding id"],
            q6.check(|l, t, _| {
                let keep = t.ne(0u32)?.to_dtype(DType::F32)?;
                (picked(l, t, 2)? * &keep)?.sum_all()?.neg()? / keep.sum_all()?
            }),
        ),
        wrong(
            "the minus sign forgotten",
            &["sign", "-1"],
            q6.check(|l, t, pad| {
                let keep = t.ne(pad)?.to_dtype(DType::F32)?;
                (picked(l, t, 2)? * &keep)?.sum_all()? / keep.sum_all()?
            }),
        ),
        wrong(
            "the log-softmax over the positions, dimension 1",
            &["log-softmax", "dimension", "vocabulary"],
            q6.check(|l, t, pad| {
                let keep = t.ne(pad)?.to_dtype(DType::F32)?;
                (picked(l, t, 1)? * &keep)?.sum_all()?.neg()? / keep.sum_all()?
            }),
        ),
        wrong(
            "a mean per sentence, then the mean of those",
            &["per sentence", "sentence"],
            q6.check(|l, t, pad| {
                let keep = t.ne(pad)?.to_dtype(DType::F32)?;
                let per_sentence = ((picked(l, t, 2)? * &keep)?.sum(1)?.neg()? / keep.sum(1)?)?;
                per_sentence.mean_all()
            }),
        ),
    ]
}

pub(super) fn q7_wrongs() -> Vec<Wrong> {
    vec![
        wrong("no shift at all", &["not shifted", "copy"], q7.check(|t| Ok((t.clone(), t.clone())))),
        wrong(
            "input and target the other way round",
            &["swapped"],
            q7.check(|t| {
                let n = t.dim(1)?;
                Ok((t.narrow(1, 1, n - 1)?, t.narrow(1, 0, n - 1)?))
            }),
        ),
        wrong(
            "the input without <sos>, both cut after the first token",
            &["lost <sos>"],
            q7.check(|t| {
                let rest = t.i((.., 1..))?;
                Ok((rest.clone(), rest))
            }),
        ),
        wrong(
            "the target still starting with <sos>",
            &["still starts with <sos>"],
            q7.check(|t| {
                let n = t.dim(1)?;
                let first = t.i((.., ..n - 1))?;
                Ok((first.clone(), first))
            }),
        ),
        wrong(
            "both kept at T steps, the target shifted left and padded at its end",
            &["T - 1", "all T steps"],
            q7.check(|t| {
                let (n, steps) = t.dims2()?;
                let pad = Tensor::zeros((n, 1), DType::U32, t.device())?;
                Ok((t.clone(), Tensor::cat(&[&t.narrow(1, 1, steps - 1)?, &pad], 1)?))
            }),
        ),
    ]
}

/// The encoder block's forward as a student writes it.
#[derive(Clone, Copy)]
struct Block {
    mask: bool,
    first_residual: bool,
    relu: bool,
    /// What the feed-forward's output is added to: the first sum, the input, or nothing.
    second: Second,
    /// Whether the feed-forward network reads the first sum (else the block's input).
    ffn_on_sum: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Second {
    Sum,
    Input,
    Nothing,
}

const BLOCK: Block = Block { mask: true, first_residual: true, relu: true, second: Second::Sum, ffn_on_sum: true };

fn block(b: &TransformerEncoderBlock, x: &Tensor, mask: Option<&Tensor>, how: Block) -> Result<Tensor> {
    let attended = b.attention.forward(x, x, x, mask.filter(|_| how.mask))?.output;
    let y = if how.first_residual { (x + attended)? } else { attended };
    let hidden = b.ffn_in.forward(if how.ffn_on_sum { &y } else { x })?;
    let ffn = b.ffn_out.forward(&if how.relu { hidden.relu()? } else { hidden })?;
    match how.second {
        Second::Sum => y + ffn,
        Second::Input => x + ffn,
        Second::Nothing => Ok(ffn),
    }
}

pub(super) fn q8_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the mask not passed", &["mask never reached", "mask"], q8.check(|b, x, m| block(b, x, m, Block { mask: false, ..BLOCK }))),
        wrong(
            "no first residual",
            &["replaced x", "first residual"],
            q8.check(|b, x, m| block(b, x, m, Block { first_residual: false, ..BLOCK })),
        ),
        wrong("no ReLU", &["no relu"], q8.check(|b, x, m| block(b, x, m, Block { relu: false, ..BLOCK }))),
        wrong(
            "the second residual onto the input",
            &["block's input", "second residual"],
            q8.check(|b, x, m| block(b, x, m, Block { second: Second::Input, ..BLOCK })),
        ),
        wrong(
            "no second residual",
            &["second residual", "replaced"],
            q8.check(|b, x, m| block(b, x, m, Block { second: Second::Nothing, ..BLOCK })),
        ),
        wrong(
            "the feed-forward reads the input, not the first sum",
            &["feed-forward", "first sum", "reads"],
            q8.check(|b, x, m| block(b, x, m, Block { ffn_on_sum: false, ..BLOCK })),
        ),
    ]
}
