//! Wrong answers to part 5's exercises, written from the notebook's statements alone.

mod padding;

use super::{Wrong, wrong};
use attention_zoo::practice::blog::*;
use attention_zoo::prelude::*;
use candle_nn::ops::sigmoid;
use padding::{q6_wrongs, q7_wrongs, q8_wrongs};

/// The plain layer's forward as a student writes it: the scores divided by sqrt(d) when `scale`,
/// the softmax over `dim`, the values projected when `project_values`.
fn plain(layer: &AttentionLayer, q: &Tensor, k: &Tensor, v: &Tensor, scale: bool, dim: usize, project_values: bool) -> Result<Tensor> {
    let pq = layer.query.forward(q)?;
    let mut scores = pq.matmul(&layer.key.forward(k)?.transpose(1, 2)?)?;
    if scale {
        scores = (scores / (pq.dim(2)? as f64).sqrt())?;
    }
    let weights = candle_nn::ops::softmax(&scores, dim)?;
    weights.matmul(&if project_values { layer.value.forward(v)? } else { v.clone() })
}

fn q1_wrongs() -> Vec<Wrong> {
    vec![
        wrong("the scores scaled by sqrt(d)", &["are scaled", "raw dot products"], q1.check(|l, q, k, v| plain(l, q, k, v, true, 2, true))),
        wrong("the softmax over dimension 1", &["over the queries", "dimension"], q1.check(|l, q, k, v| plain(l, q, k, v, false, 1, true))),
        wrong("the raw values mixed", &["raw values", "layer.value"], q1.check(|l, q, k, v| plain(l, q, k, v, false, 2, false))),
        wrong(
            "the softmax over the batch, dimension 0",
            &["dimension 0", "batch", "over another dimension"],
            q1.check(|l, q, k, v| plain(l, q, k, v, false, 0, true)),
        ),
        wrong(
            "the weights returned instead of the mix of the values",
            &["weights", "values"],
            q1.check(|l, q, k, _| softmax(&l.query.forward(q)?.matmul(&l.key.forward(k)?.t()?)?)),
        ),
    ]
}

/// One LSTM step as a student writes it: the gates in `order` (the positions of i, f, g, o in the
/// stacked product), `g_tanh` whether the candidate goes through tanh, `h_tanh` whether the new
/// cell state does, `both_biases` whether bias_hh is added.
fn cell(
    (x, h, c): (&Tensor, &Tensor, &Tensor),
    (w_ih, w_hh, b_ih, b_hh): (&Tensor, &Tensor, &Tensor, &Tensor),
    order: [usize; 4],
    g_tanh: bool,
    h_tanh: bool,
    both_biases: bool,
) -> Result<(Tensor, Tensor)> {
    let mut gates = (x.matmul(&w_ih.t()?)?.broadcast_add(b_ih)? + h.matmul(&w_hh.t()?)?)?;
    if both_biases {
        gates = gates.broadcast_add(b_hh)?;
    }
    let g = gates.chunk(4, 1)?;
    let (i, f, cand, o) = (sigmoid(&g[order[0]])?, sigmoid(&g[order[1]])?, &g[order[2]], sigmoid(&g[order[3]])?);
    let cand = if g_tanh { cand.tanh()? } else { sigmoid(cand)? };
    let c_next = ((f * c)? + (i * cand)?)?;
    let h_next = if h_tanh { (o * c_next.tanh()?)? } else { (o * &c_next)? };
    Ok((h_next, c_next))
}

const PYTORCH: [usize; 4] = [0, 1, 2, 3];

fn q2_wrongs() -> Vec<Wrong> {
    vec![
        wrong(
            "the gates read as i, f, o, g",
            &["gate", "order"],
            q2.check(|x, h, c, a, b, d, e| cell((x, h, c), (a, b, d, e), [0, 1, 3, 2], true, true, true)),
        ),
        wrong(
            "the gates read as TensorFlow's i, g, f, o",
            &["gate", "order"],
            q2.check(|x, h, c, a, b, d, e| cell((x, h, c), (a, b, d, e), [0, 2, 1, 3], true, true, true)),
        ),
        wrong(
            "h' = o * c', the tanh forgotten",
            &["tanh is missing", "tanh"],
            q2.check(|x, h, c, a, b, d, e| cell((x, h, c), (a, b, d, e), PYTORCH, true, false, true)),
        ),
        wrong(
            "the candidate through sigmoid",
            &["tanh, not sigmoid", "candidate"],
            q2.check(|x, h, c, a, b, d, e| cell((x, h, c), (a, b, d, e), PYTORCH, false, true, true)),
        ),
        wrong("bias_hh left out", &["bias"], q2.check(|x, h, c, a, b, d, e| cell((x, h, c), (a, b, d, e), PYTORCH, true, true, false))),
        wrong(
            "(c', h') returned in the other order",
            &["order", "swapped", "(h', c')"],
            q2.check(|x, h, c, a, b, d, e| {
                let (h, c) = cell((x, h, c), (a, b, d, e), PYTORCH, true, true, true)?;
                Ok((c, h))
            }),
        ),
    ]
}

