//! The terms of attention scores (the explorer's neuron view) against the forward passes they
//! explain: the weights are the forward's (and PyTorch's, for the GRU translator's fixture), the
//! dots are sums of the two vectors' products, the scores are the dots as each score function
//! scales them, their softmax gives the weights, masked keys score `-inf`; the Transformer's
//! queries and keys are its heads' own projections of each layer's input.

use crate::common;

use attention_zoo::models::{GruTranslator, GruTranslatorConfig, HeadLayout, LayerAttention};
use attention_zoo::prelude::*;
use common::fixtures::{IdRowsFx, TensorFx, assert_tensor_close, load_as, values};
use serde::Deserialize;

/// Σ_d left ⊙ right, from the terms' own tensors (left shared or per query, right per key or per pair).
fn dots_of(t: &ScoreTerms) -> Tensor {
    let (n, h, lq, lk) = t.dots.dims4().unwrap();
    let d = t.left.dim(D::Minus1).unwrap();
    let left = t.left.broadcast_as((n, h, lq, d)).unwrap().unsqueeze(3).unwrap().broadcast_as((n, h, lq, lk, d)).unwrap();
    let right = match t.right.rank() {
        5 => t.right.clone(),
        _ => t.right.unsqueeze(2).unwrap().broadcast_as((n, h, lq, lk, d)).unwrap(),
    };
    (left * right).unwrap().sum(D::Minus1).unwrap()
}

/// What every kind of terms satisfies: shapes, dots, softmax of the scores = the weights.
fn consistent(what: &str, t: &ScoreTerms, tol: f64) {
    assert_tensor_close(&format!("{what}: dots = Σ left ⊙ right"), &t.dots, &dots_of(t), tol);
    let softmax = candle_nn::ops::softmax_last_dim(&t.scores).unwrap();
    assert_tensor_close(&format!("{what}: softmax(scores) = weights"), &softmax, &t.weights, 1e-6);
}

#[test]
fn the_lectures_score_functions_give_their_terms() {
    let _guard = common::serial();
    let keys = Tensor::new(&[[[0.5f32, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 1.25, 1.0], [0.1, 0.2, 0.3]]], &Device::Cpu).unwrap();
    let query = Tensor::new(&[[[0.3f32, -0.6, 0.9], [1.0, 0.0, -1.0]]], &Device::Cpu).unwrap();
    let keep = Tensor::new(&[[[1u8, 1, 1, 0]]], &Device::Cpu).unwrap();
    for score in [Score::ScaledDot, Score::Dot, Score::General, Score::Additive, Score::Cosine] {
        let what = format!("{score:?}");
        manual_seed(3).unwrap();
        let mut a = Attention::with_score(3, None, false, score).unwrap();
        a.init_keys(&keys).unwrap();
        assert!(a.score_terms().unwrap_err().to_string().contains("no call to forward yet"), "{what}");
        for mask in [None, Some(&keep)] {
            a.forward(&query, mask).unwrap();
            let t = a.score_terms().unwrap();
            let alphas = a.alphas.clone().unwrap().unsqueeze(1).unwrap();
            assert_eq!(t.weights.dims(), [1, 1, 2, 4], "{what}");
            assert_eq!(values(&t.weights), values(&alphas), "{what}: the weights are the forward's alphas");
            consistent(&what, &t, 1e-5);
            let scores = values(&t.scores);
            let dots = values(&t.dots);
            for (i, (s, d)) in scores.iter().zip(&dots).enumerate() {
                if mask.is_some() && i % 4 == 3 {
                    assert_eq!(*s, f64::NEG_INFINITY, "{what}: a masked key scores -inf");
                    continue;
                }
                let want = match score {
                    Score::ScaledDot => d / 3f64.sqrt(),
                    Score::Cosine => {
                        let q = values(&t.left.get(0).unwrap().get(0).unwrap().get(i / 4).unwrap());
                        let k = values(&t.right.get(0).unwrap().get(0).unwrap().get(i % 4).unwrap());
                        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
                        d / (norm(&q) * norm(&k))
                    }
                    _ => *d,
                };
                assert!((s - want).abs() < 1e-5, "{what}: score {i} {s} against {want}");
            }
            let labels = match score {
                Score::General => ("q", "W k"),
                Score::Additive => ("v", "tanh(W [q; k])"),
                _ => ("q", "k"),
            };
            assert_eq!(t.labels, labels, "{what}");
        }
        // the projected query is the module's own
        let proj = a.linear_query.forward(&query).unwrap().unsqueeze(1).unwrap();
        if score != Score::Additive {
            assert_tensor_close(&format!("{what}: q"), &t_left(&a), &proj, 0.0);
        } else {
            let v = a.linear_v.as_ref().unwrap().weight.tensor().reshape((1, 1, 1, 3)).unwrap();
            assert_tensor_close(&format!("{what}: v"), &t_left(&a), &v, 0.0);
        }
    }
    manual_seed(3).unwrap();
    let mut located = Attention::with_score(3, None, false, Score::Location { source_len: 4 }).unwrap();
    located.init_keys(&keys).unwrap();
    located.forward(&query, None).unwrap();
    let e = located.score_terms().unwrap_err().to_string();
    assert!(e.starts_with("Attention::score_terms: ") && e.contains("location-based score compares no key"), "{e}");
}

