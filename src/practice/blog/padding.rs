//! Part 5's padded batches: the key-padding mask, the cross-entropy that ignores padding, the
//! teacher-forcing targets of translation and the Transformer encoder block with its mask.

use crate::attention::padding_mask;
use crate::data::TranslationBatch;
use crate::models::TransformerEncoderBlock;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use crate::train::{CrossEntropyLoss, Reduction};
use candle_core::{DType, Device, Result, Tensor};

/// Rows of ids padded at their ends with `pad` to the longest, `(N, L)` u32.
fn padded(rows: &[&[u32]], pad: u32) -> Result<Tensor> {
    let l = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let ids: Vec<u32> = rows.iter().flat_map(|r| r.iter().copied().chain(std::iter::repeat_n(pad, l - r.len()))).collect();
    Tensor::from_vec(ids, (rows.len(), l), &Device::Cpu)
}

exercise! {
    /// The key-padding mask of the encoder block: true where a token is padding.
    q5: Q5 = Info {
        id: "05.q5",
        title: "the key-padding mask from token ids",
        lecture: "004#25",
        hints: &[
            "PyTorch's `key_padding_mask` is true where a key must be ignored, the padding: the reverse of the lecture's keep masks.",
            "It is batch-first, (N, L), one row per sentence, even though the block's input is sequence-first.",
            "`ids.eq(pad_id)` compares every id with the padding id and gives a u8 tensor of the same shape.",
        ],
        solution: solution!(blog::key_padding_mask),
    }
}

impl Exercise for Q5 {
    type Input = (Tensor, u32);
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        Ok(vec![
            Case::new("3 sentences of lengths 4, 1 and 6, padding id 0", (padded(&[&[5, 6, 7, 8], &[9], &[4, 5, 6, 7, 8, 9]], 0)?, 0))
                .pad(0),
            Case::new("one sentence of 5 tokens, no padding, padding id 0", (padded(&[&[4, 8, 6, 5, 7]], 0)?, 0)).pad(0),
            Case::new("2 sentences of lengths 2 and 5, padding id 3", (padded(&[&[7, 8], &[9, 10, 11, 12, 13]], 3)?, 3)).pad(3),
        ])
    }

    fn reference((ids, pad): &Self::Input) -> Result<Tensor> {
        padding_mask(ids, *pad)?.squeeze(1)?.ne(0f32)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The mask is inverted: the block's key_padding_mask is true where a token is padding (ignore), not where it is a word (keep).",
                answer: |(ids, pad)| ids.ne(*pad),
            },
            Mistake {
                sentence: "The mask is (N, 1, L), the lecture's broadcast shape: the encoder block takes key_padding_mask as (N, L).",
                answer: |(ids, pad)| ids.eq(*pad)?.unsqueeze(1),
            },
            Mistake {
                sentence: "The mask is sequence-first (L, N): the block's input is (L, N, E), but its key_padding_mask is batch-first, (N, L).",
                answer: |(ids, pad)| ids.eq(*pad)?.t(),
            },
            Mistake { sentence: "The padding id is the argument pad_id, not always 0.", answer: |(ids, _)| ids.eq(0u32) },
            Mistake {
                sentence: "The mask is float32: the block takes a u8 mask, 1 at the padding, as `ids.eq(pad_id)` gives it.",
                answer: |(ids, pad)| ids.eq(*pad)?.to_dtype(DType::F32),
            },
        ]
    }
}

impl Q5 {
    /// Checks `f(ids (N, L) u32, pad_id) -> (N, L) u8`, 1 where the id is `pad_id`, against the
    /// crate's `padding_mask` (0 or -inf, `(N, 1, L)`) read as PyTorch's `key_padding_mask`.
    pub fn check(&self, f: impl Fn(&Tensor, u32) -> Result<Tensor>) -> Outcome {
        Self::run(|(ids, pad)| f(ids, *pad))
    }
}

/// Logits `(N, T, V)`, target ids `(N, T)` padded with `pad`, and `pad`.
type LossCase = (Tensor, Tensor, u32);

/// The losses of every target, `(N, T)`, padding included.
fn per_target((logits, targets, _): &LossCase) -> Result<Tensor> {
    CrossEntropyLoss::new().reduction(Reduction::None).forward(logits, targets)
}