/// The vectorised attention as a student writes it: `split_permute` whether the split permutes
/// after its reshape, `merge_permute` whether the merge permutes back, the scores divided by
/// `scale`, the output projection applied when `output`.
fn mha(
    m: &VectorisedMultiHeadAttention,
    inputs: [&Tensor; 3],
    split_permute: bool,
    merge_permute: bool,
    scale: f64,
    output: bool,
) -> Result<Tensor> {
    let split = |x: &Tensor| -> Result<Tensor> {
        let (n, l, _) = x.dims3()?;
        if split_permute {
            x.reshape((n, l, m.n_heads, m.d_k))?.permute((0, 2, 1, 3))?.contiguous()
        } else {
            x.reshape((n, m.n_heads, l, m.d_k))
        }
    };
    let [query, key, value] = inputs;
    let (q, k, v) = (split(&m.query.forward(query)?)?, split(&m.key.forward(key)?)?, split(&m.value.forward(value)?)?);
    let weights = softmax(&(q.matmul(&k.t()?.contiguous()?)? / scale)?)?;
    let heads = weights.matmul(&v)?;
    let (n, lq, _) = query.dims3()?;
    let merged = if merge_permute {
        heads.permute((0, 2, 1, 3))?.contiguous()?.reshape((n, lq, m.d_model))?
    } else {
        heads.reshape((n, lq, m.d_model))?
    };
    if output { m.output.forward(&merged) } else { Ok(merged) }
}

fn q3_wrongs() -> Vec<Wrong> {
    let sqrt_dk = |m: &VectorisedMultiHeadAttention| (m.d_k as f64).sqrt();
    vec![
        wrong(
            "the split by a reshape alone",
            &["split by a reshape"],
            q3.check(move |m, q, k, v| mha(m, [q, k, v], false, true, sqrt_dk(m), true)),
        ),
        wrong(
            "the merge by a reshape alone",
            &["merged by a reshape"],
            q3.check(move |m, q, k, v| mha(m, [q, k, v], true, false, sqrt_dk(m), true)),
        ),
        wrong("no scaling", &["not scaled"], q3.check(|m, q, k, v| mha(m, [q, k, v], true, true, 1.0, true))),
        wrong(
            "the scores divided by sqrt(d_model)",
            &["sqrt(d_model)"],
            q3.check(|m, q, k, v| mha(m, [q, k, v], true, true, (m.d_model as f64).sqrt(), true)),
        ),
        wrong("mha.output never applied", &["output"], q3.check(move |m, q, k, v| mha(m, [q, k, v], true, true, sqrt_dk(m), false))),
    ]
}

fn q4_wrongs() -> Vec<Wrong> {
    let run = |lstm: &Lstm, x: &Tensor| -> Result<Tensor> { Ok(lstm.forward(x, None)?.0) };
    vec![
        wrong(
            "the backward outputs not flipped back",
            &["back to front", "flip"],
            q4.check(move |f, b, x| Tensor::cat(&[run(f, x)?, run(b, &reverse_time(x)?)?], 2)),
        ),
        wrong(
            "the backward LSTM fed the sequence as it is",
            &["front to back", "reverse_time(x)"],
            q4.check(move |f, b, x| Tensor::cat(&[run(f, x)?, run(b, x)?], 2)),
        ),
        wrong(
            "the backward LSTM fed the sequence as it is, its outputs flipped",
            &["front to back", "reverse_time(x)", "reversed"],
            q4.check(move |f, b, x| Tensor::cat(&[run(f, x)?, reverse_time(&run(b, x)?)?], 2)),
        ),
        wrong(
            "the directions joined on the steps",
            &["on the steps", "dimension 1"],
            q4.check(move |f, b, x| Tensor::cat(&[run(f, x)?, reverse_time(&run(b, &reverse_time(x)?)?)?], 1)),
        ),
        wrong(
            "the backward direction first",
            &["wrong order", "forward direction's"],
            q4.check(move |f, b, x| Tensor::cat(&[reverse_time(&run(b, &reverse_time(x)?)?)?, run(f, x)?], 2)),
        ),
    ]
}