fn t_left(a: &Attention) -> Tensor {
    a.score_terms().unwrap().left
}

#[test]
fn a_transformers_terms_are_its_heads_own() {
    let _guard = common::serial();
    for heads in [HeadLayout::Narrow, HeadLayout::Vectorised] {
        let cfg = TransformerConfig {
            d_model: 8,
            n_heads: 2,
            d_ff: 16,
            n_layers: 2,
            dropout: 0.0,
            max_len: 16,
            heads,
            ..TransformerConfig::new(11, 13)
        };
        manual_seed(5).unwrap();
        let model = Transformer::from_config(&cfg).unwrap();
        // the second source and target end in padding
        let src = Tensor::new(&[[4u32, 5, 6, 7], [8, 9, 0, 0]], &Device::Cpu).unwrap();
        let tgt = Tensor::new(&[[1u32, 4, 5], [1, 6, 0]], &Device::Cpu).unwrap();
        let maps = model.forward_with_attention(&src, &tgt, None, None).unwrap().maps;
        let terms = model.score_terms(&src, &tgt).unwrap();
        for (kind, t, m) in [
            ("encoder", &terms.encoder_self, &maps.encoder_self),
            ("decoder", &terms.decoder_self, &maps.decoder_self),
            ("cross", &terms.cross, &maps.cross),
        ] {
            assert_eq!(t.len(), 2);
            for (l, (t, m)) in t.iter().zip(m).enumerate() {
                let what = format!("{heads:?} {kind} layer {l}");
                assert_eq!(values(&t.weights), values(m), "{what}: the weights are the pass's maps");
                assert_eq!((t.score, t.labels, t.scaling.as_str()), ("scaled dot", ("q", "k"), "÷ √4"), "{what}");
                consistent(&what, t, 1e-5);
            }
        }
        // layer 0 of the encoder: the queries and keys are its heads' projections of the embedded source
        let x = model.src_pe.forward(&model.src_embedding.forward(&src).unwrap()).unwrap();
        let t0 = &terms.encoder_self[0];
        match &model.encoder.layers[0].mha {
            LayerAttention::Narrow(a) => {
                for h in 0..2 {
                    let q = a.linear_qs[h].forward(&x).unwrap();
                    assert_tensor_close(&format!("head {h}: q"), &t0.left.narrow(1, h, 1).unwrap().squeeze(1).unwrap(), &q, 0.0);
                    let k = a.linear_ks[h].forward(&x).unwrap();
                    assert_tensor_close(&format!("head {h}: k"), &t0.right.narrow(1, h, 1).unwrap().squeeze(1).unwrap(), &k, 0.0);
                }
            }
            LayerAttention::Vectorised(a) => {
                let q = a.query.forward(&x).unwrap().reshape((2, 4, 2, 4)).unwrap().transpose(1, 2).unwrap();
                assert_tensor_close("q", &t0.left, &q, 0.0);
            }
        }
        // the causal mask and the padding hide keys: -inf scores, zero weights
        let scores = values(&terms.decoder_self[1].scores);
        assert_eq!(scores[1], f64::NEG_INFINITY, "{heads:?}: the first target position cannot see the second");
        let cross = values(&terms.cross[0].scores);
        let (h, t, s) = (2, 3, 4);
        assert_eq!(cross[(h * t) * s + 2], f64::NEG_INFINITY, "{heads:?}: the second source's padding is hidden");
        let empty = Tensor::zeros((0, 3), DType::U32, &Device::Cpu).unwrap();
        let e = model.score_terms(&empty, &empty).unwrap_err().to_string();
        assert!(e.starts_with("Transformer::score_terms: ") && e.contains("empty batch"), "{e}");
    }
}

