//! The Transformer half (002 and the blog post's encoder block) under random sizes, dtypes,
//! values and masks: every public constructor and forward returns a result or an error.
//!
//! Most cases are well formed (sizes that fit, ids in the vocabulary, masks of the right shape,
//! values that may be NaN or infinite) so that the forwards run to the end; a `fault` number
//! picks the one thing a case gets wrong, so that each refusal is reached on its own.

use super::{config, input, tensor, values};
use crate::common;

use attention_zoo::attention::PackedMultiheadAttention;
use attention_zoo::prelude::*;
use proptest::prelude::*;

/// What a case gets wrong: nothing (most cases), or one of the faults below.
pub const FAULTS: usize = 14;
pub const WRONG_DTYPE: usize = 8;
pub const WRONG_WIDTH: usize = 9;
pub const WRONG_RANK: usize = 10;
pub const WRONG_MASK: usize = 11;
pub const WRONG_IDS: usize = 12;
pub const WILD_SIZES: usize = 13;

/// Token ids `(N, S)` of a `vocab`-word vocabulary: row `i` holds `lens[i]` ids drawn from
/// `draws`, then padding (id 0). `fault` may put an id out of the vocabulary, a float dtype, a
/// rank-1 tensor or an all-padding row.
pub fn id_batch(n: usize, s: usize, vocab: usize, draws: &[u32], lens: &[usize], fault: usize) -> Tensor {
    let vocab = vocab.max(2) as u32;
    let mut data = vec![0u32; n * s];
    for i in 0..n {
        let len = lens.get(i).copied().unwrap_or(s).clamp(1, s.max(1)).min(s);
        for j in 0..len {
            data[i * s + j] = 1 + draws[(i * s + j) % draws.len()] % (vocab - 1);
        }
    }
    match fault {
        WRONG_IDS if !data.is_empty() => {
            let last = data.len() - 1;
            data[last] = vocab + draws[0];
        }
        WRONG_RANK => return Tensor::from_vec(data, n * s, &Device::Cpu).expect("ids"),
        WRONG_MASK if n > 0 => data[..s].iter_mut().for_each(|v| *v = 0), // an all-padding row
        _ => {}
    }
    let t = Tensor::from_vec(data, (n, s), &Device::Cpu).expect("ids");
    if fault == WRONG_DTYPE { t.to_dtype(DType::F32).expect("float ids") } else { t }
}

/// Ids `(N, S)` of any sizes and values, or any tensor at all (another rank, a float dtype, NaN).
pub fn ids() -> impl Strategy<Value = Tensor> {
    prop_oneof![
        4 => (0usize..3, 0usize..5, prop::collection::vec(0u32..8, 1..6)).prop_map(|(n, l, v)| {
            let data: Vec<u32> = (0..n * l).map(|i| v[i % v.len()]).collect();
            Tensor::from_vec(data, (n, l), &Device::Cpu).expect("ids")
        }),
        1 => input(),
    ]
}

/// A float batch `(N, L, D)`, or with `fault` an integer dtype, a wrong width or rank 2.
pub fn floats(n: usize, l: usize, d: usize, v: &[f64], fault: usize) -> Tensor {
    match fault {
        WRONG_DTYPE => tensor(5, &[n, l, d], v),
        WRONG_WIDTH => tensor(0, &[n, l, d + 1], v),
        WRONG_RANK => tensor(0, &[n, l], v),
        _ => tensor(0, &[n, l, d], v),
    }
}

/// An additive mask `(N, Q, K)` (0 or -inf, as `bits` says; -inf never in column 0 unless
/// `bits` is odd), or with `fault` a wrong shape or an integer dtype.
pub fn additive(n: usize, q: usize, k: usize, bits: u64, fault: usize) -> Tensor {
    let data: Vec<f32> = (0..n * q * k)
        .map(|i| {
            let hidden = bits >> (i % 64) & 1 == 1 && (i % k.max(1) != 0 || bits & 1 == 1);
            if hidden { f32::NEG_INFINITY } else { 0.0 }
        })
        .collect();
    let t = Tensor::from_vec(data, (n, q, k), &Device::Cpu).expect("mask");
    match fault {
        WRONG_MASK => Tensor::zeros((n + 1, q, k + 1), DType::F32, &Device::Cpu).expect("mask"),
        WRONG_DTYPE => t.to_dtype(DType::U8).expect("u8 mask"),
        _ => t,
    }
}

/// A dropout probability: usual ones, the edges and nonsense.
pub fn p_drop() -> impl Strategy<Value = f64> {
    prop_oneof![6 => Just(0.0), 3 => 0.0f64..1.0, 1 => prop_oneof![Just(1.0), Just(-0.1), Just(1.5), Just(f64::NAN), Just(f64::INFINITY)]]
}

