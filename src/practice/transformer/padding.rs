//! The key-padding mask of the Transformer's encoder layer, from token ids whose padding id is the
//! model's own (not always 0).

use crate::attention::padding_mask;
use crate::models::EncoderLayer;
use crate::practice::cases::{Case, randn, seeded, uniform};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{DType, Device, Result, Tensor};

/// An encoder layer, its input `(N, L, D)`, the ids `(N, L)` the input was made from, the pad id.
type PaddedCase = (EncoderLayer, Tensor, Tensor, u32);

exercise! {
    /// The encoder layer run over padded sentences, with the padding mask of their ids.
    q11: Q11 = Info {
        id: "04.q11",
        title: "the encoder layer's key-padding mask, any pad id",
        lecture: "ours",
        hints: &[
            "The mask is additive and has one row per sentence, `(N, 1, L)`: 0 where the id is a word, -inf where it equals `pad_id`; the `1` lets it broadcast over every query.",
            "`src.eq(pad_id)?` marks the padding (a u8 tensor); `where_cond` picks -inf there and 0 elsewhere, or use the crate's `padding_mask(src, pad_id)`.",
            "`let mask = padding_mask(src, pad_id)?;` then `Ok(layer.forward(x, Some(&mask))?.output)`.",
        ],
        solution: solution!(transformer::encode_padded),
    }
}

/// Case `seed`: a layer of width `d` in `heads` heads, sentences of `lengths` padded with `pad`,
/// their tokens drawn from `0..9` without `pad` (so 0 is a word where `pad` is not 0).
fn padded(seed: u64, d: usize, heads: usize, lengths: &[usize], pad: u32) -> Result<PaddedCase> {
    let layer = seeded(seed, || EncoderLayer::new(d, heads, 2 * d + 1, 0.0))?;
    let l = lengths.iter().copied().max().unwrap_or(1);
    let draws = uniform(seed + 1, &[lengths.len(), l], 0.0, 8.0)?.to_vec2::<f32>()?;
    let ids: Vec<u32> = draws
        .iter()
        .zip(lengths)
        .flat_map(|(row, &len)| {
            row.iter().enumerate().map(move |(j, v)| {
                if j >= len {
                    pad
                } else if (*v as u32) >= pad {
                    *v as u32 + 1
                } else {
                    *v as u32
                }
            })
        })
        .collect();
    let src = Tensor::from_vec(ids, (lengths.len(), l), &Device::Cpu)?;
    Ok((layer, randn(seed + 2, &[lengths.len(), l, d])?, src, pad))
}

/// The layer run with `mask`.
fn run((layer, x, _, _): &PaddedCase, mask: Option<&Tensor>) -> Result<Tensor> {
    Ok(layer.forward(x, mask)?.output)
}

impl Exercise for Q11 {
    type Input = PaddedCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("3 sentences of lengths 5, 2 and 4, pad id 3, width 6 in 2 heads", padded(111, 6, 2, &[5, 2, 4], 3)?).pad(3),
            Case::new("a batch of one, 4 tokens without padding, pad id 1, width 5 in one head", padded(114, 5, 1, &[4], 1)?).pad(1),
            Case::new("2 sentences of lengths 1 and 4, pad id 0, width 6 in 3 heads", padded(117, 6, 3, &[1, 4], 0)?).pad(0),
            Case::new("4 sentences of lengths 3, 6, 1 and 6, pad id 2, width 10 in 5 heads", padded(120, 10, 5, &[3, 6, 1, 6], 2)?).pad(2),
        ])
    }

    fn reference(c: &Self::Input) -> Result<Tensor> {
        run(c, Some(&padding_mask(&c.2, c.3)?))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The padding id is the argument pad_id, not always 0: here 0 is a word and the padding is another id.",
                answer: |c| run(c, Some(&padding_mask(&c.2, 0)?)),
            },
            Mistake {
                sentence: "The layer ran without the mask: pass `Some(&mask)`, or every word attends to the padding too.",
                answer: |c| run(c, None),
            },
            Mistake {
                sentence: "A keep mask of 1 and 0 was added to the scores: an additive mask holds 0 for a word and -inf (or a large negative number) for the padding.",
                answer: |c| run(c, Some(&c.2.ne(c.3)?.to_dtype(DType::F32)?.unsqueeze(1)?)),
            },
            Mistake {
                sentence: "The mask is (N, L, 1): it hides the padded queries' rows; the padding is a key, so the mask is (N, 1, L), one row broadcast over every query.",
                answer: |c| {
                    let m = c.2.eq(c.3)?.unsqueeze(2)?;
                    let (n, l) = c.2.dims2()?;
                    let minus = Tensor::full(-1e9f32, (n, l, 1), &Device::Cpu)?;
                    run(c, Some(&m.where_cond(&minus, &minus.zeros_like()?)?))
                },
            },
        ]
    }
}

impl Q11 {
    /// Checks `f(layer, x (N, L, D), src ids (N, L), pad_id) -> (N, L, D)`: the layer's output
    /// with the additive padding mask `(N, 1, L)` of `src`.
    pub fn check(&self, f: impl Fn(&EncoderLayer, &Tensor, &Tensor, u32) -> Result<Tensor>) -> Outcome {
        Self::run(|(layer, x, src, pad)| f(layer, x, src, *pad))
    }
}