/// 1.0 where the target is a word, 0.0 at the padding.
fn words((_, targets, pad): &LossCase) -> Result<Tensor> {
    targets.ne(*pad)?.to_dtype(DType::F32)
}

exercise! {
    /// The translation loss: the cross-entropy of the words, the padding left out.
    q6: Q6 = Info {
        id: "05.q6",
        title: "the cross-entropy that ignores padding",
        lecture: "ours",
        hints: &[
            "The loss of one position is minus the log-probability the logits give to the target id: a log-softmax over the vocabulary (the last dimension), then `gather` the target's entry.",
            "Positions whose target is the padding id must count for nothing: multiply by a 0/1 mask made with `targets.ne(pad_id)`.",
            "The mean is over the words only: divide the masked sum by the number of non-padding targets, not by N * T.",
        ],
        solution: solution!(blog::masked_cross_entropy),
    }
}

impl Exercise for Q6 {
    type Input = LossCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, rows: &[&[u32]], vocab: usize, pad: u32| -> Result<LossCase> {
            let targets = padded(rows, pad)?;
            let (n, t) = targets.dims2()?;
            Ok((randn(seed, &[n, t, vocab])?, targets, pad))
        };
        Ok(vec![
            Case::new("2 targets of lengths 5 and 2, 7 words, padding id 0, seed 51", case(51, &[&[3, 4, 5, 6, 2], &[6, 2]], 7, 0)?).pad(0),
            Case::new(
                "3 targets of lengths 2, 6 and 1, 11 words, padding id 0, seed 52",
                case(52, &[&[9, 2], &[3, 10, 4, 8, 5, 2], &[2]], 11, 0)?,
            )
            .pad(0),
            Case::new("one target of one word, 4 words, padding id 0, seed 53", case(53, &[&[3]], 4, 0)?).pad(0),
            Case::new(
                "3 targets of lengths 4, 1 and 3, 9 words among them id 0, padding id 5, seed 54",
                case(54, &[&[0, 7, 2, 8], &[1], &[6, 0, 3]], 9, 5)?,
            )
            .pad(5),
        ])
    }

    fn reference((logits, targets, pad): &Self::Input) -> Result<Tensor> {
        CrossEntropyLoss::new().ignore_index(*pad as i64).forward(logits, targets)
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The padding is counted in the loss: positions whose target is pad_id must add nothing and not count in the mean (ignore_index).",
                answer: |c| per_target(c)?.mean_all(),
            },
            Mistake {
                sentence: "The padding's losses are masked but the mean still divides by every position, pads included: divide by the number of non-padding targets.",
                answer: |c| (per_target(c)? * words(c)?)?.sum_all()?.affine(1.0 / c.1.elem_count() as f64, 0.0),
            },
            Mistake {
                sentence: "That is the sum of the words' losses: the loss is their mean (divide by the number of non-padding targets).",
                answer: |c| (per_target(c)? * words(c)?)?.sum_all(),
            },
            Mistake {
                sentence: "The padding id is the argument pad_id, not always 0: the positions to leave out are those whose target is pad_id.",
                answer: |(logits, targets, _)| CrossEntropyLoss::new().ignore_index(0).forward(logits, targets),
            },
            Mistake {
                sentence: "The log-softmax runs over the positions (dimension 1): the probabilities are over the vocabulary, the last dimension of the logits.",
                answer: |c| {
                    let (logits, targets, _) = c;
                    let log_p = candle_nn::ops::log_softmax(logits, 1)?.gather(&targets.unsqueeze(2)?.contiguous()?, 2)?.squeeze(2)?;
                    (log_p * words(c)?)?.sum_all()?.neg()? / words(c)?.sum_all()?.to_scalar::<f32>()? as f64
                },
            },
            Mistake {
                sentence: "That is the mean of each sentence's mean: the loss averages every word of the batch at once, so a long sentence counts more than a short one.",
                answer: |c| {
                    let keep = words(c)?;
                    ((per_target(c)? * &keep)?.sum(1)? / keep.sum(1)?)?.mean_all()
                },
            },
        ]
    }
}

impl Q6 {
    /// Checks `f(logits (N, T, V), targets (N, T) u32, pad_id) -> scalar` against the crate's
    /// `CrossEntropyLoss::new().ignore_index(pad_id)`.
    pub fn check(&self, f: impl Fn(&Tensor, &Tensor, u32) -> Result<Tensor>) -> Outcome {
        Self::run(|(logits, targets, pad)| f(logits, targets, *pad))
    }
}

