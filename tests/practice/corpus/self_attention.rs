//! Wrong answers to part 3's exercises, written from the notebook's statements alone: q1 to q4
//! here, q5 to q8 in `self_attention/modules.rs`.

mod modules;

use super::{Wrong, wrong};
use attention_zoo::practice::self_attention::*;
use attention_zoo::prelude::*;

/// The sinusoidal table by loops over positions and columns, in f64 unless `f32_out`, with the
/// angle of column `j` at position `pos` given by `angle(pos, j, d_model)`, sin in the even
/// columns (in the odd ones when `cos_first`).
fn table(max_len: usize, d_model: usize, angle: fn(f64, usize, f64) -> f64, f32_out: bool, cos_first: bool) -> Result<Tensor> {
    let mut pe = vec![0f64; max_len * d_model];
    for pos in 0..max_len {
        for j in 0..d_model {
            let a = angle(pos as f64, j, d_model as f64);
            pe[pos * d_model + j] = if (j % 2 == 0) != cos_first { a.sin() } else { a.cos() };
        }
    }
    let t = Tensor::from_vec(pe, (max_len, d_model), &Device::Cpu)?;
    if f32_out { t.to_dtype(DType::F32) } else { Ok(t) }
}

/// `(1, size, size)` u8, 1 where `keep(row, column)`.
fn triangle(size: usize, keep: fn(usize, usize) -> bool) -> Result<Tensor> {
    let data: Vec<u8> = (0..size * size).map(|k| u8::from(keep(k / size, k % size))).collect();
    Tensor::from_vec(data, (1, size, size), &Device::Cpu)
}

