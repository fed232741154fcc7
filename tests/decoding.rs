//! Greedy decoding and beam search (issue 15, item 5) on a small seeded Transformer trained a few
//! Adam steps on a toy copy task, and on an untrained one: beam width 1 is greedy decoding, a
//! step's logits are those of the whole prefix decoded at once and of `Transformer::forward`,
//! wider beams never score below greedy, scores are the model's log-probabilities, the model's
//! mode is put back, and bad requests are clear errors.

use crate::common;
use attention_zoo::models::{TransformerState, Translate};
use attention_zoo::prelude::*;
use attention_zoo::train::Optimizer;
use attention_zoo::train::{BeamConfig, Hypothesis, LengthPenalty, beam_search, greedy_decode};
use std::sync::OnceLock;

const PAD: u32 = 0;
const SOS: u32 = 1;
const EOS: u32 = 2;
const VOCAB: usize = 12;
/// Source length of the copy task.
const S: usize = 5;
const STEPS: u64 = 200;
const LR: f64 = 0.003;

fn config() -> TransformerConfig {
    TransformerConfig {
        d_model: 16,
        n_heads: 2,
        d_ff: 32,
        n_layers: 2,
        dropout: 0.1,
        max_len: 32,
        xavier_init: true,
        ..TransformerConfig::new(VOCAB, VOCAB)
    }
}

/// A small deterministic generator of token ids in `3..VOCAB` (not the crate's: the tests only
/// need varied sources).
fn sources(n: usize, seed: u64) -> Vec<Vec<u32>> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            (0..S)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    3 + ((x >> 33) % (VOCAB as u64 - 3)) as u32
                })
                .collect()
        })
        .collect()
}

fn ids(rows: &[Vec<u32>]) -> Tensor {
    let t = rows[0].len();
    Tensor::from_vec(rows.concat(), (rows.len(), t), &Device::Cpu).unwrap()
}

/// The trained model (left in training mode, as training leaves it) and an untrained one.
fn models() -> &'static (Transformer, Transformer) {
    static MODELS: OnceLock<(Transformer, Transformer)> = OnceLock::new();
    MODELS.get_or_init(|| {
        manual_seed(7).unwrap();
        let untrained = Transformer::from_config(&config()).unwrap();
        manual_seed(21).unwrap();
        let model = Transformer::from_config(&config()).unwrap();
        model.train();
        let mut adam = Adam::with_betas(model.parameters(), LR, (0.9, 0.98), 1e-9).unwrap();
        let loss_fn = CrossEntropyLoss::new();
        for step in 0..STEPS {
            let src = sources(32, step + 1);
            let tgt_in: Vec<Vec<u32>> = src.iter().map(|s| std::iter::once(SOS).chain(s.iter().copied()).collect()).collect();
            let tgt_out: Vec<Vec<u32>> = src.iter().map(|s| s.iter().copied().chain(std::iter::once(EOS)).collect()).collect();
            let logits = model.forward(&ids(&src), &ids(&tgt_in), None, None).unwrap();
            let loss = loss_fn.forward(&logits, &ids(&tgt_out)).unwrap();
            adam.step(&loss.backward().unwrap()).unwrap();
        }
        (model, untrained)
    })
}

/// Test sources: unseen copy-task sentences, one of them padded.
fn test_src() -> Tensor {
    let mut rows = sources(5, 1_000_003);
    rows.push(vec![5, 7, 9, PAD, PAD]);
    ids(&rows)
}

/// The summed log-probability the model gives `tokens` (then `<eos>` if `finished`) after `<sos>`,
/// from one `forward` over the whole target.
fn log_prob(model: &mut Transformer, src_row: &Tensor, tokens: &[u32], finished: bool) -> f64 {
    let mut tgt = vec![SOS];
    tgt.extend_from_slice(tokens);
    let logits = model.forward(src_row, &ids(&[tgt.clone()]), None, None).unwrap();
    let lp = attention_zoo::train::log_softmax(&logits).unwrap().to_dtype(DType::F64).unwrap();
    let lp = lp.squeeze(0).unwrap().to_vec2::<f64>().unwrap();
    let mut next: Vec<u32> = tokens.to_vec();
    if finished {
        next.push(EOS);
    }
    next.iter().enumerate().map(|(t, &v)| lp[t][v as usize]).sum()
}

