//! q6 to q8: the encoder's self-attention, the decoder's masked self-attention and
//! cross-attention, and the encoder-decoder's prediction loop.

use super::{padded, zeroed};
use crate::attention::{source_mask, subsequent_mask};
use crate::models::{DecoderSelfAttn, EncoderDecoderSelfAttn, EncoderSelfAttn};
use crate::nn::Walk;
use crate::practice::cases::{Case, randn, seeded};
use crate::practice::declaration::Exercise;
use crate::practice::run::{Invariant, Mistake, Outcome};
use crate::practice::{Info, exercise, solution};
use candle_core::{IndexOp, Result, Tensor};

/// An encoder made under a seed, a source and its mask, if any.
type EncCase = (EncoderSelfAttn, Tensor, Option<Tensor>);

/// A mask with its 0s and 1s swapped, if there is one.
fn flipped(mask: Option<&Tensor>) -> Result<Option<Tensor>> {
    mask.map(|m| m.ones_like()? - m).transpose()
}

exercise! {
    /// The encoder's self-attention layer: every point of the source is a query, a key and a value.
    q6: Q6 = Info {
        id: "03.q6",
        title: "the encoder's self-attention",
        lecture: "000#66",
        hints: &[
            "In self-attention the source plays every part: give it to the heads as their keys (and values), then ask them with it as the query.",
            "`encoder.self_attn_heads.init_keys(query)?`, then `encoder.self_attn_heads.forward(query, mask)?`: the mask hides the padded points.",
            "The heads' output goes through the feed-forward network: `encoder.ffn.forward(&att)` are the encoder's states, (N, L, d_model).",
        ],
        solution: solution!(self_attention::encoder_self_attention),
    }
}

impl Exercise for Q6 {
    type Input = EncCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let encoder = |seed, heads, d_model, ff, features| seeded(seed, || EncoderSelfAttn::new(heads, d_model, ff, Some(features)));
        let (x, mask) = padded(51, (3, 4, 2), &[1, 0, 2])?;
        Ok(vec![
            Case::new(
                "EncoderSelfAttn(3, 2, 10, 2) under seed 5, a padded batch of 3 (3, 4, 2) with its source mask",
                (encoder(5, 3, 2, 10, 2)?, x, Some(mask)),
            ),
            Case::new(
                "EncoderSelfAttn(2, 4, 8, 3) under seed 8, a batch of one, one step (1, 1, 3), no mask",
                (encoder(8, 2, 4, 8, 3)?, randn(52, &[1, 1, 3])?, None),
            ),
            Case::new(
                "EncoderSelfAttn(1, 6, 5, 2) under seed 17, (2, 7, 2), no mask",
                (encoder(17, 1, 6, 5, 2)?, randn(53, &[2, 7, 2])?, None),
            ),
        ])
    }

    fn reference((e, x, m): &Self::Input) -> Result<Tensor> {
        e.clone().forward(x, m.as_ref())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The mask is not used: the padded points get attention. Pass it to the heads, `self_attn_heads.forward(query, mask)`.",
                answer: |(e, x, _)| e.clone().forward(x, None),
            },
            Mistake {
                sentence: "The feed-forward network is missing: the heads' output goes through `ffn` to become the encoder's states.",
                answer: |(e, x, m)| {
                    let mut heads = e.self_attn_heads.clone();
                    heads.init_keys(x)?;
                    heads.forward(x, m.as_ref())
                },
            },
            Mistake {
                sentence: "The mask is inverted: the heads attend only to the padded points. The source mask is 1 on the points to keep; pass it as it is.",
                answer: |(e, x, m)| e.clone().forward(x, flipped(m.as_ref())?.as_ref()),
            },
        ]
    }
}

impl Q6 {
    /// Checks `f(encoder, query (N, L, F), mask (N, 1, L)) -> (N, L, d_model)` against the crate's
    /// `EncoderSelfAttn::forward`.
    pub fn check(&self, f: impl Fn(&mut EncoderSelfAttn, &Tensor, Option<&Tensor>) -> Result<Tensor>) -> Outcome {
        Self::run(|(e, x, m)| f(&mut e.clone(), x, m.as_ref()))
    }
}