exercise! {
    /// The decoder's input and what it learns to predict, from a padded batch of targets.
    q7: Q7 = Info {
        id: "05.q7",
        title: "the teacher-forcing input and target",
        lecture: "ours",
        hints: &[
            "Each target row is `<sos>` w1 ... wk `<eos>` then padding. The decoder reads a token and predicts the next one.",
            "The decoder's input starts with `<sos>` and stops one step before the end; what it predicts starts one step later, after `<sos>`.",
            "`tgt.i((.., ..t - 1))?` is the input and `tgt.i((.., 1..))?` the target, with `t = tgt.dim(1)?`.",
        ],
        solution: solution!(blog::teacher_forcing_targets),
    }
}

impl Exercise for Q7 {
    type Input = TranslationBatch;
    type Answer = (Tensor, Tensor);

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let batch = |targets: &[&[u32]]| -> Result<TranslationBatch> {
            let pairs: Vec<(Vec<u32>, Vec<u32>)> = targets.iter().map(|t| (vec![4, 5], t.to_vec())).collect();
            TranslationBatch::from_pairs(&pairs)
        };
        Ok(vec![
            Case::new(
                "3 targets of 5, 3 and 7 tokens (<sos> and <eos> included), padded",
                batch(&[&[1, 8, 9, 10, 2], &[1, 7, 2], &[1, 4, 5, 6, 7, 8, 2]])?,
            ),
            Case::new("one target of two tokens, <sos> <eos>", batch(&[&[1, 2]])?),
            Case::new("2 targets of 4 tokens, no padding", batch(&[&[1, 5, 6, 2], &[1, 9, 3, 2]])?),
        ])
    }

    fn reference(b: &Self::Input) -> Result<(Tensor, Tensor)> {
        Ok((b.tgt_input()?, b.tgt_output()?))
    }

    fn mistakes() -> Vec<Mistake<Self::Input, (Tensor, Tensor)>> {
        vec![
            Mistake {
                sentence: "The target is not shifted: fed the token it must predict, the decoder learns to copy. Its input stops one step early; its target starts one step late.",
                answer: |b| Ok((b.tgt.clone(), b.tgt.clone())),
            },
            Mistake {
                sentence: "Input and target are swapped: the decoder reads <sos> first (the target without its last step) and predicts the target without <sos>.",
                answer: |b| Ok((b.tgt_output()?, b.tgt_input()?)),
            },
            Mistake {
                sentence: "The decoder's input has lost <sos>: it must start with <sos>, the target without its last step, not its first.",
                answer: |b| Ok((b.tgt_output()?, b.tgt_output()?)),
            },
            Mistake {
                sentence: "The decoder's target still starts with <sos>: it never has to predict <sos>, so its target is the target without its first step.",
                answer: |b| Ok((b.tgt_input()?, b.tgt_input()?)),
            },
            Mistake {
                sentence: "Your input and target keep all T steps, the target padded at its end: both have T - 1, the input without the last column and the target without the first.",
                answer: |b| {
                    let (n, t) = b.tgt.dims2()?;
                    let pad = Tensor::zeros((n, 1), DType::U32, b.tgt.device())?;
                    Ok((b.tgt.clone(), Tensor::cat(&[&b.tgt.narrow(1, 1, t - 1)?, &pad], 1)?))
                },
            },
        ]
    }
}

impl Q7 {
    /// Checks `f(tgt (N, T) u32) -> (decoder input (N, T - 1), decoder target (N, T - 1))` against
    /// the crate's `TranslationBatch::tgt_input` and `tgt_output`.
    pub fn check(&self, f: impl Fn(&Tensor) -> Result<(Tensor, Tensor)>) -> Outcome {
        Self::run(|b| f(&b.tgt))
    }
}

/// An encoder block under one seed, its input `(L, N, E)` and its key-padding mask `(N, L)`.
type BlockCase = (TransformerEncoderBlock, Tensor, Option<Tensor>);

/// The block's arithmetic with its parts chosen: the wrong answers of q8.
fn block_with((block, x, mask): &BlockCase, use_mask: bool, first_residual: bool, relu: bool, second_onto_input: bool) -> Result<Tensor> {
    let attended = block.attention.forward(x, x, x, mask.as_ref().filter(|_| use_mask))?.output;
    let y = if first_residual { (x + attended)? } else { attended };
    let hidden = block.ffn_in.forward(&y)?;
    let hidden = if relu { hidden.relu()? } else { hidden };
    let ffn = block.ffn_out.forward(&hidden)?;
    if second_onto_input { x + ffn } else { y + ffn }
}