#[derive(Deserialize)]
struct GruFx {
    sizes: common::fixtures::RecurrentSizes,
    src: IdRowsFx,
    tgt_in: IdRowsFx,
    cases: Vec<GruCase>,
}

#[derive(Deserialize)]
struct GruCase {
    seed: i64,
    alphas: TensorFx,
}

/// The GRU translator's terms give PyTorch's attention weights (tests/fixtures/gru_translation.json).
#[test]
fn the_gru_translators_terms_give_pytorchs_weights() {
    let _guard = common::serial();
    let fx: GruFx = load_as("gru_translation");
    let s = &fx.sizes;
    let cfg =
        GruTranslatorConfig { embed_dim: s.embed_dim, hidden_dim: s.hidden_dim, ..GruTranslatorConfig::new(s.src_vocab, s.tgt_vocab) };
    let case = &fx.cases[0];
    manual_seed(case.seed as i128).unwrap();
    let mut model = GruTranslator::new(&cfg).unwrap();
    let SentenceTerms::Source(t) = model.sentence_terms(&fx.src.tensor(), &fx.tgt_in.tensor()).unwrap() else { panic!("one attention") };
    assert_tensor_close("weights", &t.weights.squeeze(1).unwrap(), &case.alphas.tensor(), 1e-6);
    consistent("GRU", &t, 1e-5);
    assert_eq!((t.score, t.labels), ("scaled dot", ("q", "k")));
    // the second sentence's three pads are masked at every step
    let scores = values(&t.scores);
    let (tt, ss) = (t.scores.dim(2).unwrap(), t.scores.dim(3).unwrap());
    assert!((0..tt).all(|i| scores[(tt + i) * ss + 2..(tt + i + 1) * ss].iter().all(|s| *s == f64::NEG_INFINITY)));
    // the LSTM translator's: each step's query is the hidden state before it
    manual_seed(1).unwrap();
    let lstm_cfg = LstmTranslatorConfig { embed_dim: 6, hidden_dim: 8, ..LstmTranslatorConfig::new(s.src_vocab, s.tgt_vocab) };
    for bidirectional in [false, true] {
        let mut lstm = LstmTranslator::new(&LstmTranslatorConfig { bidirectional, ..lstm_cfg.clone() }).unwrap();
        lstm.forward(&fx.src.tensor(), &fx.tgt_in.tensor()).unwrap();
        let SentenceTerms::Source(t) = lstm.sentence_terms(&fx.src.tensor(), &fx.tgt_in.tensor()).unwrap() else { panic!("one attention") };
        assert_tensor_close("LSTM weights", &t.weights.squeeze(1).unwrap(), lstm.alphas.as_ref().unwrap(), 1e-6);
        consistent("LSTM", &t, 1e-5);
        let state = lstm.encode(&fx.src.tensor()).unwrap();
        assert_tensor_close(
            "LSTM: the first query is the encoder's h",
            &t.left.get(0).unwrap().get(0).unwrap().get(0).unwrap(),
            &state.h.get(0).unwrap(),
            0.0,
        );
    }
}

