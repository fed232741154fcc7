//! The LSTM translator against PyTorch (tests/fixtures/lstm_translation.json, written by
//! tools/fixtures/lstm_translation.py): initial weights bit for bit with a one-directional and a
//! bidirectional encoder, teacher-forced logits and attention weights of a padded batch within
//! 1e-6, the cross-entropy and every gradient within 1e-5; greedy decoding equals beam width 1;
//! bad sources are clear errors.

use crate::common;

use attention_zoo::models::{LstmTranslator, LstmTranslatorConfig};
use attention_zoo::prelude::*;
use common::fixtures::{IdRowsFx, RecurrentSizes, StateFx, TensorFx, assert_params, assert_tensor_close, load_as};
use serde::Deserialize;

/// `tests/fixtures/lstm_translation.json`: one padded batch, and for a one-directional and a
/// bidirectional encoder PyTorch's initial weights, logits and attention weights.
#[derive(Deserialize)]
struct LstmTranslationFx {
    sizes: RecurrentSizes,
    src: IdRowsFx,
    tgt_in: IdRowsFx,
    tgt_out: IdRowsFx,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    seed: i64,
    bidirectional: bool,
    state: StateFx,
    logits: TensorFx,
    alphas: TensorFx,
    loss: f64,
    grads: StateFx,
}

fn config(fx: &LstmTranslationFx, bidirectional: bool) -> LstmTranslatorConfig {
    let s = &fx.sizes;
    LstmTranslatorConfig {
        embed_dim: s.embed_dim,
        hidden_dim: s.hidden_dim,
        bidirectional,
        ..LstmTranslatorConfig::new(s.src_vocab, s.tgt_vocab)
    }
}

#[test]
fn the_lstm_translator_is_pytorchs() {
    let _guard = common::serial();
    let fx: LstmTranslationFx = load_as("lstm_translation");
    let (src, tgt_in) = (fx.src.tensor(), fx.tgt_in.tensor());
    for case in &fx.cases {
        let bi = case.bidirectional;
        let what = format!("bidirectional {bi}");
        manual_seed(case.seed as i128).unwrap();
        let mut model = LstmTranslator::new(&config(&fx, bi)).unwrap();
        assert_params(&format!("{what}: initial weights, bit for bit"), &model, &case.state, 0.0);
        let logits = model.forward(&src, &tgt_in).unwrap();
        assert_tensor_close(&format!("{what}: logits"), &logits, &case.logits.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: attention weights"), model.alphas.as_ref().unwrap(), &case.alphas.tensor(), 1e-6);
        // the cross-entropy without padding and every gradient (the decoder over the whole target
        // is one fused node from hidden size 8 on: its backward pass against PyTorch's)
        let loss = CrossEntropyLoss::new().ignore_index(0).loss(&logits, &fx.tgt_out.tensor()).unwrap();
        let l = loss.to_scalar::<f32>().unwrap() as f64;
        assert!((l - case.loss).abs() < 1e-5, "{what}: loss {l} against {}", case.loss);
        let grads = loss.backward().unwrap();
        let want_grads = case.grads.tensors();
        for (name, p) in model.named_parameters() {
            let g = grads.get(&p.tensor());
            match want_grads.iter().find(|(n, _)| n == &name) {
                Some((_, w)) => assert_tensor_close(&format!("{what}: gradient of {name}"), g.expect(&name), w, 1e-5),
                None => assert!(g.is_none(), "{what}: {name} has a gradient PyTorch does not"),
            }
        }

        // Decoding: beam width 1 is greedy.
        let greedy = greedy_decode(&mut model, &src, 1, 2, 6).unwrap();
        let beam = beam_search(&mut model, &src, 1, 2, &BeamConfig::new(1, 6)).unwrap();
        for (g, b) in greedy.iter().zip(&beam) {
            assert_eq!(g, &b[0].tokens, "{what}: beam width 1 against greedy");
        }
    }
}

#[test]
fn sources_of_padding_only_are_an_error() {
    let _guard = common::serial(); // building a model draws from the shared default generator
    let fx: LstmTranslationFx = load_as("lstm_translation");
    let model = LstmTranslator::new(&config(&fx, true)).unwrap();
    let src = Tensor::new(&[[4u32, 5], [0, 0]], &Device::Cpu).unwrap();
    let e = model.encode(&src).unwrap_err().to_string();
    assert!(e.contains("LstmTranslator") && e.contains("source 1 of 2 is all padding"), "{e}");
    let e = model.encode(&Tensor::new(&[[4u32, 0, 5]], &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("LstmTranslator: ") && e.contains("source 0 has the padding id 0 at position 1 before a real token at 2"), "{e}");
    let odd = LstmTranslatorConfig { hidden_dim: 7, ..config(&fx, true) };
    let e = LstmTranslator::new(&odd).unwrap_err().to_string();
    assert!(e.contains("even hidden_dim, got 7"), "{e}");
}