#[test]
fn beam_width_one_is_greedy_and_the_mode_is_put_back() {
    let _serial = common::serial(); // it draws from the shared default generator
    for (name, model) in [("trained", &models().0), ("untrained", &models().1)] {
        let mut model = model.clone();
        model.train();
        let src = test_src();
        let greedy = greedy_decode(&mut model, &src, SOS, EOS, 8).unwrap();
        assert!(model.is_training(), "{name}: greedy_decode put the model back in training mode");
        let beams = beam_search(&mut model, &src, SOS, EOS, &BeamConfig::new(1, 8)).unwrap();
        assert!(model.is_training(), "{name}: beam_search put the model back in training mode");
        model.eval();
        let again = greedy_decode(&mut model, &src, SOS, EOS, 8).unwrap();
        assert!(!model.is_training(), "{name}: an eval model stays in eval mode");
        assert_eq!(greedy, again, "{name}: decoding does not depend on the mode the model was in");
        assert_eq!(beams.len(), greedy.len());
        for (i, (g, b)) in greedy.iter().zip(&beams).enumerate() {
            assert_eq!(b.len(), 1);
            assert_eq!(&b[0].tokens, g, "{name}: sentence {i}: beam width 1 against greedy");
            assert!(g.len() <= 8 && !g.contains(&EOS), "{name}: sentence {i}: {g:?}");
            assert_eq!(b[0].finished, g.len() < 8, "{name}: sentence {i}: ended with <eos> exactly when shorter than max_len");
        }
        println!("{name}: greedy {greedy:?}");
    }
    // The trained model (Xavier-initialised, as the Annotated Transformer) is not degenerate: it has
    // learned where the copy ends (200 steps are too few
    // to learn the copy itself), so most unseen sentences end with `<eos>` after 5 tokens.
    let mut model = models().0.clone();
    let out = greedy_decode(&mut model, &test_src(), SOS, EOS, 8).unwrap();
    let five = out.iter().take(5).filter(|o| o.len() == S).count();
    assert!(five >= 4, "only {five} of 5 outputs of the trained model have 5 tokens: {out:?}");
}

#[test]
fn each_step_equals_decoding_the_whole_prefix_and_forward() {
    let _serial = common::serial(); // it draws from the shared default generator
    for (name, model) in [("trained", &models().0), ("untrained", &models().1)] {
        let mut model = model.clone();
        model.eval();
        let src = test_src();
        let n = src.dims()[0];
        // A full target of 7 ids: <sos> and 6 more, some of them <eos> and padding midway.
        let mut tgt: Vec<Vec<u32>> = sources(n, 99).into_iter().map(|s| std::iter::once(SOS).chain(s).chain([EOS]).collect()).collect();
        tgt[1][3] = PAD;
        let full = ids(&tgt);
        let t_max = tgt[0].len();
        let mut state = model.encode_src(&src).unwrap();
        let whole = model.decode(&full, &state.memory, state.src_mask.as_ref(), Some(&model.tgt_mask(&full).unwrap())).unwrap();
        let forward = model.forward(&src, &full, None, None).unwrap();
        let mut worst = 0f64;
        for t in 1..=t_max {
            let step = model.next_logits(&mut state, &full.narrow(1, 0, t).unwrap()).unwrap();
            assert_eq!(step.dims(), &[n, VOCAB]);
            let step = step.to_dtype(DType::F64).unwrap().to_vec2::<f64>().unwrap();
            for (what, other) in [("decode", &whole), ("forward", &forward)] {
                let want = other.narrow(1, t - 1, 1).unwrap().squeeze(1).unwrap().to_dtype(DType::F64).unwrap().to_vec2::<f64>().unwrap();
                for (r, (a, b)) in step.iter().zip(&want).enumerate() {
                    for (v, (x, y)) in a.iter().zip(b).enumerate() {
                        let d = (x - y).abs();
                        assert!(d <= 1e-5, "{name}: step {t}, row {r}, token {v}: next_logits {x} against {what} {y}");
                        worst = worst.max(d);
                    }
                }
            }
        }
        println!("{name}: max |next_logits - whole prefix| = {worst:e}");
    }
}

