//! Held-out wrong answers to part 3 (03_self_attention.ipynb).

use super::{Wrong, wrong};
use attention_zoo::practice::self_attention::*;
use attention_zoo::prelude::*;

mod unscaled {
    use attention_zoo::prelude::*;

    #[allow(dead_code)] // the notebook's field, unused by this answer
    pub struct MyPositionalEncoding {
        pub d_model: usize,
        pub pe: Tensor,
    }

    impl MyPositionalEncoding {
        pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
            Ok(MyPositionalEncoding { d_model, pe: positional_encoding_table(max_len, d_model)?.unsqueeze(0)? })
        }

        pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
            // the encoding added, x never multiplied by sqrt(d_model)
            x.broadcast_add(&self.pe.i((.., ..x.dim(1)?))?)
        }
    }
}

mod scaled_table {
    use attention_zoo::prelude::*;

    pub struct MyPositionalEncoding {
        pub d_model: usize,
        pub pe: Tensor,
    }

    impl MyPositionalEncoding {
        pub fn new(max_len: usize, d_model: usize) -> Result<Self> {
            Ok(MyPositionalEncoding { d_model, pe: positional_encoding_table(max_len, d_model)?.unsqueeze(0)? })
        }

        pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
            // the encoding multiplied by sqrt(d_model) instead of x
            let pe = (self.pe.i((.., ..x.dim(1)?))? * (self.d_model as f64).sqrt())?;
            x.broadcast_add(&pe)
        }
    }
}

