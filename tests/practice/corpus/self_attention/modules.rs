//! Wrong answers to part 3's q5 to q8: the positional encoding of one's own, the encoder's and
//! the decoder's layers, and the prediction loop.

use super::super::{Wrong, wrong};
use attention_zoo::practice::self_attention::*;
use attention_zoo::prelude::*;

/// The lecture's table kept as `(1, max_len, d_model)`, with `d_model`.
struct Pe {
    d_model: usize,
    pe: Tensor,
}

fn pe_new(max_len: usize, d_model: usize) -> Result<Pe> {
    Ok(Pe { d_model, pe: positional_encoding_table(max_len, d_model)?.unsqueeze(0)? })
}

/// `u8` 1 - mask.
fn flipped(mask: &Tensor) -> Result<Tensor> {
    mask.ones_like()? - mask
}

/// The prediction loop with the choices a student may get wrong: `steps` decode steps, the
/// `pick(i, len)` point of each output appended, the first input dropped at the end or not.
fn predict(
    model: &mut EncoderDecoderSelfAttn,
    x: &Tensor,
    mask: Option<&Tensor>,
    steps: usize,
    pick: fn(usize, usize) -> usize,
    drop_first: bool,
) -> Result<Tensor> {
    let n = model.input_len;
    let source = x.narrow(1, 0, n)?;
    model.encode(&source, mask)?;
    let mut inputs = source.narrow(1, n - 1, 1)?;
    for i in 0..steps {
        let corner = model.trg_masks.narrow(1, 0, i + 1)?.narrow(2, 0, i + 1)?;
        let out = model.decode(&inputs, mask, Some(&corner))?;
        let at = pick(i, out.dim(1)?);
        inputs = Tensor::cat(&[&inputs, &out.narrow(1, at, 1)?], 1)?;
    }
    if drop_first { inputs.narrow(1, 1, inputs.dim(1)? - 1) } else { Ok(inputs) }
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 03.q5: MyPositionalEncoding::new, forward
        wrong("x not scaled", &["not scaled"], q5.check(pe_new, |pe: &Pe, x| x.broadcast_add(&pe.pe.narrow(1, 0, x.dim(1)?)?))),
        wrong(
            "the last L rows of the table",
            &["end of the table"],
            q5.check(pe_new, |pe: &Pe, x| {
                let (m, l) = (pe.pe.dim(1)?, x.dim(1)?);
                (x * (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe.narrow(1, m - l, l)?)
            }),
        ),
        wrong(
            "the sum scaled, not x alone",
            &["scaled too"],
            q5.check(pe_new, |pe: &Pe, x| x.broadcast_add(&pe.pe.narrow(1, 0, x.dim(1)?)?)? * (pe.d_model as f64).sqrt()),
        ),
        wrong(
            "x divided by sqrt(d_model)",
            &["divided", "multiplies", "multiply"],
            q5.check(pe_new, |pe: &Pe, x| (x / (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe.narrow(1, 0, x.dim(1)?)?)),
        ),
        wrong(
            "x multiplied by d_model, not its square root",
            &["square root", "sqrt(d_model)"],
            q5.check(pe_new, |pe: &Pe, x| (x * pe.d_model as f64)?.broadcast_add(&pe.pe.narrow(1, 0, x.dim(1)?)?)),
        ),
        wrong(
            "the encoding taken from row 1",
            &["row 1", "off by one", "first l rows", "from row 0"],
            q5.check(pe_new, |pe: &Pe, x| (x * (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe.i((.., 1..x.dim(1)? + 1))?)),
        ),
        // 03.q6: encoder_self_attention(encoder, query, mask)
        wrong(
            "the mask not passed",
            &["mask is not used"],
            q6.check(|e, q, _| {
                e.self_attn_heads.init_keys(q)?;
                let att = e.self_attn_heads.forward(q, None)?;
                e.ffn.forward(&att)
            }),
        ),
        wrong(
            "no feed-forward network",
            &["feed-forward network is missing"],
            q6.check(|e, q, m| {
                e.self_attn_heads.init_keys(q)?;
                e.self_attn_heads.forward(q, m)
            }),
        ),
        wrong(
            "the mask inverted before it is passed",
            &["inverted"],
            q6.check(|e, q, m| {
                let m = m.map(flipped).transpose()?;
                e.self_attn_heads.init_keys(q)?;
                let att = e.self_attn_heads.forward(q, m.as_ref())?;
                e.ffn.forward(&att)
            }),
        ),
        wrong(
            "the keys never given to the heads",
            &["init_keys", "keys"],
            q6.check(|e, q, m| {
                let att = e.self_attn_heads.forward(q, m)?;
                e.ffn.forward(&att)
            }),
        ),
        // 03.q7: decoder_self_attention(decoder, query, source_mask, target_mask)
        wrong(
            "no target mask",
            &["target mask is not used"],
            q7.check(|d, q, sm, _| {
                d.self_attn_heads.init_keys(q)?;
                let a = d.self_attn_heads.forward(q, None)?;
                let b = d.cross_attn_heads.forward(&a, sm)?;
                d.ffn.forward(&b)
            }),
        ),
        wrong(
            "no self-attention",
            &["self-attention is skipped"],
            q7.check(|d, q, sm, _| {
                let b = d.cross_attn_heads.forward(q, sm)?;
                d.ffn.forward(&b)
            }),
        ),
        wrong(
            "no source mask",
            &["source mask is not used"],
            q7.check(|d, q, _, tm| {
                d.self_attn_heads.init_keys(q)?;
                let a = d.self_attn_heads.forward(q, tm)?;
                let b = d.cross_attn_heads.forward(&a, None)?;
                d.ffn.forward(&b)
            }),
        ),
        wrong(
            "no feed-forward network",
            &["feed-forward network is missing"],
            q7.check(|d, q, sm, tm| {
                d.self_attn_heads.init_keys(q)?;
                let a = d.self_attn_heads.forward(q, tm)?;
                d.cross_attn_heads.forward(&a, sm)
            }),
        ),
        wrong(
            "the target mask inverted",
            &["inverted"],
            q7.check(|d, q, sm, tm| {
                let tm = tm.map(flipped).transpose()?;
                d.self_attn_heads.init_keys(q)?;
                let a = d.self_attn_heads.forward(q, tm.as_ref())?;
                let b = d.cross_attn_heads.forward(&a, sm)?;
                d.ffn.forward(&b)
            }),
        ),
        wrong(
            "the two masks swapped",
            &["swapped"],
            q7.check(|d, q, sm, tm| {
                d.self_attn_heads.init_keys(q)?;
                let a = d.self_attn_heads.forward(q, sm)?;
                let b = d.cross_attn_heads.forward(&a, tm)?;
                d.ffn.forward(&b)
            }),
        ),
        // 03.q8: predict_steps(model, x, source_mask)
        wrong(
            "the true shifted target decoded at once",
            &["Teacher forcing is on at prediction"],
            q8.check(|m, x, sm| {
                let n = m.input_len;
                m.encode(&x.narrow(1, 0, n)?, sm)?;
                let shifted = x.narrow(1, n - 1, m.target_len)?;
                let masks = m.trg_masks.clone();
                m.decode(&shifted, sm, Some(&masks))
            }),
        ),
        wrong(
            "the source's point kept in front",
            &["still in front"],
            q8.check(|m, x, sm| {
                let steps = m.target_len;
                predict(m, x, sm, steps, |i, _| i, false)
            }),
        ),
        wrong(
            "one step short",
            &["one step short", "target_len steps", "one prediction too few"],
            q8.check(|m, x, sm| {
                let steps = m.target_len - 1;
                predict(m, x, sm, steps, |i, _| i, true)
            }),
        ),
        wrong(
            "the output's first point appended at every step",
            &["output's first point"],
            q8.check(|m, x, sm| {
                let steps = m.target_len;
                predict(m, x, sm, steps, |_, _| 0, true)
            }),
        ),
        wrong(
            "the source's last point decoded alone at every step",
            &["source's last point alone"],
            q8.check(|m, x, sm| {
                let n = m.input_len;
                m.encode(&x.narrow(1, 0, n)?, sm)?;
                let start = x.narrow(1, n - 1, 1)?;
                let one = subsequent_mask(1)?;
                let outs = (0..m.target_len).map(|_| m.decode(&start, sm, Some(&one))).collect::<Result<Vec<_>>>()?;
                Tensor::cat(&outs, 1)
            }),
        ),
    ]
}

/// Other correct ways to write q5 to q8.
pub fn other_correct_forms() {
    use super::super::super::correct;
    // q5: the table kept without its batch dimension, which broadcasts anyway
    struct Flat {
        d_model: usize,
        pe: Tensor,
    }
    correct(q5.check(
        |m, d| Ok(Flat { d_model: d, pe: positional_encoding_table(m, d)? }),
        |pe: &Flat, x| (x * (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe.narrow(0, 0, x.dim(1)?)?),
    ));
    // q6: the encoder's own forward
    correct(q6.check(|e, q, m| e.forward(q, m)));
    // q7: the decoder's own forward
    correct(q7.check(|d, q, sm, tm| d.forward(q, sm, tm)));
    // q8: the output's last point taken by its length; or the whole output after the first input
    correct(q8.check(|m, x, sm| {
        let steps = m.target_len;
        predict(m, x, sm, steps, |_, len| len - 1, true)
    }));
    correct(q8.check(|m, x, sm| {
        let n = m.input_len;
        let source = x.narrow(1, 0, n)?;
        m.encode(&source, sm)?;
        let first = source.narrow(1, n - 1, 1)?;
        let mut inputs = first.clone();
        for i in 0..m.target_len {
            let corner = m.trg_masks.i((.., ..i + 1, ..i + 1))?;
            let out = m.decode(&inputs, sm, Some(&corner))?;
            inputs = Tensor::cat(&[&first, &out], 1)?;
        }
        inputs.narrow(1, 1, m.target_len)
    }));
}