#[test]
fn wider_beams_never_score_below_greedy_and_scores_are_log_probabilities() {
    let _serial = common::serial(); // it draws from the shared default generator
    for (name, model) in [("trained", &models().0), ("untrained", &models().1)] {
        let mut model = model.clone();
        model.eval();
        let src = test_src();
        let max_len = 8;
        let greedy = beam_search(&mut model, &src, SOS, EOS, &BeamConfig::new(1, max_len)).unwrap();
        for width in [2, 3, 5] {
            let cfg = BeamConfig { n_best: width, ..BeamConfig::new(width, max_len) };
            let wide = beam_search(&mut model, &src, SOS, EOS, &cfg).unwrap();
            for (i, (g, w)) in greedy.iter().zip(&wide).enumerate() {
                let (g, best) = (&g[0], &w[0]);
                // Equal hypotheses scored in batches of different sizes differ by float32 rounding.
                assert!(best.score >= g.score - 1e-5, "{name}: sentence {i}, width {width}: best {best:?} below greedy {g:?}");
                assert!(w.windows(2).all(|p| p[0].normalised >= p[1].normalised), "{name}: sentence {i}: not best first");
                assert!(!w.is_empty() && w.len() <= width);
                let row = src.narrow(0, i, 1).unwrap();
                for h in w {
                    assert_eq!(h.normalised, h.score, "no length penalty: normalised is the score");
                    let want = log_prob(&mut model, &row, &h.tokens, h.finished);
                    assert!((h.score - want).abs() <= 1e-4, "{name}: sentence {i}: score {} against forward's {want}", h.score);
                    assert!(h.finished || h.tokens.len() == max_len);
                }
            }
        }
    }
}

#[test]
fn length_penalties_normalise_as_documented() {
    let _serial = common::serial(); // it draws from the shared default generator
    assert_eq!(LengthPenalty::None.penalty(7), 1.0);
    assert!((LengthPenalty::Gnmt { alpha: 0.6 }.penalty(7) - 2f64.powf(0.6)).abs() < 1e-12);
    assert!((LengthPenalty::Power { alpha: 1.0 }.penalty(4) - 4.0).abs() < 1e-12);
    let mut model = models().0.clone();
    let src = test_src();
    for penalty in [LengthPenalty::Gnmt { alpha: 0.7 }, LengthPenalty::Power { alpha: 1.0 }] {
        let cfg = BeamConfig { length_penalty: penalty, n_best: 3, ..BeamConfig::new(4, 8) };
        for hyps in beam_search(&mut model, &src, SOS, EOS, &cfg).unwrap() {
            for Hypothesis { tokens, score, normalised, finished } in &hyps {
                let len = tokens.len() + *finished as usize;
                assert!((normalised - score / penalty.penalty(len)).abs() < 1e-12);
            }
            assert!(hyps.windows(2).all(|p| p[0].normalised >= p[1].normalised));
        }
    }
}

#[track_caller]
fn fails<T: std::fmt::Debug>(result: Result<T>, parts: &[&str]) {
    let message = result.expect_err("expected an error").to_string();
    for p in parts {
        assert!(message.contains(p), "error {message:?} does not mention {p:?}");
    }
}

#[test]
fn bad_requests_are_clear_errors() {
    let _serial = common::serial(); // it draws from the shared default generator
    let mut model = models().0.clone();
    model.train();
    let src = test_src();
    let beam = |w: usize, l: usize| BeamConfig::new(w, l);
    fails(beam_search(&mut model, &src, SOS, EOS, &beam(0, 8)), &["beam_search", "beam_width", "0"]);
    fails(beam_search(&mut model, &src, SOS, EOS, &BeamConfig { n_best: 3, ..beam(2, 8) }), &["beam_search", "n_best 3", "1..=2"]);
    fails(
        beam_search(&mut model, &src, SOS, EOS, &BeamConfig { length_penalty: LengthPenalty::Gnmt { alpha: f64::NAN }, ..beam(2, 8) }),
        &["beam_search", "alpha", "NaN"],
    );
    fails(beam_search(&mut model, &src, SOS, EOS, &beam(2, 0)), &["beam_search", "max_len", "0"]);
    fails(greedy_decode(&mut model, &src, SOS, EOS, 0), &["greedy_decode", "max_len", "0"]);
    fails(greedy_decode(&mut model, &src, 12, EOS, 8), &["greedy_decode", "sos id 12", "0..12"]);
    fails(beam_search(&mut model, &src, SOS, 40, &beam(2, 8)), &["beam_search", "eos id 40", "0..12"]);
    fails(greedy_decode(&mut model, &src, PAD, EOS, 8), &["greedy_decode", "sos id 0", "pad_id"]);
    // The model's positional encoding covers 32 positions.
    let long = ids(&[vec![3u32; 33], vec![4u32; 33]]);
    fails(greedy_decode(&mut model, &long, SOS, EOS, 8), &["greedy_decode", "[2, 33]", "33 tokens", "max_len 32"]);
    fails(beam_search(&mut model, &long, SOS, EOS, &beam(2, 8)), &["beam_search", "[2, 33]", "max_len 32"]);
    fails(greedy_decode(&mut model, &src, SOS, EOS, 33), &["greedy_decode", "max_len 33", "max_len 32"]);
    fails(greedy_decode(&mut model, &src.to_dtype(DType::F32).unwrap(), SOS, EOS, 8), &["greedy_decode", "integer", "F32"]);
    fails(
        greedy_decode(&mut model, &Tensor::zeros(6, DType::U32, &Device::Cpu).unwrap(), SOS, EOS, 8),
        &["greedy_decode", "(N, S)", "[6]"],
    );
    fails(
        greedy_decode(&mut model, &Tensor::full(20u32, (1, 3), &Device::Cpu).unwrap(), SOS, EOS, 8),
        &["greedy_decode", "Transformer", "id 20"],
    );
    // Exactly at the limits is fine.
    let at_limit = ids(&[vec![3u32; 32]]);
    assert_eq!(greedy_decode(&mut model, &at_limit, SOS, EOS, 32).unwrap().len(), 1);
    assert!(model.is_training(), "an error (or not) leaves the model in the mode it was in");
}