/// A decoder made under a seed with its encoder states in place, a (shifted) target, the source
/// mask and the target mask.
type DecCase = (DecoderSelfAttn, Tensor, Option<Tensor>, Option<Tensor>);

exercise! {
    /// The decoder's layer: masked self-attention over the target, then cross-attention over the source.
    q7: Q7 = Info {
        id: "03.q7",
        title: "the decoder's masked self-attention and cross-attention",
        lecture: "000#70",
        hints: &[
            "Two attentions in a row: the target attends to itself (self-attention, under the target mask), then the result attends to the encoder's states (cross-attention, under the source mask).",
            "The self-attention heads take the query as their keys: `decoder.self_attn_heads.init_keys(query)?`; the cross-attention heads already hold the encoder's states.",
            "`att1 = self_attn_heads.forward(query, target_mask)`, `att2 = cross_attn_heads.forward(&att1, source_mask)`, and the prediction is `decoder.ffn.forward(&att2)`.",
        ],
        solution: solution!(self_attention::decoder_self_attention),
    }
}

impl Exercise for Q7 {
    type Input = DecCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let decoder = |seed, heads, d_model, ff, features, states: &Tensor| {
            let mut d = seeded(seed, || DecoderSelfAttn::new(heads, d_model, ff, Some(features)))?;
            d.init_keys(states)?;
            Ok::<_, candle_core::Error>(d)
        };
        let (_, source_mask) = padded(61, (2, 4, 2), &[2, 0])?;
        let one = decoder(6, 3, 2, 10, 2, &randn(62, &[2, 4, 2])?)?;
        let two = decoder(9, 2, 4, 6, 3, &randn(63, &[1, 3, 4])?)?;
        let three = decoder(14, 1, 2, 4, 2, &randn(64, &[3, 2, 2])?)?;
        Ok(vec![
            Case::new(
                "DecoderSelfAttn(3, 2, 10, 2) under seed 6, a padded source of 4 steps (batch of 2) with its mask, a shifted target of 3 steps under subsequent_mask(3)",
                (one, randn(65, &[2, 3, 2])?, Some(source_mask), Some(subsequent_mask(3)?)),
            ),
            Case::new(
                "DecoderSelfAttn(2, 4, 6, 3) under seed 9, a batch of one, 5 target steps under subsequent_mask(5), no source mask",
                (two, randn(66, &[1, 5, 3])?, None, Some(subsequent_mask(5)?)),
            ),
            Case::new(
                "DecoderSelfAttn(1, 2, 4, 2) under seed 14, the first step at prediction: one input (3, 1, 2) under subsequent_mask(1)",
                (three, randn(67, &[3, 1, 2])?, None, Some(subsequent_mask(1)?)),
            ),
        ])
    }

    fn reference((d, q, sm, tm): &Self::Input) -> Result<Tensor> {
        d.clone().forward(q, sm.as_ref(), tm.as_ref())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "The target mask is not used: each step of the target sees the later ones (the future) in the self-attention. Pass `target_mask` to `self_attn_heads`.",
                answer: |(d, q, sm, _)| d.clone().forward(q, sm.as_ref(), None),
            },
            Mistake {
                sentence: "The self-attention is skipped: the target attends to the source right away. First the target attends to itself (`self_attn_heads`), then the result to the source.",
                answer: |(d, q, sm, _)| {
                    let mut d = d.clone();
                    let att = d.cross_attn_heads.forward(q, sm.as_ref())?;
                    d.ffn.forward(&att)
                },
            },
            Mistake {
                sentence: "The source mask is not used: the cross-attention looks at the padded points of the source. Pass `source_mask` to `cross_attn_heads`.",
                answer: |(d, q, _, tm)| d.clone().forward(q, None, tm.as_ref()),
            },
            Mistake {
                sentence: "The feed-forward network is missing: the cross-attention's output goes through `ffn`, which turns it back into points.",
                answer: |(d, q, sm, tm)| {
                    let mut d = d.clone();
                    d.self_attn_heads.init_keys(q)?;
                    let att = d.self_attn_heads.forward(q, tm.as_ref())?;
                    d.cross_attn_heads.forward(&att, sm.as_ref())
                },
            },
            Mistake {
                sentence: "The target mask is inverted: each step sees only the later steps. Pass `target_mask` as it is, 1 on and below the diagonal.",
                answer: |(d, q, sm, tm)| d.clone().forward(q, sm.as_ref(), flipped(tm.as_ref())?.as_ref()),
            },
        ]
    }
}