pub fn corpus() -> Vec<Wrong> {
    vec![
        // 03.q1 make_source_mask
        wrong(
            "a point kept when any feature is non-zero",
            &["any", "every feature", "every one of its features", "single zero", "one zero feature"],
            q1.check(|source_seq| source_seq.ne(0f32)?.max(2)?.unsqueeze(1)),
        ),
        wrong(
            "no middle dimension: (N, L)",
            &["unsqueeze", "middle dimension", "(n, 1, l)", "missing dimension"],
            q1.check(|source_seq| source_seq.ne(0f32)?.min(2)),
        ),
        // 03.q2 make_subsequent_mask
        wrong(
            "the diagonal hidden as well: one minus the upper triangle with its diagonal",
            &["diagonal", "itself"],
            q2.check(|size| (1.0 - Tensor::triu2(size, DType::F32, &Device::Cpu)?)?.unsqueeze(0)?.to_dtype(DType::U8)),
        ),
        wrong(
            "the upper triangle kept: each step sees the later ones",
            &["transpose", "upper", "later", "future"],
            q2.check(|size| Tensor::triu2(size, DType::F32, &Device::Cpu)?.unsqueeze(0)?.to_dtype(DType::U8)),
        ),
        // 03.q3 make_shifted_target
        wrong(
            "the target itself, not shifted",
            &["not shifted", "unshifted", "the target itself", "shift"],
            q3.check(|full_seq, input_len| full_seq.i((.., input_len..))),
        ),
        wrong(
            "the source's first point put in front instead of its last",
            &["first point", "last point", "source's last"],
            q3.check(|full_seq, input_len| {
                let l = full_seq.dim(1)?;
                Tensor::cat(&[full_seq.i((.., 0..1))?, full_seq.i((.., input_len..l - 1))?], 1)
            }),
        ),
        // 03.q4 encoding_table
        wrong(
            "the sines in the first half of the columns, the cosines in the second",
            &["interleave", "halves", "first half", "side by side", "alternate"],
            q4.check(|max_len, d_model| {
                let position = Tensor::arange(0u32, max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
                let speed = (Tensor::arange_step(0u32, d_model as u32, 2, &Device::Cpu)?.to_dtype(DType::F32)?
                    * (-(10000f64).ln() / d_model as f64))?
                    .exp()?;
                let angles = position.broadcast_mul(&speed.unsqueeze(0)?)?;
                Tensor::cat(&[angles.sin()?, angles.cos()?], 1)
            }),
        ),
        wrong(
            "the exponent i / d_model instead of 2i / d_model",
            &["2i", "twice", "exponent", "i / d_model", "speed"],
            q4.check(|max_len, d_model| {
                let position = Tensor::arange(0u32, max_len as u32, &Device::Cpu)?.to_dtype(DType::F32)?.unsqueeze(1)?;
                let speed = (Tensor::arange(0u32, (d_model / 2) as u32, &Device::Cpu)?.to_dtype(DType::F32)?
                    * (-(10000f64).ln() / d_model as f64))?
                    .exp()?;
                let angles = position.broadcast_mul(&speed.unsqueeze(0)?)?;
                Tensor::stack(&[angles.sin()?, angles.cos()?], 2)?.flatten_from(1)
            }),
        ),
        // 03.q5 MyPositionalEncoding
        wrong(
            "x not multiplied by the square root of d_model",
            &["square root", "sqrt", "scale", "√d"],
            q5.check(unscaled::MyPositionalEncoding::new, unscaled::MyPositionalEncoding::forward),
        ),
        wrong(
            "the encoding multiplied by the square root of d_model instead of x",
            &["the encoding instead", "scaled the table", "instead of x", "multiplies x", "x by"],
            q5.check(scaled_table::MyPositionalEncoding::new, scaled_table::MyPositionalEncoding::forward),
        ),
        // 03.q6 encoder_self_attention
        wrong(
            "the source never handed to the heads as their keys",
            &["init_keys", "keys"],
            q6.check(|encoder, query, mask| {
                let att = encoder.self_attn_heads.forward(query, mask)?;
                encoder.ffn.forward(&att)
            }),
        ),
        wrong(
            "the source mask not passed to the heads",
            &["mask"],
            q6.check(|encoder, query, _mask| {
                encoder.self_attn_heads.init_keys(query)?;
                let att = encoder.self_attn_heads.forward(query, None)?;
                encoder.ffn.forward(&att)
            }),
        ),
        // 03.q7 decoder_self_attention
        wrong(
            "the two masks swapped between the attentions",
            &["swapped", "exchanged", "each other", "source mask for the", "target mask for the"],
            q7.check(|decoder, query, source_mask, target_mask| {
                decoder.self_attn_heads.init_keys(query)?;
                let att1 = decoder.self_attn_heads.forward(query, source_mask)?;
                let att2 = decoder.cross_attn_heads.forward(&att1, target_mask)?;
                decoder.ffn.forward(&att2)
            }),
        ),
        wrong(
            "the cross-attention queried with the target itself, not the self-attention's output",
            &["query instead", "self-attention's output", "first attention", "att1", "output of the self-attention"],
            q7.check(|decoder, query, source_mask, target_mask| {
                decoder.self_attn_heads.init_keys(query)?;
                let _att1 = decoder.self_attn_heads.forward(query, target_mask)?;
                let att2 = decoder.cross_attn_heads.forward(query, source_mask)?;
                decoder.ffn.forward(&att2)
            }),
        ),
        // 03.q8 predict_steps
        wrong(
            "the source's point kept at the front of the predictions",
            &["first input", "drop", "source's point", "source's last point", "one point too many", "extra"],
            q8.check(|model, x, source_mask| {
                let source_seq = x.i((.., ..model.input_len))?;
                model.encode(&source_seq, source_mask)?;
                let mut inputs = source_seq.i((.., model.input_len - 1..))?;
                for i in 0..model.target_len {
                    let trg_masks = model.trg_masks.i((.., ..i + 1, ..i + 1))?;
                    let out = model.decode(&inputs, source_mask, Some(&trg_masks))?;
                    inputs = Tensor::cat(&[inputs, out.i((.., i..i + 1))?], 1)?.detach();
                }
                Ok(inputs)
            }),
        ),
        wrong(
            "the true target read from x and decoded in one go, as in training",
            &["true target", "teacher forcing", "uses x", "peek", "the target"],
            q8.check(|model, x, source_mask| {
                let source_seq = x.i((.., ..model.input_len))?;
                model.encode(&source_seq, source_mask)?;
                let l = x.dim(1)?;
                let shifted = x.i((.., model.input_len - 1..l - 1))?;
                let t = model.target_len;
                let trg_masks = model.trg_masks.i((.., ..t, ..t))?;
                model.decode(&shifted, source_mask, Some(&trg_masks))
            }),
        ),
    ]
}
