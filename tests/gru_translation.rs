//! The GRU translator against PyTorch (tests/fixtures/gru_translation.json, written by
//! tools/fixtures/gru_translation.py): initial weights bit for bit, teacher-forced logits and
//! attention weights of a padded batch within 1e-6, the cross-entropy and every gradient within
//! 1e-5; beam width 1 is greedy; bad batches are clear errors.

use crate::common;

use attention_zoo::models::{GruEncoder, GruTranslator, GruTranslatorConfig};
use attention_zoo::prelude::*;
use common::fixtures::{IdRowsFx, RecurrentSizes, StateFx, TensorFx, assert_params, assert_tensor_close, load_as, values};
use serde::Deserialize;

/// `tests/fixtures/gru_translation.json`: one padded batch, and per seed PyTorch's initial
/// weights, logits, attention weights, loss and gradients.
#[derive(Deserialize)]
struct GruTranslationFx {
    sizes: RecurrentSizes,
    src: IdRowsFx,
    tgt_in: IdRowsFx,
    tgt_out: IdRowsFx,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    seed: i64,
    state: StateFx,
    logits: TensorFx,
    alphas: TensorFx,
    loss: f64,
    grads: StateFx,
}

fn config(fx: &GruTranslationFx) -> GruTranslatorConfig {
    let s = &fx.sizes;
    GruTranslatorConfig { embed_dim: s.embed_dim, hidden_dim: s.hidden_dim, ..GruTranslatorConfig::new(s.src_vocab, s.tgt_vocab) }
}

#[test]
fn the_gru_translator_is_pytorchs() {
    let _guard = common::serial();
    let fx: GruTranslationFx = load_as("gru_translation");
    let (src, tgt_in, tgt_out) = (fx.src.tensor(), fx.tgt_in.tensor(), fx.tgt_out.tensor());
    for case in &fx.cases {
        let what = format!("seed {}", case.seed);
        manual_seed(case.seed as i128).unwrap();
        let mut model = GruTranslator::new(&config(&fx)).unwrap();
        assert_params(&format!("{what}: initial weights, bit for bit"), &model, &case.state, 0.0);
        let got = model.named_parameters();
        let logits = model.forward(&src, &tgt_in).unwrap();
        assert_tensor_close(&format!("{what}: logits"), &logits, &case.logits.tensor(), 1e-6);
        assert_tensor_close(&format!("{what}: attention weights"), model.alphas.as_ref().unwrap(), &case.alphas.tensor(), 1e-6);
        let alphas = values(model.alphas.as_ref().unwrap());
        // The second sentence has two real tokens: every step gives the three pads exactly 0.
        for t in 0..4 {
            let row = &alphas[(4 + t) * 5..(4 + t) * 5 + 5];
            assert_eq!(&row[2..], &[0.0, 0.0, 0.0], "{what}: weights of padding at step {t}");
        }

        let loss = CrossEntropyLoss::new().ignore_index(0).forward(&logits, &tgt_out).unwrap();
        let l = loss.to_scalar::<f32>().unwrap() as f64;
        assert!((l - case.loss).abs() < 1e-5, "{what}: loss {l} against {}", case.loss);
        let grads = loss.backward().unwrap();
        let want_grads = case.grads.tensors();
        for (name, p) in &got {
            let g = grads.get(&p.tensor());
            match want_grads.iter().find(|(n, _)| n == name) {
                Some((_, w)) => assert_tensor_close(&format!("{what}: gradient of {name}"), g.expect(name), w, 1e-5),
                // The lecture's attention draws a value layer it never uses (proj_values false).
                None => assert!(g.is_none() && name.contains("linear_value"), "{what}: {name} has a gradient PyTorch lacks"),
            }
        }

        let greedy = greedy_decode(&mut model, &src, 1, 2, 6).unwrap();
        let beam = beam_search(&mut model, &src, 1, 2, &BeamConfig::new(1, 6)).unwrap();
        for (g, b) in greedy.iter().zip(&beam) {
            assert_eq!(g, &b[0].tokens, "{what}: beam width 1 against greedy");
        }
    }
}

#[test]
fn bad_batches_are_clear_errors() {
    let _guard = common::serial(); // building a model draws from the shared default generator
    let fx: GruTranslationFx = load_as("gru_translation");
    let mut model = GruTranslator::new(&config(&fx)).unwrap();
    let e = model.encode(&Tensor::new(&[[4u32, 5], [0, 0]], &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("GruTranslator: ") && e.contains("source 1 of 2 is all padding"), "{e}");
    // Padding inside a source would make its length ambiguous.
    let e = model.encode(&Tensor::new(&[[4u32, 0, 5]], &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.starts_with("GruTranslator: ") && e.contains("source 0 has the padding id 0 at position 1 before a real token at 2"), "{e}");
    let src = Tensor::new(&[[4u32, 5], [6, 0]], &Device::Cpu).unwrap();
    let e = model.forward(&src, &Tensor::new(&[[1u32, 5]], &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.contains("GruTranslator") && e.contains("N = 2"), "{e}");
    let encoder = GruEncoder::new(&config(&fx)).unwrap();
    for (lengths, says) in [(vec![2, 3], "length 3 of sentence 1 is not in 1..=2"), (vec![2], "1 lengths for a batch of 2")] {
        let e = encoder.forward(&src, &lengths).unwrap_err().to_string();
        assert!(e.contains("GruEncoder") && e.contains(says), "{e}");
    }
    // An empty batch is no error: empty states and final state, as PyTorch's GRU gives.
    let (states, hidden) = encoder.forward(&Tensor::zeros((0, 3), DType::U32, &Device::Cpu).unwrap(), &[]).unwrap();
    assert_eq!((states.dims(), hidden.dims()), (&[0, 3, fx.sizes.hidden_dim][..], &[1, 0, fx.sizes.hidden_dim][..]));
}