/// Standard base64 back to bytes.
fn unbase64(s: &str) -> Vec<u8> {
    let val = |c: u8| b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".iter().position(|&a| a == c).unwrap() as u32;
    let mut bytes = vec![];
    for chunk in s.as_bytes().chunks(4) {
        let pads = chunk.iter().filter(|&&c| c == b'=').count();
        let n = chunk.iter().take(4 - pads).enumerate().fold(0u32, |n, (k, &c)| n | val(c) << (18 - 6 * k));
        bytes.extend(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pads]);
    }
    bytes
}

fn f32s(s: &serde_json::Value) -> Vec<f32> {
    unbase64(s.as_str().unwrap()).chunks(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// The page's data carries every term of the sequence asked for, bit for bit, in the layout the
/// script reads: `[layer][head]...`, `-inf` kept.
#[test]
fn the_explorer_carries_the_terms_bit_for_bit() {
    let _guard = common::serial();
    let cfg =
        TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 2, dropout: 0.0, max_len: 16, ..TransformerConfig::new(11, 13) };
    manual_seed(5).unwrap();
    let model = Transformer::from_config(&cfg).unwrap();
    let src = Tensor::new(&[[4u32, 5, 6, 7], [8, 9, 10, 0]], &Device::Cpu).unwrap();
    let tgt = Tensor::new(&[[1u32, 4, 5], [1, 6, 7]], &Device::Cpu).unwrap();
    let terms = model.score_terms(&src, &tgt).unwrap();
    let explorer = explore_terms(&terms, 1, &["a", "b", "c", "<pad>"], &["<sos>", "x", "y"]).unwrap();
    let html = explorer.html().unwrap();
    let data = html.split("class=\"zoo-explorer-data\">").nth(1).unwrap().split("</script>").next().unwrap();
    let json: serde_json::Value = serde_json::from_str(data).unwrap();
    for (k, layers) in [&terms.encoder_self, &terms.decoder_self, &terms.cross].into_iter().enumerate() {
        let n = &json["kinds"][k]["neurons"];
        assert_eq!((n["score"].as_str(), n["dim"].as_u64(), n["scaling"].as_str()), (Some("scaled dot"), Some(4), Some("÷ √4")));
        assert_eq!(
            (n["left"]["label"].as_str(), n["left"]["per_query"].as_bool(), n["right"]["per_query"].as_bool()),
            (Some("q"), Some(true), Some(false))
        );
        for (field, pick) in [("dots", 0), ("scores", 1), ("weights", 2), ("left", 3), ("right", 4)] {
            let want: Vec<f32> = layers
                .iter()
                .flat_map(|t| {
                    let x = [&t.dots, &t.scores, &t.weights, &t.left, &t.right][pick];
                    x.get(1).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap()
                })
                .collect();
            let got = if pick < 3 { f32s(&n[field]) } else { f32s(&n[field]["values"]) };
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "kind {k}: {field}"
            );
        }
    }
    // the padding key of sequence 1 is masked in the encoder: its scores travel as -inf
    assert!(f32s(&json["kinds"][0]["neurons"]["scores"]).iter().skip(3).step_by(4).all(|s| *s == f32::NEG_INFINITY));
    // the additive score's v is shared and its pair vectors are per query
    manual_seed(7).unwrap();
    let mut a = Attention::with_score(3, None, false, Score::Additive).unwrap();
    let keys = Tensor::new(&[[[0.5f32, -1.0, 0.25], [1.5, 0.5, -0.5]]], &Device::Cpu).unwrap();
    a.init_keys(&keys).unwrap();
    a.forward(&Tensor::new(&[[[0.3f32, -0.6, 0.9], [1.0, 0.0, -1.0]]], &Device::Cpu).unwrap(), None).unwrap();
    let mut e = explore_attention(&a, &["q0", "q1"], &["k0", "k1"]).unwrap();
    let n = e.kinds[0].neurons.clone().unwrap();
    assert_eq!((n.left_per_query, n.right_per_query, n.left.len(), n.right.len()), (false, true, 3, 2 * 2 * 3));
    // a kind built by hand whose terms do not fit its sizes is refused
    e.kinds[0].neurons.as_mut().unwrap().dots.pop();
    let err = e.html().unwrap_err().to_string();
    assert!(err.contains("alphas: the neuron view's dots holds 3 values, not 4"), "{err}");
}
