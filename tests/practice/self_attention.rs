//! Part 3's exercises, both ways.

use super::{correct, incorrect, mistake, not_attempted};
use attention_zoo::practice::self_attention::*;
use attention_zoo::practice::solutions::self_attention as s;
use attention_zoo::prelude::*;

#[test]
fn q1_source_mask() {
    let _serial = crate::common::serial();
    correct(q1.check(s::make_source_mask));
    not_attempted(q1.check(|_| todo!()));
    // kept when any feature is non-zero
    mistake(q1.check(|x| x.ne(0f32)?.max(2)?.unsqueeze(1)), "`.any`");
    // 1 on the padding
    mistake(q1.check(|x| x.eq(0f32)?.max(2)?.unsqueeze(1)), "inverted");
    mistake(q1.check(|x| x.ne(0f32)?.min(2)), "unsqueeze(1)");
    // a float mask: the dtype is named in the difference, and in a sentence
    let float = q1.check(|x| x.ne(0f32)?.min(2)?.unsqueeze(1)?.to_dtype(DType::F32));
    incorrect(float.clone(), "`.to_dtype(DType::U8)?`");
    mistake(float, "as `source_mask` makes it");
}

#[test]
fn q2_subsequent_mask() {
    let _serial = crate::common::serial();
    correct(q2.check(s::make_subsequent_mask));
    correct(q2.check(|size| Tensor::tril2(size, DType::U8, &Device::Cpu)?.unsqueeze(0)));
    not_attempted(q2.check(|_| todo!()));
    mistake(
        q2.check(|size| {
            (Tensor::tril2(size, DType::F32, &Device::Cpu)? - Tensor::eye(size, DType::F32, &Device::Cpu)?)?
                .unsqueeze(0)?
                .to_dtype(DType::U8)
        }),
        "a step must see itself",
    );
    mistake(
        q2.check(|size| {
            (Tensor::triu2(size, DType::F32, &Device::Cpu)? - Tensor::eye(size, DType::F32, &Device::Cpu)?)?
                .unsqueeze(0)?
                .to_dtype(DType::U8)
        }),
        "inverted",
    );
    mistake(q2.check(|size| Tensor::triu2(size, DType::U8, &Device::Cpu)?.unsqueeze(0)), "transposed");
}

#[test]
fn q3_shifted_target() {
    let _serial = crate::common::serial();
    correct(q3.check(s::make_shifted_target));
    not_attempted(q3.check(|_, _| todo!()));
    mistake(q3.check(|full, input_len| full.narrow(1, input_len, full.dim(1)? - input_len)), "not shifted");
    mistake(
        q3.check(|full, input_len| {
            let target = full.i((.., input_len..))?;
            target.narrow(1, 1, target.dim(1)? - 1)
        }),
        "wrong way",
    );
    mistake(
        q3.check(|full, input_len| {
            let l = full.dim(1)?;
            Tensor::cat(&[full.narrow(1, 0, 1)?, full.narrow(1, input_len, l - input_len - 1)?], 1)
        }),
        "source's first point",
    );
}

/// The table by loops over positions and pairs, as a student might write it, with the positions
/// from `first`, the exponent's numerator `step * i` and cos before sin when `swapped`.
fn table_by_loops(max_len: usize, d_model: usize, first: usize, step: usize, swapped: bool) -> Result<Tensor> {
    let mut pe = vec![0f32; max_len * d_model];
    for pos in 0..max_len {
        for i in 0..d_model / 2 {
            let angle = (pos + first) as f32 / 10000f32.powf((step * i) as f32 / d_model as f32);
            let (even, odd) = if swapped { (angle.cos(), angle.sin()) } else { (angle.sin(), angle.cos()) };
            pe[pos * d_model + 2 * i] = even;
            pe[pos * d_model + 2 * i + 1] = odd;
        }
    }
    Tensor::from_vec(pe, (max_len, d_model), &Device::Cpu)
}

#[test]
fn q4_encoding_table() {
    let _serial = crate::common::serial();
    correct(q4.check(s::encoding_table));
    correct(q4.check(|m, d| table_by_loops(m, d, 0, 2, false)));
    not_attempted(q4.check(|_, _| todo!()));
    mistake(q4.check(|m, d| table_by_loops(m, d, 1, 2, false)), "start at 1");
    mistake(q4.check(|m, d| table_by_loops(m, d, 0, 2, true)), "swapped");
    mistake(q4.check(|m, d| table_by_loops(m, d, 0, 1, false)), "i instead of 2i");
}