impl Q7 {
    /// Checks `f(decoder, query (N, Lt, F), source_mask (N, 1, L), target_mask (1, Lt, Lt)) -> (N, Lt, F)`
    /// against the crate's `DecoderSelfAttn::forward`; the decoder's cross-attention already has
    /// the encoder's states.
    #[allow(clippy::type_complexity)]
    pub fn check(&self, f: impl Fn(&mut DecoderSelfAttn, &Tensor, Option<&Tensor>, Option<&Tensor>) -> Result<Tensor>) -> Outcome {
        Self::run(|(d, q, sm, tm)| f(&mut d.clone(), q, sm.as_ref(), tm.as_ref()))
    }
}

/// A model in evaluation mode made under a seed, a whole sequence (the target included) and a
/// source mask, if any.
type PredictCase = (EncoderDecoderSelfAttn, Tensor, Option<Tensor>);

/// The decoder's inputs grown one prediction at a time, each step decoding only `inputs[:, -1:]`
/// (`last_only`) or only the source's last point (otherwise).
fn fed_one(model: &EncoderDecoderSelfAttn, x: &Tensor, mask: Option<&Tensor>, last_only: bool) -> Result<Tensor> {
    let mut m = model.clone();
    let source = x.i((.., ..m.input_len))?;
    m.encode(&source, mask)?;
    let first = source.i((.., m.input_len - 1..))?;
    let mut inputs = first.clone();
    for _ in 0..m.target_len {
        let fed = if last_only { inputs.i((.., inputs.dim(1)? - 1..))? } else { first.clone() };
        let out = m.decode(&fed, mask, Some(&subsequent_mask(1)?))?;
        inputs = Tensor::cat(&[inputs, out], 1)?;
    }
    inputs.i((.., 1..))
}

exercise! {
    /// The encoder-decoder at prediction time: one step at a time, feeding its own predictions.
    q8: Q8 = Info {
        id: "03.q8",
        title: "the prediction loop of the self-attention encoder-decoder",
        lecture: "000#80",
        hints: &[
            "At prediction the target is unknown: encode the source (`x[:, :input_len]`), then generate target_len points one at a time, starting from the source's last point.",
            "Each step decodes ALL the inputs so far under `model.trg_masks[:, :i+1, :i+1]`, and appends only the last prediction, `out[:, -1:]` (that is `out.i((.., i..i + 1))`).",
            "After the loop, drop the first input (the source's point): `inputs.i((.., 1..))` is the (N, target_len, F) prediction.",
        ],
        solution: solution!(self_attention::predict_steps),
    }
}

impl Exercise for Q8 {
    type Input = PredictCase;
    type Answer = Tensor;

