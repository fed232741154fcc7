//! Incremental decoding of the recurrent translators (issue 28, item 3): decoding carries the
//! decoder's state from one step to the next instead of running the whole prefix again. Greedy
//! decoding and beam search with the carry give the same tokens, token for token, as with every
//! step decoding the whole prefix teacher-forced (the decoding before the carry), for the GRU,
//! LSTM and biLSTM translators, lecture-sized (composed steps) and wider (fused nodes).

use crate::common;
use attention_zoo::models::{
    GruTranslator, GruTranslatorConfig, LstmTranslator, LstmTranslatorConfig, RecurrentTranslate, SentenceAttention,
};
use attention_zoo::nn::{Walk, Walker};
use attention_zoo::prelude::*;
use attention_zoo::train::{BeamConfig, Hypothesis, beam_search, greedy_decode};

const SOS: u32 = 1;
const EOS: u32 = 2;
const VOCAB: usize = 11;

/// A recurrent translator decoded the way it was before the carry: every step runs the decoder
/// over the whole prefix, teacher-forced, and keeps the last position's logits.
struct WholePrefix<M>(M);

impl<M: Walk> Walk for WholePrefix<M> {
    fn walk(&self, w: &mut Walker) {
        self.0.walk(w)
    }
}

impl<M: RecurrentTranslate> Translate for WholePrefix<M> {
    type State = M::State;
    fn tgt_vocab(&self) -> usize {
        RecurrentTranslate::tgt_vocab(&self.0)
    }
    fn pad_id(&self) -> Option<u32> {
        Some(PAD_ID)
    }
    fn encode_src(&mut self, src: &Tensor) -> Result<M::State> {
        self.0.encode(src)
    }
    fn select_rows(&self, state: &M::State, rows: &Tensor) -> Result<M::State> {
        RecurrentTranslate::select_rows(&self.0, state, rows)
    }
    fn next_logits(&mut self, state: &mut M::State, prefix: &Tensor) -> Result<Tensor> {
        let (logits, _) = self.0.decode(state, prefix)?;
        let t = logits.dim(1)?;
        logits.narrow(1, t - 1, 1)?.squeeze(1)
    }
    fn teacher_forced(&mut self, _: &Tensor, _: &Tensor) -> Result<Tensor> {
        unreachable!("decoding only")
    }
    fn sentence_attention(&mut self, _: &Tensor, _: &Tensor) -> Result<SentenceAttention> {
        unreachable!("decoding only")
    }
}

/// Six sources of 3 to 7 ids in `3..VOCAB`, padded with 0.
fn sources() -> Tensor {
    let mut x = 12345u64;
    let rows: Vec<Vec<u32>> = (0..6)
        .map(|k| {
            (0..7)
                .map(|j| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    if j < 3 + k % 5 { 3 + ((x >> 33) % (VOCAB as u64 - 3)) as u32 } else { PAD_ID }
                })
                .collect()
        })
        .collect();
    Tensor::from_vec(rows.concat(), (6, 7), &Device::Cpu).unwrap()
}

fn same_decodings<M: RecurrentTranslate + Clone>(name: &str, model: M) {
    let src = sources();
    let (mut carried, mut whole) = (model.clone(), WholePrefix(model));
    let max_len = 9;
    let greedy = greedy_decode(&mut carried, &src, SOS, EOS, max_len).unwrap();
    assert_eq!(greedy, greedy_decode(&mut whole, &src, SOS, EOS, max_len).unwrap(), "{name}: greedy");
    assert!(greedy.iter().any(|g| g.len() > 2), "{name}: the decodings are not all trivial: {greedy:?}");
    for width in [1, 3] {
        let cfg = BeamConfig { n_best: width, ..BeamConfig::new(width, max_len) };
        let fast = beam_search(&mut carried, &src, SOS, EOS, &cfg).unwrap();
        let slow = beam_search(&mut whole, &src, SOS, EOS, &cfg).unwrap();
        let key = |hs: &[Hypothesis]| hs.iter().map(|h| (h.tokens.clone(), h.finished)).collect::<Vec<_>>();
        for (i, (f, s)) in fast.iter().zip(&slow).enumerate() {
            assert_eq!(key(f), key(s), "{name}: width {width}, sentence {i}");
            for (a, b) in f.iter().zip(s) {
                assert!((a.score - b.score).abs() <= 1e-5, "{name}: width {width}, sentence {i}: {} against {}", a.score, b.score);
            }
        }
    }
}

#[test]
fn carried_decoding_equals_decoding_the_whole_prefix_token_for_token() {
    let _serial = common::serial(); // it draws from the shared default generator
    for (seed, (embed_dim, hidden_dim)) in [(3, (4, 3)), (4, (8, 8)), (5, (16, 32))] {
        manual_seed(seed).unwrap();
        let gru = GruTranslator::new(&GruTranslatorConfig { embed_dim, hidden_dim, ..GruTranslatorConfig::new(VOCAB, VOCAB) }).unwrap();
        same_decodings(&format!("GRU {hidden_dim}"), gru);
        for bidirectional in [false, true] {
            let h = if bidirectional { 2 * hidden_dim } else { hidden_dim };
            let cfg = LstmTranslatorConfig { embed_dim, hidden_dim: h, bidirectional, ..LstmTranslatorConfig::new(VOCAB, VOCAB) };
            same_decodings(&format!("LSTM {h}, bidirectional {bidirectional}"), LstmTranslator::new(&cfg).unwrap());
        }
    }
}

#[test]
fn a_prefix_that_does_not_continue_the_carry_is_decoded_from_the_start() {
    let _serial = common::serial();
    manual_seed(6).unwrap();
    let mut model =
        GruTranslator::new(&GruTranslatorConfig { embed_dim: 8, hidden_dim: 8, ..GruTranslatorConfig::new(VOCAB, VOCAB) }).unwrap();
    let src = sources();
    let n = src.dims()[0];
    let prefixes = |tail: &[u32]| {
        let row: Vec<u32> = std::iter::once(SOS).chain(tail.iter().copied()).collect();
        Tensor::from_vec(row.repeat(n), (n, tail.len() + 1), &Device::Cpu).unwrap()
    };
    let mut state = model.encode_src(&src).unwrap();
    model.next_logits(&mut state, &prefixes(&[5, 6])).unwrap();
    assert_eq!(state.steps_read(), 3);
    for (other, read) in [(&[5u32, 7, 8][..], 4), (&[5], 2), (&[5, 6], 3)] {
        let got = model.next_logits(&mut state, &prefixes(other)).unwrap();
        assert_eq!(state.steps_read(), read);
        let mut fresh = model.encode_src(&src).unwrap();
        let want = model.next_logits(&mut fresh, &prefixes(other)).unwrap();
        let d = (got - want).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(d <= 1e-6, "{other:?}: {d}");
    }
}