pub fn corpus() -> Vec<Wrong> {
    let mut all = vec![
        // 03.q1: make_source_mask(source_seq (N, L, F)) -> (N, 1, L) u8
        wrong(
            "a point kept when any feature is non-zero",
            &["`.any`", "some zero features"],
            q1.check(|x| x.ne(0f32)?.max(2)?.unsqueeze(1)),
        ),
        wrong("1 on the padding", &["1 on the all-zero points", "inverted"], q1.check(|x| x.eq(0f32)?.min(2)?.unsqueeze(1))),
        wrong("no query dimension", &["unsqueeze(1)", "lacks a dimension"], q1.check(|x| x.ne(0f32)?.min(2))),
        wrong(
            "a point padded when its features sum to zero",
            &["`.any`", "some zero features"],
            q1.check(|x| x.sum_keepdim(2)?.ne(0f32)?.transpose(1, 2)),
        ),
        wrong("the new dimension put last, (N, L, 1)", &["unsqueeze(1)", "another order"], q1.check(|x| x.ne(0f32)?.min(2)?.unsqueeze(2))),
        wrong("a float mask", &["float", "u8"], q1.check(|x| x.ne(0f32)?.min(2)?.unsqueeze(1)?.to_dtype(DType::F32))),
        wrong(
            "the minimum over the steps instead of the features",
            &["over the steps", "dimension 1", "wrong dimension"],
            q1.check(|x| x.ne(0f32)?.min_keepdim(1)),
        ),
        // 03.q2: make_subsequent_mask(size) -> (1, size, size) u8
        wrong(
            "the diagonal hidden, 1 - triu(ones) with the diagonal",
            &["diagonal"],
            q2.check(|size| (1.0 - Tensor::triu2(size, DType::F32, &Device::Cpu)?)?.unsqueeze(0)?.to_dtype(DType::U8)),
        ),
        wrong("the strict upper triangle kept", &["inverted"], q2.check(|size| triangle(size, |i, j| j > i))),
        wrong("upper triangle", &["transposed", "upper"], q2.check(|size| Tensor::triu2(size, DType::U8, &Device::Cpu)?.unsqueeze(0))),
        wrong("no batch dimension", &["lacks a dimension", "unsqueeze"], q2.check(|size| Tensor::tril2(size, DType::U8, &Device::Cpu))),
        wrong("a float mask", &["float", "u8"], q2.check(|size| Tensor::tril2(size, DType::F32, &Device::Cpu)?.unsqueeze(0))),
        // 03.q3: make_shifted_target(full_seq, input_len)
        wrong("the target itself", &["not shifted"], q3.check(|x, n| x.i((.., n..)))),
        wrong(
            "the target without its first point",
            &["wrong way", "first point is dropped"],
            q3.check(|x, n| {
                let target = x.i((.., n..))?;
                target.i((.., 1..))
            }),
        ),
        wrong(
            "the source's first point in front",
            &["source's first point"],
            q3.check(|x, n| Tensor::cat(&[x.i((.., 0..1))?, x.i((.., n..x.dim(1)? - 1))?], 1)),
        ),
        wrong(
            "the target without its last point, nothing in front",
            &["in front", "source's last point"],
            q3.check(|x, n| x.i((.., n..x.dim(1)? - 1))),
        ),
        wrong(
            "the source's last point put at the end",
            &["at the end", "in front", "order"],
            q3.check(|x, n| Tensor::cat(&[x.i((.., n..x.dim(1)? - 1))?, x.i((.., n - 1..n))?], 1)),
        ),
        wrong(
            "the window taken one step too early",
            &["one point too early", "off by one"],
            q3.check(|x, n| {
                let lt = x.dim(1)? - n;
                x.narrow(1, n - 2, lt)
            }),
        ),
        // 03.q4: encoding_table(max_len, d_model)
        wrong(
            "positions counted from 1",
            &["start at 1", "start at 0"],
            q4.check(|m, d| table(m, d, |p, j, d| (p + 1.0) / 10000f64.powf((j - j % 2) as f64 / d), true, false)),
        ),
        wrong(
            "cos in the even columns",
            &["swapped"],
            q4.check(|m, d| table(m, d, |p, j, d| p / 10000f64.powf((j - j % 2) as f64 / d), true, true)),
        ),
        wrong(
            "the exponent i / d_model",
            &["i instead of 2i"],
            q4.check(|m, d| table(m, d, |p, j, d| p / 10000f64.powf((j / 2) as f64 / d), true, false)),
        ),
        wrong(
            "each column its own speed, j / d_model",
            &["share", "same angle", "pair"],
            q4.check(|m, d| table(m, d, |p, j, d| p / 10000f64.powf(j as f64 / d), true, false)),
        ),
        wrong(
            "the table left in float64",
            &["float64", "f64"],
            q4.check(|m, d| table(m, d, |p, j, d| p / 10000f64.powf((j - j % 2) as f64 / d), false, false)),
        ),
        wrong(
            "the sines in the first half, the cosines in the second",
            &["interleav", "halves", "first half"],
            q4.check(|m, d| {
                let pos = Tensor::arange(0u32, m as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
                let two_i = Tensor::arange_step(0u32, d as u32, 2, &Device::Cpu)?.to_dtype(DType::F32)?;
                let speed = (two_i * (-(10000f64).ln() / d as f64))?.exp()?.unsqueeze(0)?;
                let angles = pos.broadcast_mul(&speed)?;
                Tensor::cat(&[angles.sin()?, angles.cos()?], 1)
            }),
        ),
    ];
    all.extend(modules::corpus());
    all
}

/// Other correct ways to write part 3's exercises: each checks Correct.
#[test]
fn other_correct_forms() {
    let _serial = crate::common::serial();
    use super::super::correct;
    // q1: no zero among the features: their count of zeros is 0
    correct(q1.check(|x| x.eq(0f32)?.to_dtype(DType::F32)?.sum_keepdim(2)?.eq(0f32)?.transpose(1, 2)));
    // q2: tril; or a loop
    correct(q2.check(|size| Tensor::tril2(size, DType::U8, &Device::Cpu)?.unsqueeze(0)));
    correct(q2.check(|size| triangle(size, |i, j| j <= i)));
    // q3: one window of the whole sequence
    correct(q3.check(|x, n| x.narrow(1, n - 1, x.dim(1)? - n)));
    // q4: loops in f64, made float32 at the end
    correct(q4.check(|m, d| table(m, d, |p, j, d| p / 10000f64.powf((j - j % 2) as f64 / d), true, false)));
    modules::other_correct_forms();
}