#[test]
fn an_empty_batch_decodes_to_nothing() {
    let _serial = common::serial();
    let mut model = models().0.clone();
    for dims in [(0, 3), (0, 0)] {
        let empty = Tensor::zeros(dims, DType::U32, &Device::Cpu).unwrap();
        assert_eq!(greedy_decode(&mut model, &empty, SOS, EOS, 8).unwrap(), Vec::<Vec<u32>>::new());
        assert!(beam_search(&mut model, &empty, SOS, EOS, &BeamConfig::new(2, 8)).unwrap().is_empty());
    }
    // Sentences without a token are not an empty batch.
    let no_tokens = Tensor::zeros((2, 0), DType::U32, &Device::Cpu).unwrap();
    fails(greedy_decode(&mut model, &no_tokens, SOS, EOS, 8), &["greedy_decode", "S > 0", "[2, 0]"]);
    // The checks still apply to an empty batch.
    let floats = Tensor::zeros((0, 3), DType::F32, &Device::Cpu).unwrap();
    fails(beam_search(&mut model, &floats, SOS, EOS, &BeamConfig::new(0, 8)), &["beam_search", "beam_width"]);
    fails(greedy_decode(&mut model, &floats, SOS, EOS, 8), &["greedy_decode", "integer", "F32"]);
}

/// The Transformer decoding the whole prefix at every step, through `Transformer::decode` under
/// the full causal and padding mask, as decoding did before the cache.
#[derive(Clone)]
struct Uncached(Transformer);

impl attention_zoo::nn::Walk for Uncached {
    fn walk(&self, w: &mut attention_zoo::nn::Walker) {
        self.0.walk(w)
    }
}

impl Translate for Uncached {
    type State = TransformerState;
    fn tgt_vocab(&self) -> usize {
        self.0.tgt_vocab()
    }
    fn max_len(&self) -> Option<usize> {
        Translate::max_len(&self.0)
    }
    fn pad_id(&self) -> Option<u32> {
        self.0.pad_id()
    }
    fn encode_src(&mut self, src: &Tensor) -> Result<TransformerState> {
        self.0.encode_src(src)
    }
    fn select_rows(&self, state: &TransformerState, rows: &Tensor) -> Result<TransformerState> {
        self.0.select_rows(state, rows)
    }
    fn next_logits(&mut self, state: &mut TransformerState, prefix: &Tensor) -> Result<Tensor> {
        let t = prefix.dim(1)?;
        let tgt_mask = self.0.tgt_mask(prefix)?;
        let logits = self.0.decode(prefix, &state.memory, state.src_mask.as_ref(), Some(&tgt_mask))?;
        logits.narrow(1, t - 1, 1)?.squeeze(1)
    }
    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        self.0.teacher_forced(src, tgt_input)
    }
    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<attention_zoo::models::SentenceAttention> {
        self.0.sentence_attention(src, tgt_input)
    }
}

