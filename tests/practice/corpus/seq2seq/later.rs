//! Wrong answers to part 1's q5 to q7: the encoder-decoder's loop, the loss, an encoder of one's own.

use super::super::{Wrong, wrong};
use attention_zoo::practice::seq2seq::*;
use attention_zoo::prelude::*;

/// The lecture's loop, with the choices a student may get wrong: what is encoded (`whole`: the
/// target too), the first input (`first`: an index of `x`), and the step of `x` fed with teacher
/// forcing at step `i` (`forced(input_len, i)`), or always (`always`) or never (`never`).
#[allow(clippy::too_many_arguments)]
fn student_loop(
    encoder: &mut Encoder,
    decoder: &mut Decoder,
    x: &Tensor,
    input_len: usize,
    target_len: usize,
    teacher_forcing: bool,
    whole: bool,
    first: usize,
    forced: fn(usize, usize) -> usize,
) -> Result<Tensor> {
    let source = x.narrow(1, 0, input_len)?;
    let hidden_seq = encoder.forward(if whole { x } else { &source })?;
    decoder.init_hidden(&hidden_seq)?;
    let mut input = x.narrow(1, first, 1)?;
    let mut outputs = vec![];
    for i in 0..target_len {
        let out = decoder.forward(&input)?;
        outputs.push(out.clone());
        input = if teacher_forcing { x.narrow(1, forced(input_len, i), 1)? } else { out };
    }
    Tensor::cat(&outputs, 1)
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 01.q5: encoder_decoder_forward(encoder, decoder, x, input_len, target_len, teacher_forcing)
        wrong(
            "the true target point fed whatever the flag says",
            &["teacher forcing is on at prediction"],
            q5.check(|e, d, x, il, tl, _| student_loop(e, d, x, il, tl, true, false, il - 1, |il, i| il + i)),
        ),
        wrong(
            "the prediction fed back whatever the flag says",
            &["teacher forcing is never", "true target point", "teacher forcing is off"],
            q5.check(|e, d, x, il, tl, _| student_loop(e, d, x, il, tl, false, false, il - 1, |il, i| il + i)),
        ),
        wrong(
            "the decoder started from the target's first point",
            &["source's last point", "first input"],
            q5.check(|e, d, x, il, tl, tf| student_loop(e, d, x, il, tl, tf, false, il, |il, i| il + i)),
        ),
        wrong(
            "with teacher forcing, the point before the true one fed (an index off by one)",
            &["one point behind", "off by one"],
            q5.check(|e, d, x, il, tl, tf| student_loop(e, d, x, il, tl, tf, false, il - 1, |il, i| il + i - 1)),
        ),
        wrong(
            "the whole sequence, target included, given to the encoder",
            &["whole sequence", "target included", "only the source"],
            q5.check(|e, d, x, il, tl, tf| student_loop(e, d, x, il, tl, tf, true, il - 1, |il, i| il + i)),
        ),
        // 01.q6: mse_loss(prediction, target) -> scalar
        wrong("the squares summed", &["sum of the squares"], q6.check(|p, t| (p - t)?.powf(2.0)?.sum_all())),
        wrong("the absolute differences averaged", &["not squared", "absolute"], q6.check(|p, t| (p - t)?.abs()?.mean_all())),
        wrong("the root of the mean square", &["square root", "root mean"], q6.check(|p, t| (t - p)?.sqr()?.mean_all()?.sqrt())),
        wrong("half the mean square", &["a half"], q6.check(|p, t| (p - t)?.sqr()?.mean_all()? * 0.5)),
        wrong(
            "the mean over the features only, not one number",
            &["one number", "every element", "last dimension only"],
            q6.check(|p, t| (p - t)?.sqr()?.mean(D::Minus1)),
        ),
        wrong(
            "the sum of the squares divided by the batch size",
            &["batch size", "number of sequences"],
            q6.check(|p, t| {
                let n = p.dim(0)? as f64;
                (p - t)?.sqr()?.sum_all()? / n
            }),
        ),
        // 01.q7: MyEncoder::new, MyEncoder::forward
        wrong(
            "forward returns the final hidden state",
            &["final hidden state"],
            q7.check(|n, h| Ok((h, Gru::new(n, h)?)), |m: &mut (usize, Gru), x| Ok(m.1.forward(x, None)?.1)),
        ),
        wrong(
            "an input layer created before the GRU",
            &["drew from the generator", "create the gru first"],
            q7.check(
                |n, h| {
                    let _embed = Linear::new(n, n)?;
                    Gru::new(n, h)
                },
                |m: &mut Gru, x| Ok(m.forward(x, None)?.0),
            ),
        ),
        wrong(
            "the GRU made twice (once to look at it), the second one kept",
            &["drew from the generator", "create the gru first"],
            q7.check(
                |n, h| {
                    let first = Gru::new(n, h)?;
                    let _ = first.hidden_size;
                    Gru::new(n, h)
                },
                |m: &mut Gru, x| Ok(m.forward(x, None)?.0),
            ),
        ),
        wrong(
            "forward returns the output of the last step only",
            &["every step", "last step's output", "only the last"],
            q7.check(Gru::new, |m: &mut Gru, x| {
                let out = m.forward(x, None)?.0;
                out.narrow(1, out.dim(1)? - 1, 1)
            }),
        ),
        wrong(
            "forward makes the output sequence-first",
            &["another order", "batch-first", "permute"],
            q7.check(Gru::new, |m: &mut Gru, x| m.forward(x, None)?.0.permute((1, 0, 2))),
        ),
    ]
}

/// Other correct ways to write q5 to q7.
pub fn other_correct_forms() {
    use super::super::super::correct;
    // q5: the loop indexing x directly, the predictions stacked
    correct(q5.check(|e, d, x, il, tl, tf| student_loop(e, d, x, il, tl, tf, false, il - 1, |il, i| il + i)));
    // q6: the mean as the sum over the count
    correct(q6.check(|p, t| {
        let diff = (p - t)?;
        (&diff * &diff)?.sum_all()? / diff.elem_count() as f64
    }));
    // q7: the GRU in a tuple struct, the output taken by pattern
    struct Mine(Gru);
    correct(q7.check(
        |n, h| Ok(Mine(Gru::new(n, h)?)),
        |m: &mut Mine, x| {
            let (out, _last) = m.0.forward(x, None)?;
            Ok(out)
        },
    ));
}
