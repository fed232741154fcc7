//! Translation under random input: the recurrent translators and their parts, the padded LSTM,
//! the cross-entropy, text data (vocabularies, batches, bucketing, corpus files, tokenizers),
//! the translator's front door, BLEU, the scaler, the schedule, clipping and the statistics.

use super::transformer::{FAULTS, WILD_SIZES, WRONG_IDS, WRONG_MASK, WRONG_RANK, WRONG_WIDTH, floats, id_batch};
use super::{config, input, values};
use crate::common;

use attention_zoo::data::{GpsConfig, MinMaxScaler, Trajectories, generate_gps_trajectories};
use attention_zoo::models::{AttnLstmDecoder, GruAttnDecoder, GruEncoder, LstmEncoder};
use attention_zoo::prelude::*;
use attention_zoo::repro::PyRandom;
use attention_zoo::train::translation::{BleuConfig, LengthPenalty, Smooth, Tokenizer};
use proptest::prelude::*;

/// A word from a tiny alphabet (repeats are likely), or an odd string.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[abc]{1,2}",
        1 => prop_oneof![Just(String::new()), Just("<pad>".to_string()), Just("<unk>".to_string()), Just("ß\u{0}\t\n".to_string())],
        1 => any::<String>(),
    ]
}

fn sentence() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..5).prop_map(|w| w.join(" "))
}

/// Encoded pairs with ids around a tiny vocabulary, specials in place or not.
fn pairs() -> impl Strategy<Value = Vec<EncodedPair>> {
    let side = || prop::collection::vec(prop_oneof![40 => 4u32..9, 1 => 0u32..4, 1 => Just(u32::MAX)], 0..6);
    prop::collection::vec((side(), side(), prop::bool::weighted(0.95)), 0..8).prop_map(|v| {
        v.into_iter()
            .map(|(s, mut t, wrap)| {
                if wrap {
                    t.insert(0, SOS_ID);
                    t.push(EOS_ID);
                }
                (s, t)
            })
            .collect()
    })
}