#[test]
fn q5_positional_encoding() {
    let _serial = crate::common::serial();
    correct(q5.check(s::MyPositionalEncoding::new, s::MyPositionalEncoding::forward));
    not_attempted(q5.check(|_, _| -> Result<s::MyPositionalEncoding> { todo!() }, s::MyPositionalEncoding::forward));
    let cut = |pe: &s::MyPositionalEncoding, l: usize| pe.pe.narrow(1, 0, l);
    mistake(q5.check(s::MyPositionalEncoding::new, move |pe, x| x.broadcast_add(&cut(pe, x.dim(1)?)?)), "not scaled");
    mistake(
        q5.check(s::MyPositionalEncoding::new, |pe, x| {
            let (max_len, l) = (pe.pe.dim(1)?, x.dim(1)?);
            (x * (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe.narrow(1, max_len - l, l)?)
        }),
        "end of the table",
    );
    mistake(
        q5.check(s::MyPositionalEncoding::new, move |pe, x| x.broadcast_add(&cut(pe, x.dim(1)?)?)? * (pe.d_model as f64).sqrt()),
        "scaled too",
    );
    // the whole table added: a shape error, shown as the student's
    incorrect(q5.check(s::MyPositionalEncoding::new, |pe, x| (x * (pe.d_model as f64).sqrt())?.broadcast_add(&pe.pe)), "error");
}

#[test]
fn q6_encoder_self_attention() {
    let _serial = crate::common::serial();
    correct(q6.check(s::encoder_self_attention));
    not_attempted(q6.check(|_, _, _| todo!()));
    mistake(
        q6.check(|enc, query, _mask| {
            enc.self_attn_heads.init_keys(query)?;
            let att = enc.self_attn_heads.forward(query, None)?;
            enc.ffn.forward(&att)
        }),
        "mask is not used",
    );
    mistake(
        q6.check(|enc, query, mask| {
            enc.self_attn_heads.init_keys(query)?;
            enc.self_attn_heads.forward(query, mask)
        }),
        "feed-forward network is missing",
    );
}

#[test]
fn q7_decoder_self_attention() {
    let _serial = crate::common::serial();
    correct(q7.check(s::decoder_self_attention));
    not_attempted(q7.check(|_, _, _, _| todo!()));
    mistake(
        q7.check(|dec, query, source_mask, _target_mask| {
            dec.self_attn_heads.init_keys(query)?;
            let att1 = dec.self_attn_heads.forward(query, None)?;
            let att2 = dec.cross_attn_heads.forward(&att1, source_mask)?;
            dec.ffn.forward(&att2)
        }),
        "target mask is not used",
    );
    mistake(
        q7.check(|dec, query, source_mask, _target_mask| {
            let att = dec.cross_attn_heads.forward(query, source_mask)?;
            dec.ffn.forward(&att)
        }),
        "self-attention is skipped",
    );
    mistake(
        q7.check(|dec, query, _source_mask, target_mask| {
            dec.self_attn_heads.init_keys(query)?;
            let att1 = dec.self_attn_heads.forward(query, target_mask)?;
            let att2 = dec.cross_attn_heads.forward(&att1, None)?;
            dec.ffn.forward(&att2)
        }),
        "source mask is not used",
    );
}

#[test]
fn q8_predict_steps() {
    let _serial = crate::common::serial();
    correct(q8.check(s::predict_steps));
    not_attempted(q8.check(|_, _, _| todo!()));
    // decodes the shifted target in one go, as in training
    mistake(
        q8.check(|model, x, source_mask| {
            let input_len = model.input_len;
            model.encode(&x.i((.., ..input_len))?, source_mask)?;
            let shifted = x.narrow(1, input_len - 1, model.target_len)?;
            let mask = model.trg_masks.clone();
            model.decode(&shifted, source_mask, Some(&mask))
        }),
        "Teacher forcing is on at prediction",
    );
    mistake(
        q8.check(|model, x, source_mask| {
            let input_len = model.input_len;
            let source = x.narrow(1, 0, input_len)?;
            model.encode(&source, source_mask)?;
            let mut inputs = source.narrow(1, input_len - 1, 1)?;
            let mut last = inputs.clone();
            for _ in 0..model.target_len {
                let mask = model.trg_masks.i((.., ..1, ..1))?;
                let out = model.decode(&last, source_mask, Some(&mask))?;
                inputs = Tensor::cat(&[inputs, out.clone()], 1)?;
                last = out;
            }
            inputs.narrow(1, 1, model.target_len)
        }),
        "only the last input",
    );
    mistake(
        q8.check(|model, x, source_mask| {
            let input_len = model.input_len;
            let source = x.narrow(1, 0, input_len)?;
            model.encode(&source, source_mask)?;
            let mut inputs = source.narrow(1, input_len - 1, 1)?;
            for i in 0..model.target_len {
                let mask = model.trg_masks.i((.., ..i + 1, ..i + 1))?;
                let out = model.decode(&inputs, source_mask, Some(&mask))?;
                inputs = Tensor::cat(&[inputs, out.narrow(1, i, 1)?], 1)?;
            }
            Ok(inputs)
        }),
        "still in front",
    );
    // the source's last point decoded again at every step
    mistake(
        q8.check(|model, x, source_mask| {
            let input_len = model.input_len;
            let source = x.narrow(1, 0, input_len)?;
            model.encode(&source, source_mask)?;
            let start = source.narrow(1, input_len - 1, 1)?;
            let mask = subsequent_mask(1)?;
            let mut outs = vec![];
            for _ in 0..model.target_len {
                outs.push(model.decode(&start, source_mask, Some(&mask))?);
            }
            Tensor::cat(&outs, 1)
        }),
        "source's last point alone",
    );
}

/// The sentences added for the wrong-answer corpus, each reached by an answer of its own.
#[test]
fn more_named_mistakes() {
    let _serial = crate::common::serial();
    mistake(q1.check(|x| x.eq(0f32)?.to_dtype(DType::F32)?.min_keepdim(2)?.transpose(1, 2)?.to_dtype(DType::U8)), "all-zero points");
    mistake(q1.check(|x| x.ne(0f32)?.min_keepdim(2)), "new dimension is last");
    mistake(q1.check(|x| x.ne(0f32)?.min(1)?.unsqueeze(1)), "over the steps");
    mistake(q2.check(|size| Tensor::tril2(size, DType::U8, &Device::Cpu)), "(size, size)");
    mistake(q2.check(|size| Tensor::tril2(size, DType::F32, &Device::Cpu)?.unsqueeze(0)), "as the lecture's");
    let l = |x: &Tensor| x.dim(1).unwrap();
    mistake(q3.check(move |full, n| full.narrow(1, n, l(full) - n - 1)), "missing in front");
    mistake(q3.check(move |full, n| Tensor::cat(&[full.narrow(1, n, l(full) - n - 1)?, full.narrow(1, n - 1, 1)?], 1)), "is at the end");
    mistake(q3.check(move |full, n| full.i((.., n - 2..l(full) - 2))), "one point too early");
    let table = |m: usize, d: usize, value: fn(f64, usize, usize) -> f64| {
        let v: Vec<f32> = (0..m * d).map(|k| value((k / d) as f64, k % d, d) as f32).collect();
        Tensor::from_vec(v, (m, d), &Device::Cpu)
    };
    mistake(
        q4.check(move |m, d| {
            table(m, d, |p, j, d| {
                let a = p / 10000f64.powf(j as f64 / d as f64);
                if j % 2 == 0 { a.sin() } else { a.cos() }
            })
        }),
        "its own speed",
    );
    mistake(
        q4.check(move |m, d| {
            let half = |p: f64, j: usize, d: usize| {
                let a = p * (-(2.0 * (j % (d / 2)) as f64) * 10000f64.ln() / d as f64).exp();
                if j < d / 2 { a.sin() } else { a.cos() }
            };
            table(m, d, half)
        }),
        "first half",
    );
    mistake(q4.check(|m, d| s::encoding_table(m, d)?.to_dtype(DType::F64)), "float64");
    let pe = |m: &s::MyPositionalEncoding, x: &Tensor| m.pe.narrow(1, 0, x.dim(1).unwrap());
    mistake(
        q5.check(s::MyPositionalEncoding::new, move |m, x| (x / (m.d_model as f64).sqrt())?.broadcast_add(&pe(m, x)?)),
        "divided by sqrt(d_model)",
    );
    mistake(q5.check(s::MyPositionalEncoding::new, move |m, x| (x * m.d_model as f64)?.broadcast_add(&pe(m, x)?)), "d_model itself");
    mistake(
        q5.check(s::MyPositionalEncoding::new, |m, x| (x * (m.d_model as f64).sqrt())?.broadcast_add(&m.pe.narrow(1, 1, x.dim(1)?)?)),
        "starts at row 1",
    );
    let flip = |m: Option<&Tensor>| m.map(|m| (1.0 - m.to_dtype(DType::F32)?)?.to_dtype(DType::U8)).transpose();
    mistake(q6.check(move |enc, query, mask| enc.forward(query, flip(mask)?.as_ref())), "attend only to the padded points");
    mistake(
        q7.check(|dec, query, source_mask, target_mask| {
            dec.self_attn_heads.init_keys(query)?;
            let att = dec.self_attn_heads.forward(query, target_mask)?;
            dec.cross_attn_heads.forward(&att, source_mask)
        }),
        "turns it back into points",
    );
    mistake(q7.check(move |dec, query, sm, tm| dec.forward(query, sm, flip(tm)?.as_ref())), "sees only the later steps");
    mistake(
        q8.check(|model, x, source_mask| {
            let full = s::predict_steps(model, x, source_mask)?;
            full.narrow(1, 0, full.dim(1)? - 1)
        }),
        "one step short",
    );
}