/// `(d_model, n_heads)`: heads dividing the width, or with [`WILD_SIZES`] any pair (zeros included).
fn widths(heads: usize, per_head: usize, wild: (usize, usize), fault: usize) -> (usize, usize) {
    if fault == WILD_SIZES { wild } else { (heads * per_head, heads) }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn attention_heads_never_panic(
        heads in 1usize..4, per_head in 1usize..3, wild in (0usize..6, 0usize..4), n in 0usize..3, q in 0usize..4, k in 1usize..4,
        p in p_drop(), v in values(), bits: u64, fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let (d, heads) = widths(heads, per_head, wild, fault);
        let (query, kv) = (floats(n, q, d, &v, fault), floats(n, k, d, &v, 0));
        let mask = additive(n, q, k, bits, fault);
        let per_head_mask = mask.unsqueeze(1).unwrap_or(mask.clone());
        // PyTorch's packed attention is sequence-first, its mask true at padded keys.
        let seq_first = |t: &Tensor| t.transpose(0, 1).unwrap_or(t.clone());
        let key_padding = mask.narrow(1, 0, 1.min(q)).and_then(|m| m.squeeze(1)).and_then(|m| m.ne(0f32)).unwrap_or(mask.clone());
        let _ = scaled_dot_product_attention_additive(&query, &kv, &kv, Some(&mask));
        let _ = scaled_dot_product_attention_additive(&query, &kv, &kv, None);
        if let Ok(narrow) = NarrowMultiHeadAttention::new(d, heads, p) {
            let _ = narrow.forward(&query, &kv, &kv, Some(&mask));
            let _ = narrow.forward(&query, &kv, &kv, Some(&per_head_mask));
            let _ = narrow.forward(&query, &query, &query, None);
            if let Ok(wide) = VectorisedMultiHeadAttention::from_narrow(&narrow) {
                let _ = wide.forward(&query, &kv, &kv, Some(&per_head_mask));
            }
        }
        if let Ok(wide) = VectorisedMultiHeadAttention::new(d, heads, p) {
            let _ = wide.forward(&query, &kv, &kv, Some(&mask));
        }
        if let Ok(packed) = PackedMultiheadAttention::new(d, heads, p) {
            let _ = packed.forward(&seq_first(&query), &seq_first(&kv), &seq_first(&kv), Some(&key_padding));
            let _ = packed.forward(&seq_first(&query), &seq_first(&query), &seq_first(&query), None);
            let _ = packed.forward(&query, &kv, &kv, Some(&mask));
        }
    }

    #[test]
    fn transformer_layers_never_panic(
        heads in 1usize..4, per_head in 1usize..3, wild in (0usize..6, 0usize..4), ff in 0usize..4, n in 0usize..3, l in 1usize..4, m in 1usize..4,
        vocab in 0usize..6, max_len in 0usize..6, p in p_drop(), v in values(), draws in prop::collection::vec(any::<u32>(), 1..6), bits: u64, fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let (d, heads) = widths(heads, per_head, wild, fault);
        let (x, memory) = (floats(n, l, d, &v, fault), floats(n, m, d, &v, 0));
        let (self_mask, cross_mask) = (additive(n, l, l, bits, fault), additive(n, 1, m, bits, fault));
        let tokens = id_batch(n, l, vocab, &draws, &[], fault);
        if let Ok(layer) = EncoderLayer::new(d, heads, ff, p) {
            let _ = layer.forward(&x, Some(&self_mask));
            let _ = layer.forward(&x, None);
        }
        if let Ok(layer) = DecoderLayer::new(d, heads, ff, p) {
            let _ = layer.forward(&x, &memory, Some(&cross_mask), Some(&self_mask));
            let _ = layer.forward(&x, &memory, None, None);
        }
        if let Ok(a) = AddNorm::new(d, p) { let _ = a.forward(&x, &memory.narrow(1, 0, 1).unwrap_or(memory.clone())); }
        if let Ok(f) = PointwiseFeedforward::new(d, ff, p) { let _ = f.forward(&x); }
        if let Ok(e) = Embeddings::new(vocab, d) { let _ = e.forward(&tokens); }
        if let Ok(pe) = TransformerPositionalEncoding::new(d, p, max_len) { let _ = pe.forward(&x); }
        if let Ok(pe) = TransformerPositionalEncoding::with_table(memory.clone(), p) { let _ = pe.forward(&x); }
        let _ = transformer_encoding_table(max_len, d);
        if let Ok(mut block) = TransformerEncoderBlock::new(d, heads, ff, p) {
            // Sequence-first, as the blog post's block (PyTorch's nn.MultiheadAttention) takes it.
            let x = x.transpose(0, 1).unwrap_or(x.clone());
            let key_padding = tokens.eq(0u32).unwrap_or(tokens.clone());
            let _ = block.forward(&x, Some(&key_padding));
            let _ = block.forward(&x, Some(&cross_mask));
            let _ = block.forward(&x, None);
        }
    }

    #[test]
    fn masks_never_panic(n in 0usize..4, l in 0usize..6, pad in 0u32..3, tokens in ids(), draws in prop::collection::vec(any::<u32>(), 1..6), lens in prop::collection::vec(0usize..6, 0..4), fault in 0usize..FAULTS) {
        let _serial = common::serial();
        let batch = id_batch(n, l, 6, &draws, &lens, fault);
        for t in [&tokens, &batch] {
            let _ = padding_mask(t, pad);
            let _ = attention_zoo::attention::target_mask(t, Some(pad));
            let _ = attention_zoo::attention::target_mask(t, None);
            let _ = attention_zoo::attention::key_padding_to_additive(t, n, l);
            let _ = attention_zoo::models::source_lengths("properties", t);
        }
        let _ = create_mask(n, l);
    }

    #[test]
    fn transformers_never_panic(
        src_vocab in 2usize..8, tgt_vocab in 4usize..8, heads in 1usize..3, per_head in 1usize..3, wild in (0usize..5, 0usize..3), layers in 1usize..3,
        max_len in 1usize..8, n in 0usize..3, s in 1usize..5, t in 1usize..5, pad in prop::option::of(0u32..2), vectorised: bool, xavier: bool,
        draws in prop::collection::vec(any::<u32>(), 1..8), lens in prop::collection::vec(1usize..5, 0..3), bits: u64, beam in 0usize..3, steps in 0usize..4, fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let (d, heads) = widths(heads, per_head, wild, fault);
        let cfg = TransformerConfig {
            d_model: d, n_heads: heads, d_ff: d + 1, n_layers: if fault == WILD_SIZES { layers - 1 } else { layers }, dropout: 0.0, max_len, pad_id: pad,
            heads: if vectorised { HeadLayout::Vectorised } else { HeadLayout::Narrow }, xavier_init: xavier,
            ..TransformerConfig::new(src_vocab, tgt_vocab)
        };
        let src = id_batch(n, s, src_vocab, &draws, &lens, fault);
        let tgt = id_batch(n, t, tgt_vocab, &draws, &[], fault);
        let (src_mask, tgt_mask) = (additive(n, 1, s, bits, fault), additive(n, t, t, bits, fault));
        let _ = EncoderLayer::from_config(&cfg);
        let _ = DecoderLayer::from_config(&cfg);
        let x = floats(n, t, d, &[0.5, -1.0], fault);
        if let Ok(enc) = TransformerEncoder::from_config(&cfg) { let _ = enc.forward(&x, Some(&tgt_mask)); }
        if let Ok(dec) = TransformerDecoder::from_config(&cfg) { let _ = dec.forward(&x, &x, None, Some(&tgt_mask)); }
        if let Ok(mut model) = Transformer::from_config(&cfg) {
            let _ = model.forward(&src, &tgt, None, None);
            let _ = model.forward(&src, &tgt, Some(&src_mask), Some(&tgt_mask));
            if let (Ok(own_src), Ok(own_tgt)) = (model.src_mask(&src), model.tgt_mask(&tgt)) {
                let _ = model.forward(&src, &tgt, own_src.as_ref(), Some(&own_tgt));
            }
            let _ = model.forward_with_attention(&src, &tgt, None, None);
            if let Ok(memory) = model.encode(&src, None) {
                let _ = model.decode(&tgt, &memory, None, None);
                let _ = model.decode(&tgt, &memory, Some(&src_mask), Some(&tgt_mask));
            }
            if let Ok(mut state) = model.encode_src(&src) {
                let _ = model.next_logits(&mut state, &tgt);
                let rows = Tensor::new(&[n.saturating_sub(1) as u32], &Device::Cpu).expect("rows");
                let _ = model.select_rows(&state, &rows);
            }
            let _ = model.teacher_forced(&src, &tgt);
            let _ = model.sentence_attention(&src, &tgt);
            let _ = greedy_decode(&mut model, &src, SOS_ID, EOS_ID, steps);
            let config = BeamConfig { n_best: if fault == WILD_SIZES { beam + 1 } else { beam.max(1) }, ..BeamConfig::new(beam, steps) };
            let _ = beam_search(&mut model, &src, SOS_ID, EOS_ID, &config);
            model.set_training(true);
            let _ = model.teacher_forced(&src, &tgt);
        }
    }
}