fn vocab_of(words: usize) -> Vocab {
    let specials = ["<pad>", "<sos>", "<eos>", "<unk>"].map(String::from);
    Vocab::from_tokens(specials.into_iter().chain((0..words).map(|i| format!("w{i}")))).expect("a vocabulary")
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn recurrent_translators_never_panic(
        src_vocab in 2usize..7, tgt_vocab in 4usize..7, embed in 1usize..4, half in 1usize..3, wild in (0usize..3, 0usize..4), bidirectional: bool,
        n in 0usize..3, s in 1usize..5, t in 1usize..4, draws in prop::collection::vec(any::<u32>(), 1..8), lens in prop::collection::vec(1usize..5, 0..3),
        v in values(), steps in 0usize..4, beam in 0usize..3, fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let (embed, hidden) = if fault == WILD_SIZES { wild } else { (embed, 2 * half) };
        let gru_cfg = GruTranslatorConfig { embed_dim: embed, hidden_dim: hidden, ..GruTranslatorConfig::new(src_vocab, tgt_vocab) };
        let lstm_cfg = LstmTranslatorConfig { embed_dim: embed, hidden_dim: hidden, bidirectional, ..LstmTranslatorConfig::new(src_vocab, tgt_vocab) };
        let src = id_batch(n, s, src_vocab, &draws, &lens, fault);
        let tgt = id_batch(n, t, tgt_vocab, &draws, &[], fault);
        let lengths: Vec<usize> = match fault {
            WRONG_WIDTH => vec![s + 1; n],
            WRONG_RANK => vec![1; n + 1],
            _ => (0..n).map(|i| lens.get(i).copied().unwrap_or(s).clamp(1, s)).collect(),
        };
        let states = floats(n, s, hidden, &v, fault);
        let keep = floats(n, 1, s, &[1.0, 0.0], if fault == WRONG_MASK { WRONG_WIDTH } else { 0 });
        let hidden_state = floats(1, n, hidden, &v, 0);
        if let Ok(e) = GruEncoder::new(&gru_cfg) { let _ = e.forward(&src, &lengths); }
        if let Ok(mut d) = GruAttnDecoder::new(&gru_cfg) {
            let _ = d.forward(&tgt, &hidden_state, &keep);
            if d.attn.init_keys(&states).is_ok() { let _ = d.forward(&tgt, &hidden_state, &keep); }
        }
        if let Ok(e) = LstmEncoder::new(&lstm_cfg) { let _ = e.forward(&src, &lengths); }
        if let Ok(d) = AttnLstmDecoder::new(&lstm_cfg) {
            let h = hidden_state.squeeze(0).unwrap_or(hidden_state.clone());
            let token = tgt.narrow(1, 0, 1).and_then(|t| t.squeeze(1)).unwrap_or(tgt.clone());
            let mask = keep.squeeze(1).and_then(|k| (k - 1.0)? * 1e9).unwrap_or(keep.clone());
            if let Ok(keys) = d.keys(&states) {
                let _ = d.forward(&token, &h, &h, &keys, &states, &mask);
            }
        }
        if let Ok(mut m) = GruTranslator::new(&gru_cfg) {
            let _ = m.forward(&src, &tgt);
            let _ = m.sentence_attention(&src, &tgt);
            if let Ok(mut state) = m.encode_src(&src) {
                let _ = m.next_logits(&mut state, &tgt);
                let _ = m.select_rows(&state, &Tensor::new(&[n.saturating_sub(1) as u32], &Device::Cpu).expect("rows"));
            }
            let _ = greedy_decode(&mut m, &src, SOS_ID, EOS_ID, steps);
            let _ = beam_search(&mut m, &src, SOS_ID, EOS_ID, &BeamConfig::new(beam, steps));
        }
        if let Ok(mut m) = LstmTranslator::new(&lstm_cfg) {
            let _ = m.forward(&src, &tgt);
            let _ = m.sentence_attention(&src, &tgt);
            if let Ok(mut state) = m.encode_src(&src) {
                let _ = m.next_logits(&mut state, &tgt);
                let _ = m.select_rows(&state, &Tensor::new(&[0u32, n as u32], &Device::Cpu).expect("rows"));
            }
            let _ = greedy_decode(&mut m, &src, SOS_ID, EOS_ID, steps);
            let penalty = if fault == WILD_SIZES { LengthPenalty::Power { alpha: f64::NAN } } else { LengthPenalty::Gnmt { alpha: 0.6 } };
            let config = BeamConfig { length_penalty: penalty, n_best: beam, ..BeamConfig::new(beam.max(1), steps) };
            let _ = beam_search(&mut m, &src, SOS_ID, EOS_ID, &config);
        }
    }

    #[test]
    fn padded_lstm_never_panics(
        input_size in 1usize..4, hidden in 1usize..4, layers in 1usize..3, wild in (0usize..3, 0usize..3, 0usize..3), bidirectional: bool,
        n in 0usize..3, l in 1usize..4, lens in prop::collection::vec(1usize..4, 0..3), v in values(), fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let (input_size, hidden, layers) = if fault == WILD_SIZES { wild } else { (input_size, hidden, layers) };
        let dirs = if bidirectional { 2 } else { 1 };
        let x = floats(n, l, input_size, &v, fault);
        let lengths: Vec<usize> = match fault {
            WRONG_MASK => vec![l + 1; n],
            WRONG_IDS => vec![0; n],
            WRONG_RANK => vec![1; n + 1],
            _ => (0..n).map(|i| lens.get(i).copied().unwrap_or(l).clamp(1, l)).collect(),
        };
        let h = floats(layers * dirs, n, hidden, &v, if fault == WRONG_WIDTH { WRONG_WIDTH } else { 0 });
        if let Ok(lstm) = Lstm::with_layers(input_size, hidden, layers, bidirectional) {
            let _ = lstm.forward_padded(&x, &lengths, None);
            let _ = lstm.forward_padded(&x, &lengths, Some((&h, &h)));
        }
    }

    #[test]
    fn cross_entropy_never_panics(
        ignore in prop::option::of(-2i64..4), smoothing in prop_oneof![3 => 0.0f64..1.0, 1 => prop_oneof![Just(-0.5), Just(1.0), Just(2.0), Just(f64::NAN)]], reduction in 0usize..3,
        n in 0usize..3, t in 0usize..3, classes in 1usize..5, v in values(), draws in prop::collection::vec(any::<u32>(), 1..6), i64_targets: bool, any_logits in input(), fault in 0usize..FAULTS,
    ) {
        let _serial = common::serial();
        let reduction = [Reduction::Mean, Reduction::Sum, Reduction::None][reduction];
        let logits = if fault == WILD_SIZES { any_logits } else { floats(n, t, classes, &v, fault) };
        let targets = id_batch(n, t, classes + 1, &draws, &[], fault);
        let targets = if i64_targets { targets.to_dtype(DType::I64).unwrap_or(targets) } else { targets };
        if let Ok(loss) = CrossEntropyLoss::with_options(ignore, smoothing, reduction) {
            if let Ok(value) = loss.forward(&logits, &targets) {
                let _ = value.sum_all().and_then(|v| v.backward());
            }
            let _ = loss.loss(&logits, &targets);
        }
        let _ = CrossEntropyLoss::new().label_smoothing(smoothing).map(|l| l.forward(&logits, &targets));
        let _ = attention_zoo::train::log_softmax(&logits);
    }

    #[test]
    fn text_data_never_panics(
        pairs in pairs(), batch_size in 0usize..5, max_len in prop::option::of(0usize..6), max_tokens in 0usize..12, pool in 0usize..4,
        seed: u64, shuffle: bool, sentences in prop::collection::vec(sentence(), 0..6), min_freq in 0usize..3, max_size in prop::option::of(0usize..6),
        tokens in prop::collection::vec(prop_oneof![0u32..12, Just(u32::MAX)], 0..6),
    ) {
        let _serial = common::serial();
        let indices: Vec<usize> = (0..pairs.len() + 1).rev().collect();
        let _ = TranslationBatch::new(&pairs, &indices);
        if let Ok(b) = TranslationBatch::from_pairs(&pairs) {
            let _ = (b.tgt_input(), b.tgt_output(), b.target_tokens());
            let _ = b.rows(1..batch_size);
            let _ = b.rows(batch_size..1);
        }
        if let Ok(it) = BucketIterator::new(pairs.clone(), batch_size, max_len, seed) {
            let _ = it.clone().with_pool(pool).map(|mut it| it.epoch());
            if let Ok(mut it) = it.with_max_tokens(max_tokens) {
                it.set_shuffle(shuffle);
                let _ = it.epoch();
                it.manual_seed(seed.wrapping_add(1));
                let _ = it.epoch_indices();
            }
        }
        if let Ok(vocab) = Vocab::build(sentences.iter().map(|s| tokenize(s)), min_freq, max_size) {
            for s in &sentences {
                let ids = vocab.encode_str(s, true);
                let _ = vocab.decode_str(&ids);
                let _ = encode_pairs(&[(s.as_str(), s.as_str())], &vocab, &vocab, shuffle);
            }
            let _ = vocab.decode(&tokens);
            let _ = tokens.iter().map(|&id| vocab.token(id).map(str::len)).collect::<Vec<_>>();
        }
        let _ = Vocab::from_tokens(sentences.iter().cloned());
        for s in &sentences {
            let _ = detokenize(&tokenize(s));
            let _ = detokenize(&tokenize_cased(s));
        }
    }

    #[test]
    fn corpus_generation_never_panics(
        seed: u64, train in 0usize..30, valid in 0usize..4, test in 0usize..4, min_len in 0usize..7, span in 0usize..15,
        probabilities in prop::collection::vec(prop_oneof![8 => 0.0f64..=1.0, 1 => prop_oneof![Just(-0.1), Just(1.5), Just(f64::NAN)]], 13),
    ) {
        let _serial = common::serial();
        let p = |k: usize| probabilities[k];
        let mix = attention_zoo::data::corpus::GrammarMix {
            question: p(0), negation: p(1), perfect: p(2), modal: p(3), subordinate: p(4), subordinate_first: p(5), clause_verb: p(6),
            pronoun: p(7), adjective: p(8), plural: p(9), pp: p(10), adverb: p(11), front_adverb: p(12),
        };
        let cfg = CorpusConfig { seed, train, valid, test, min_len, max_len: min_len + span, mix };
        if let Ok(corpus) = generate_corpus(&cfg) {
            prop_assert_eq!((corpus.train.len(), corpus.valid.len(), corpus.test.len()), (train, valid, test));
            let tokens: Vec<Vec<String>> = corpus.train.iter().map(|(de, _)| tokenize(de)).collect();
            if let Ok(vocab) = Vocab::build(tokens.iter(), 1, None) {
                let _ = encode_pairs(&corpus.train, &vocab, &vocab, false);
            }
        }
    }

    #[test]
    fn corpus_files_never_panic(tsv in prop::collection::vec(any::<u8>(), 0..64), lines in prop::collection::vec(sentence(), 0..4), other in prop::collection::vec(sentence(), 0..4), tab: bool) {
        let _serial = common::serial();
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("properties");
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let (bytes, src, tgt) = (dir.join("bytes.tsv"), dir.join("src.txt"), dir.join("tgt.txt"));
        std::fs::write(&bytes, &tsv).expect("written");
        let sep = if tab { "\t" } else { " " };
        std::fs::write(&src, lines.iter().zip(&other).map(|(a, b)| format!("{a}{sep}{b}\n")).collect::<String>()).expect("written");
        std::fs::write(&tgt, other.join("\n")).expect("written");
        let _ = read_tsv_pairs(&bytes);
        let _ = read_tsv_pairs(&src);
        let _ = read_tsv_pairs(&dir);
        let _ = read_aligned_pairs(&src, &tgt);
        let _ = read_aligned_pairs(&bytes, &src);
        let _ = read_aligned_pairs(&dir, dir.join("missing"));
    }

    #[test]
    fn translators_never_panic(src_words in 0usize..6, tgt_words in 0usize..6, model_src in 1usize..10, model_tgt in 1usize..10, max_len in 0usize..6, sentences in prop::collection::vec(sentence(), 0..3), beam in 0usize..3, lstm: bool) {
        let _serial = common::serial();
        let (src_vocab, tgt_vocab) = (vocab_of(src_words), vocab_of(tgt_words));
        let pairs: Vec<(String, String)> = sentences.iter().map(|s| (s.clone(), s.clone())).collect();
        macro_rules! exercise {
            ($model:expr) => {
                if let Ok(t) = Translator::new($model, src_vocab.clone(), tgt_vocab.clone()) && let Ok(mut t) = t.with_max_len(max_len) {
                    let _ = t.greedy(&sentences);
                    let _ = t.beam(&sentences, beam);
                    let _ = t.bleu(&pairs, beam);
                    for s in &sentences {
                        let _ = t.alphas(s, Some(s));
                        let _ = t.sentence_attention(s, None);
                    }
                }
            };
        }
        if lstm {
            if let Ok(m) = LstmTranslator::new(&LstmTranslatorConfig { embed_dim: 2, hidden_dim: 2, ..LstmTranslatorConfig::new(model_src, model_tgt) }) { exercise!(m); }
        } else if let Ok(m) = GruTranslator::new(&GruTranslatorConfig { embed_dim: 2, hidden_dim: 2, ..GruTranslatorConfig::new(model_src, model_tgt) }) {
            exercise!(m);
        }
        let cfg = TransformerConfig { d_model: 4, n_heads: 2, d_ff: 4, n_layers: 1, dropout: 0.0, max_len: max_len + 1, ..TransformerConfig::new(model_src, model_tgt) };
        if let Ok(m) = Transformer::from_config(&cfg) && let Ok(mut t) = Translator::new(m, src_vocab.clone(), tgt_vocab.clone()) {
            let _ = t.greedy(&sentences);
            for s in &sentences { let _ = t.attention(s); }
        }
    }

    #[test]
    fn bleu_never_panics(
        hypotheses in prop::collection::vec(sentence(), 0..4), references in prop::collection::vec(sentence(), 0..4),
        smooth in 0usize..4, value in values_one(), effective_order: bool, lowercase: bool, v13a: bool,
    ) {
        let _serial = common::serial();
        let smooth = [Smooth::None, Smooth::Floor(value), Smooth::AddK(value), Smooth::Exp][smooth];
        let tokenizer = if v13a { Tokenizer::V13a } else { Tokenizer::None };
        let config = BleuConfig { smooth, effective_order, lowercase, tokenizer };
        let many: Vec<Vec<String>> = hypotheses.iter().map(|_| references.clone()).collect();
        if let Ok(b) = config.corpus_score(&hypotheses, &many) { let _ = (b.ratio(), b.to_string()); }
        if let Some(h) = hypotheses.first() { let _ = config.sentence_score(h, &references); }
        let _ = corpus_bleu(&hypotheses, &references);
        if let (Some(h), Some(r)) = (hypotheses.first(), references.first()) { let _ = sentence_bleu(h, r); }
        let tokens: Vec<Vec<String>> = hypotheses.iter().map(|s| tokenize(s)).collect();
        let refs: Vec<Vec<String>> = references.iter().map(|s| tokenize(s)).collect();
        let _ = attention_zoo::train::translation::corpus_bleu_tokens(&tokens, &refs);
    }

    #[test]
    fn scaler_and_gps_never_panic(lo in prop_oneof![Just(0.0f64), Just(-1.0), Just(f64::NAN)], hi in prop_oneof![Just(1.0f64), Just(0.0), Just(f64::INFINITY)], fit in prop::collection::vec(prop::array::uniform3(values_one()), 0..5), rows in prop::collection::vec(prop::array::uniform3(values_one()), 0..5), n in 0usize..6, seq_len in 0usize..4, pred_len in 0usize..4, seed in -3i64..3) {
        let _serial = common::serial();
        let mut scaler = MinMaxScaler::new((lo, hi));
        if scaler.fit(&fit).is_ok() {
            let _ = scaler.transform(&rows);
            let _ = scaler.inverse_transform(&rows);
        }
        let _ = MinMaxScaler::default().transform(&rows);
        let cfg = GpsConfig { seq_len, pred_len, ..GpsConfig::default() };
        if let Ok(t) = generate_gps_trajectories(&mut PyRandom::new(seed.into()), n, &cfg) {
            let _ = (t.sources_tensor(), t.targets_tensor(), t.full_tensor(), t.repeat_last(), t.scaled(&scaler));
        }
        if let Ok(t) = Trajectories::new(fit.clone(), rows.clone(), seq_len, pred_len) {
            let _ = (t.full_tensor(), t.repeat_last(), t.scaled(&scaler));
        }
        let _ = attention_zoo::data::lat_lon_mse(&fit, &rows);
    }

    #[test]
    fn schedules_clipping_and_statistics_never_panic(d in 0usize..600, warmup in prop_oneof![Just(0u64), 1u64..5000, Just(u64::MAX)], factor in values_one(), count in prop_oneof![0u64..10, Just(u64::MAX - 1), Just(u64::MAX)], max_norm in values_one(), norm_type in values_one(), ours in prop::collection::vec(values_one(), 0..6), theirs in prop::collection::vec(values_one(), 0..6), seed: u64) {
        let _serial = common::serial();
        if let Ok(mut s) = NoamSchedule::new(d, warmup, factor) {
            let _ = s.lr(count);
            s.set_step_count(count);
            if let Ok(mut adam) = Adam::new(vec![param()], 0.1) { let _ = s.step(&mut adam); let _ = s.step(&mut adam); }
        }
        let params = [param()];
        if let Ok(mut grads) = (params[0].tensor() * factor).and_then(|t| t.sum_all()).and_then(|t| t.backward()) {
            let _ = clip_grad_norm(&params, &mut grads, max_norm);
            let _ = clip_grad_norm_with(&params, &mut grads, max_norm, norm_type);
        }
        let _ = ks_2samp(&ours, &theirs);
        let _ = attention_zoo::train::median(&ours);
        if let Ok(spread) = SeedSpread::new("property", ours, theirs) {
            let _ = (spread.median_gap(), spread.passes(), spread.chance_of_median_gap(20, seed));
            let _ = format!("{spread:?}");
        }
    }
}

fn param() -> Param {
    Param::new(&Tensor::new(&[3f32, -4.0], &Device::Cpu).expect("a tensor")).expect("a parameter")
}

/// One value, usually ordinary, sometimes NaN, infinite, huge, tiny or negative.
fn values_one() -> impl Strategy<Value = f64> {
    values().prop_map(|v| v[0])
}