exercise! {
    /// The blog post's Transformer encoder block, its forward pass with the key-padding mask.
    q8: Q8 = Info {
        id: "05.q8",
        title: "the encoder block's forward with its padding mask",
        lecture: "004#24",
        hints: &[
            "Self-attention first: `block.attention.forward(x, x, x, mask)?.output`, x being queries, keys and values and the mask going along.",
            "Two residual connections: add the attention's output to x, then add the feed-forward network's output to that sum.",
            "The feed-forward network is `block.ffn_in`, a ReLU (`.relu()?`), then `block.ffn_out`; the block has no layer normalisation.",
        ],
        solution: solution!(blog::encoder_block_forward),
    }
}

impl Exercise for Q8 {
    type Input = BlockCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let case = |seed, e: usize, heads: usize, ffn: usize, lengths: &[usize], masked: bool| -> Result<BlockCase> {
            let block = seeded(seed, || TransformerEncoderBlock::new(e, heads, ffn, 0.0))?;
            let l = lengths.iter().copied().max().unwrap_or(1);
            let ignore: Vec<u8> = lengths.iter().flat_map(|&len| (0..l).map(move |p| (p >= len) as u8)).collect();
            let mask = Tensor::from_vec(ignore, (lengths.len(), l), &Device::Cpu)?;
            Ok((block, randn(seed + 1, &[l, lengths.len(), e])?, masked.then_some(mask)))
        };
        Ok(vec![
            Case::new(
                "2 sentences of lengths 4 and 1, 6 features in 3 heads, a feed-forward of 10, seed 61",
                case(61, 6, 3, 10, &[4, 1], true)?,
            ),
            Case::new("one token, a batch of one, no mask, 4 features in one head, seed 62", case(62, 4, 1, 8, &[1], false)?),
            Case::new(
                "3 sentences of lengths 3, 7 and 5, 8 features in 4 heads, a feed-forward of 12, seed 63",
                case(63, 8, 4, 12, &[3, 7, 5], true)?,
            ),
        ])
    }

    fn reference((block, x, mask): &Self::Input) -> Result<Tensor> {
        block.clone().forward(x, mask.as_ref())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The padding mask never reached the attention: pass it as the attention's key_padding_mask, or the words attend to the padding too.",
                answer: |c| block_with(c, false, true, true, false),
            },
            Mistake {
                sentence: "The attention's output replaced x: the first residual connection adds it to x, `x + attended`.",
                answer: |c| block_with(c, true, false, true, false),
            },
            Mistake {
                sentence: "The feed-forward network has no ReLU between its two linear layers.",
                answer: |c| block_with(c, true, true, false, false),
            },
            Mistake {
                sentence: "The second residual connection adds the feed-forward output to the block's input: add it to x after the first residual, `x + attended`.",
                answer: |c| block_with(c, true, true, true, true),
            },
            Mistake {
                sentence: "The feed-forward network's output replaced the sum: the second residual connection adds it to x + attended.",
                answer: |(block, x, mask)| {
                    let y = (x + block.attention.forward(x, x, x, mask.as_ref())?.output)?;
                    block.ffn_out.forward(&block.ffn_in.forward(&y)?.relu()?)
                },
            },
            Mistake {
                sentence: "The feed-forward network reads the block's input x: it reads the first sum, x + attended, and its output is added to that sum.",
                answer: |(block, x, mask)| {
                    let y = (x + block.attention.forward(x, x, x, mask.as_ref())?.output)?;
                    y + block.ffn_out.forward(&block.ffn_in.forward(x)?.relu()?)?
                },
            },
        ]
    }
}

impl Q8 {
    /// Checks `f(block, x (L, N, E), key_padding_mask (N, L) or None) -> (L, N, E)` against the
    /// crate's `TransformerEncoderBlock::forward` (dropout 0).
    pub fn check(&self, f: impl Fn(&TransformerEncoderBlock, &Tensor, Option<&Tensor>) -> Result<Tensor>) -> Outcome {
        Self::run(|(block, x, mask)| f(block, x, mask.as_ref()))
    }
}