fn q5_wrongs() -> Vec<Wrong> {
    vec![
        wrong("true at the words", &["inverted"], q5.check(|ids, pad| ids.ne(pad))),
        wrong("the padding id taken as 0", &["pad_id", "padding id"], q5.check(|ids, _| ids.eq(0u32))),
        wrong("the lecture's (N, 1, L) shape", &["(N, 1, L)", "extra dimension"], q5.check(|ids, pad| ids.eq(pad)?.unsqueeze(1))),
        wrong("sequence-first, (L, N)", &["sequence-first", "(L, N)"], q5.check(|ids, pad| ids.eq(pad)?.t()?.contiguous())),
        wrong("the mask as float32 ones and zeros", &["dtype", "u8"], q5.check(|ids, pad| ids.eq(pad)?.to_dtype(DType::F32))),
    ]
}

pub fn corpus() -> Vec<Wrong> {
    [q1_wrongs(), q2_wrongs(), q3_wrongs(), q4_wrongs(), q5_wrongs(), q6_wrongs(), q7_wrongs(), q8_wrongs()].into_iter().flatten().collect()
}

/// Correct answers written otherwise than the solutions: each checks Correct.
#[test]
fn other_correct_forms() {
    use super::super::correct;
    let _serial = crate::common::serial();
    // q1: the keys transposed with transpose(1, 2), the softmax of candle_nn
    correct(q1.check(|l, q, k, v| {
        let scores = l.query.forward(q)?.matmul(&l.key.forward(k)?.transpose(1, 2)?.contiguous()?)?;
        candle_nn::ops::softmax_last_dim(&scores)?.matmul(&l.value.forward(v)?)
    }));
    // q2: the two products as one, over [x, h] and the weights joined
    correct(q2.check(|x, h, c, w_ih, w_hh, b_ih, b_hh| {
        let w = Tensor::cat(&[w_ih, w_hh], 1)?;
        let gates = Tensor::cat(&[x, h], 1)?.matmul(&w.t()?)?.broadcast_add(&(b_ih + b_hh)?)?;
        let hidden = h.dim(1)?;
        let gate = |k: usize| gates.narrow(1, k * hidden, hidden);
        let (i, f, g, o) = (sigmoid(&gate(0)?)?, sigmoid(&gate(1)?)?, gate(2)?.tanh()?, sigmoid(&gate(3)?)?);
        let c_next = ((f * c)? + (i * g)?)?;
        Ok(((o * c_next.tanh()?)?, c_next))
    }));
    // q3: every head in a loop, joined side by side
    correct(q3.check(|m, query, key, value| {
        let (q, k, v) = (m.query.forward(query)?, m.key.forward(key)?, m.value.forward(value)?);
        let heads: Vec<Tensor> = (0..m.n_heads)
            .map(|h| {
                let part = |t: &Tensor| t.narrow(2, h * m.d_k, m.d_k);
                let scores = (part(&q)?.matmul(&part(&k)?.t()?)? / (m.d_k as f64).sqrt())?;
                softmax(&scores)?.matmul(&part(&v)?)
            })
            .collect::<Result<_>>()?;
        m.output.forward(&Tensor::cat(&heads, 2)?)
    }));
    // q4: the steps flipped with index_select
    correct(q4.check(|f, b, x| {
        let l = x.dim(1)?;
        let back = Tensor::new((0..l as u32).rev().collect::<Vec<u32>>().as_slice(), x.device())?;
        let (fwd, _) = f.forward(x, None)?;
        let (bwd, _) = b.forward(&x.index_select(&back, 1)?, None)?;
        Tensor::cat(&[fwd, bwd.index_select(&back, 1)?], D::Minus1)
    }));
    // q5: the words' mask turned over
    correct(q5.check(|ids, pad| ids.ne(pad)?.eq(0u8)));
    // q6: the crate's per-position loss, masked by hand
    correct(q6.check(|l, t, pad| {
        let each = CrossEntropyLoss::new().reduction(Reduction::None).forward(l, t)?;
        let keep = t.ne(pad)?.to_dtype(DType::F32)?;
        (each * &keep)?.sum_all()? / keep.sum_all()?
    }));
    // q7: narrow rather than indexing
    correct(q7.check(|t| {
        let n = t.dim(1)?;
        Ok((t.narrow(1, 0, n - 1)?, t.narrow(1, 1, n - 1)?))
    }));
    // q8: the feed-forward written as one closure, the sums in the other order
    correct(q8.check(|b, x, m| {
        let ffn = |t: &Tensor| b.ffn_out.forward(&b.ffn_in.forward(t)?.relu()?);
        let y = (b.attention.forward(x, x, x, m)?.output + x)?;
        ffn(&y)? + y
    }));
}