    fn cases() -> Result<Vec<Case<Self::Input>>> {
        let model = |seed, heads, d_model, input_len, target_len| {
            let m = seeded(seed, || {
                let encoder = EncoderSelfAttn::new(heads, d_model, 10, Some(2))?;
                let decoder = DecoderSelfAttn::new(heads, d_model, 10, Some(2))?;
                EncoderDecoderSelfAttn::new(encoder, decoder, input_len, target_len)
            })?;
            // an untrained model's predictions barely depend on its inputs: doubled weights make
            // each usual mistake show beyond the tolerance
            for p in m.parameters() {
                p.set(&(p.tensor() * 2.0)?)?;
            }
            m.eval();
            Ok::<_, candle_core::Error>(m)
        };
        // the first source point padded
        let x = zeroed(72, (1, 7, 2), |_, t, _| t == 0)?;
        let mask = source_mask(&x.i((.., ..3))?)?;
        Ok(vec![
            Case::new(
                "EncoderSelfAttn and DecoderSelfAttn(3, 2, 10, 2) under seed 23, weights doubled, 2 + 3 points, a batch of 2",
                (model(23, 3, 2, 2, 3)?, randn(71, &[2, 5, 2])?, None),
            ),
            Case::new(
                "d_model 4, 2 heads, under seed 31, weights doubled, 3 + 4 points, a batch of one whose first point is padding, with its source mask",
                (model(31, 2, 4, 3, 4)?, x, Some(mask)),
            ),
            Case::new(
                "1 head, d_model 2, under seed 44, weights doubled, 1 + 1 points, a batch of 3",
                (model(44, 1, 2, 1, 1)?, randn(73, &[3, 2, 2])?, None),
            ),
        ])
    }

    fn reference((m, x, mask): &Self::Input) -> Result<Tensor> {
        m.clone().forward_masked(x, mask.as_ref())
    }

    fn mistakes() -> Vec<Mistake<Self::Input, Tensor>> {
        vec![
            Mistake {
                sentence: "Teacher forcing is on at prediction: you decoded the true (shifted) target. At prediction the target is unknown; each step must be fed the model's own predictions.",
                answer: |(m, x, mask)| {
                    let mut m = m.clone();
                    m.train();
                    m.forward_masked(x, mask.as_ref())
                },
            },
            Mistake {
                sentence: "Each step decodes only the last input: the decoder must see every input so far (the source's point and all the predictions), under the growing mask.",
                answer: |(m, x, mask)| fed_one(m, x, mask.as_ref(), true),
            },
            Mistake {
                sentence: "Every step gives the prediction for the source's last point alone (decoding it alone, or appending the output's first point): append the output's last point, `out[:, -1:]`, and decode all the inputs at the next step.",
                answer: |(m, x, mask)| fed_one(m, x, mask.as_ref(), false),
            },
            Mistake {
                sentence: "The source's last point is still in front: drop the first input at the end, `inputs[:, 1:]`, it is not a prediction.",
                answer: |(m, x, mask)| {
                    let ys = m.clone().forward_masked(x, mask.as_ref())?;
                    Tensor::cat(&[x.i((.., m.input_len - 1..m.input_len))?, ys], 1)
                },
            },
            Mistake {
                sentence: "The loop stops one step short: it runs target_len times, one prediction each, so that the answer is (N, target_len, F).",
                answer: |(m, x, mask)| {
                    let ys = m.clone().forward_masked(x, mask.as_ref())?;
                    ys.narrow(1, 0, m.target_len - 1)
                },
            },
        ]
    }

    fn invariants() -> Vec<Invariant<Self::Input>> {
        vec![Invariant {
            sentence: "Your prediction changes when only the target's points of x change: at prediction the loop must decode its own predictions, never the target.",
            vary: |(m, x, mask)| {
                let i = m.input_len;
                Ok((m.clone(), Tensor::cat(&[x.i((.., ..i))?, ((x.i((.., i..))? * -3.0)? + 1.0)?], 1)?, mask.clone()))
            },
        }]
    }
}

impl Q8 {
    /// Checks `f(model, x (N, input_len + target_len, F), source_mask) -> (N, target_len, F)`
    /// against the crate's `EncoderDecoderSelfAttn` in evaluation mode; `x` holds the target too,
    /// which a prediction must not look at.
    pub fn check(&self, f: impl Fn(&mut EncoderDecoderSelfAttn, &Tensor, Option<&Tensor>) -> Result<Tensor>) -> Outcome {
        Self::run(|(m, x, mask)| f(&mut m.clone(), x, mask.as_ref()))
    }
}