#[test]
fn cached_decoding_equals_uncached_token_for_token() {
    let _serial = common::serial(); // it draws from the shared default generator
    for (name, model) in [("trained", &models().0), ("untrained", &models().1)] {
        let mut cached = model.clone();
        let mut uncached = Uncached(model.clone());
        let src = test_src();
        let max_len = 8;
        let greedy = greedy_decode(&mut cached, &src, SOS, EOS, max_len).unwrap();
        assert_eq!(greedy, greedy_decode(&mut uncached, &src, SOS, EOS, max_len).unwrap(), "{name}: greedy");
        for width in [1, 2, 3, 5] {
            let cfg = BeamConfig { n_best: width, ..BeamConfig::new(width, max_len) };
            let fast = beam_search(&mut cached, &src, SOS, EOS, &cfg).unwrap();
            let slow = beam_search(&mut uncached, &src, SOS, EOS, &cfg).unwrap();
            for (i, (f, s)) in fast.iter().zip(&slow).enumerate() {
                // The same hypotheses in the same order; scores up to float32 rounding.
                let key = |hs: &[Hypothesis]| hs.iter().map(|h| (h.tokens.clone(), h.finished)).collect::<Vec<_>>();
                assert_eq!(key(f), key(s), "{name}: width {width}, sentence {i}");
                for (a, b) in f.iter().zip(s) {
                    assert!((a.score - b.score).abs() <= 1e-5, "{name}: width {width}, sentence {i}: {} against {}", a.score, b.score);
                }
                // All sentences searched in one batch find what each finds alone.
                let alone = beam_search(&mut cached, &src.narrow(0, i, 1).unwrap(), SOS, EOS, &cfg).unwrap();
                assert_eq!(key(f), key(&alone[0]), "{name}: width {width}, sentence {i} in a batch and alone");
            }
        }
    }
}

#[test]
fn a_prefix_that_does_not_continue_the_cache_is_decoded_afresh() {
    let _serial = common::serial();
    let mut model = models().0.clone();
    model.eval();
    let src = test_src();
    let n = src.dims()[0];
    let prefixes = |tail: &[u32]| ids(&vec![std::iter::once(SOS).chain(tail.iter().copied()).collect::<Vec<_>>(); n]);
    let mut state = model.encode_src(&src).unwrap();
    model.next_logits(&mut state, &prefixes(&[5, 6])).unwrap();
    // Not `[5, 6]` followed by a token: the cache must not be read.
    for other in [&[5u32, 7, 8][..], &[5], &[5, 6]] {
        let got = model.next_logits(&mut state, &prefixes(other)).unwrap();
        let mut fresh = model.encode_src(&src).unwrap();
        let want = model.next_logits(&mut fresh, &prefixes(other)).unwrap();
        let d = (got - want).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
        assert!(d <= 1e-5, "{other:?}: {d}");
    }
    // Rows picked from the state keep their cache: a row continued after `select_rows`.
    let mut state = model.encode_src(&src).unwrap();
    model.next_logits(&mut state, &prefixes(&[5])).unwrap();
    let rows = Tensor::new(&[2u32, 2, 0], &Device::Cpu).unwrap();
    let mut picked = model.select_rows(&state, &rows).unwrap();
    let next = ids(&vec![vec![SOS, 5, 9]; 3]);
    let got = model.next_logits(&mut picked, &next).unwrap();
    let mut fresh = model.encode_src(&src.index_select(&rows, 0).unwrap()).unwrap();
    let want = model.next_logits(&mut fresh, &next).unwrap();
    let d = (got - want).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    assert!(d <= 1e-5, "select_rows: {d}");
    // A memory put in place of the state's: the cache made from the old one is not read.
    let mut state = model.encode_src(&src).unwrap();
    model.next_logits(&mut state, &prefixes(&[5])).unwrap();
    state.memory = (&state.memory * 2.0).unwrap();
    let got = model.next_logits(&mut state, &prefixes(&[5, 6])).unwrap();
    let mut fresh = TransformerState { cache: None, ..state.clone() };
    let want = model.next_logits(&mut fresh, &prefixes(&[5, 6])).unwrap();
    let d = (got - want).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    assert!(d <= 1e-5, "replaced memory: {d}");
    // Bad prefixes are errors, not NaN or a truncated id read against the cache.
    let mut state = model.encode_src(&src).unwrap();
    let bad = |model: &mut Transformer, state: &mut TransformerState, rows: Vec<Vec<f32>>| {
        let t = rows[0].len();
        let p = Tensor::from_vec(rows.concat(), (n, t), &Device::Cpu).unwrap();
        model.next_logits(state, &p).unwrap_err().to_string()
    };
    let e = bad(&mut model, &mut state, vec![vec![PAD as f32, 5.0]; n]);
    assert!(e.contains("starts with the pad_id 0"), "{e}");
    let e = bad(&mut model, &mut state, vec![vec![SOS as f32, 5.5]; n]);
    assert!(e.contains("prefix id 5.5 (row 0, position 1) is not a target id in 0..12"), "{e}");
    let e = bad(&mut model, &mut state, vec![vec![SOS as f32, VOCAB as f32]; n]);
    assert!(e.contains("is not a target id"), "{e}");
}
