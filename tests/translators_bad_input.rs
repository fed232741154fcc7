//! Bad input to the translators and what drives them (`Translator`, decoding, the learner, the GRU
//! and LSTM translators and their configs): never a panic, an abort, a silent wrong answer or an
//! over-refusal, and each error names the public item called and the argument or field at fault.

use crate::common;

use attention_zoo::models::{AttnLstmDecoder, GruAttnDecoder, GruEncoder, LstmEncoder};
use attention_zoo::prelude::*;
use attention_zoo::train::Learner;

/// The specials and `words` more tokens: `4 + words` in all.
fn vocab(words: usize) -> Vocab {
    let tokens = ["<pad>", "<sos>", "<eos>", "<unk>"].iter().map(|s| s.to_string()).chain((0..words).map(|k| format!("w{k}")));
    Vocab::from_tokens(tokens).unwrap()
}

fn ids(rows: &[&[u32]]) -> Tensor {
    let s = rows[0].len();
    Tensor::from_vec(rows.iter().flat_map(|r| r.iter().copied()).collect::<Vec<_>>(), (rows.len(), s), &Device::Cpu).unwrap()
}

fn err<T>(r: Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// A translator that says nothing useful but its sizes and padding id.
#[derive(Clone)]
struct Toy {
    vocab: usize,
    pad: Option<u32>,
}

impl Walk for Toy {
    fn walk(&self, _: &mut Walker) {}
}

impl Translate for Toy {
    type State = Tensor;

    fn tgt_vocab(&self) -> usize {
        self.vocab
    }

    fn pad_id(&self) -> Option<u32> {
        self.pad
    }

    fn encode_src(&mut self, src: &Tensor) -> Result<Tensor> {
        Ok(src.clone())
    }

    fn select_rows(&self, state: &Tensor, rows: &Tensor) -> Result<Tensor> {
        state.index_select(rows, 0)
    }

    fn next_logits(&mut self, state: &mut Tensor, _: &Tensor) -> Result<Tensor> {
        Tensor::zeros((state.dim(0)?, self.vocab), DType::F32, &Device::Cpu)
    }

    fn teacher_forced(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        Tensor::zeros((src.dim(0)?, tgt_input.dim(1)?, self.vocab), DType::F32, &Device::Cpu)
    }

    fn sentence_attention(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<SentenceAttention> {
        Ok(SentenceAttention::Source(Tensor::zeros((src.dim(0)?, tgt_input.dim(1)?, src.dim(1)?), DType::F32, &Device::Cpu)?))
    }
}

fn small_transformer(vocab: usize, max_len: usize) -> Transformer {
    let cfg =
        TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 1, dropout: 0.0, max_len, ..TransformerConfig::new(vocab, vocab) };
    Transformer::from_config(&cfg).unwrap()
}

#[test]
fn translator_max_len_defaults_to_the_models_and_refuses_more() {
    let _guard = common::serial();
    manual_seed(0).unwrap();
    let v = vocab(7);
    let mut t = Translator::new(small_transformer(v.len(), 16), v.clone(), v.clone()).unwrap();
    assert_eq!(t.max_len, 16, "the model's max_len, smaller than the default 48");
    assert_eq!(t.greedy(&["w1 w2 w3"]).unwrap().len(), 1);
    assert_eq!(t.beam(&["w1 w2 w3"], 2).unwrap().len(), 1);
    // No sentences, no translations; a beam of 0 is refused by the method called, BLEU's too
    // (it used to fall back to greedy decoding without a word).
    assert!(t.greedy::<&str>(&[]).unwrap().is_empty() && t.beam::<&str>(&[], 2).unwrap().is_empty());
    let e = err(t.beam(&["w1"], 0));
    assert!(e.starts_with("Translator::beam:\n") && e.contains("beam_width must be at least 1, got 0"), "{e}");
    let e = err(t.bleu(&[("w1", "w2")], 0));
    assert!(e.starts_with("Translator::bleu: ") && e.contains("beam_width must be at least 1"), "{e}");
    let e = err(t.greedy(&["w1", ""]));
    assert!(e.starts_with("Translator::greedy: ") && e.contains("sentence 1 has no tokens"), "{e}");
    let e = err(t.alphas("", None));
    assert!(e.starts_with("Translator::alphas: ") && e.contains("sentence 0 has no tokens"), "{e}");
    // The attention reads `<sos>` and the translation: within the model's 16 ids even when the
    // translation runs to the end.
    let (_, _, tgt) = t.sentence_attention("w1 w2", None).unwrap();
    assert!(tgt.len() <= 16, "{tgt:?}");
    let long = vec!["w1"; 15].join(" ");
    t.sentence_attention("w1", Some(&long)).unwrap();
    let e = err(t.sentence_attention("w1", Some(&format!("{long} w2"))));
    assert!(e.starts_with("Translator::sentence_attention: ") && e.contains("16 tokens") && e.contains("max_len 16"), "{e}");

    // A model with a larger limit, or none, keeps the default.
    assert_eq!(Translator::new(small_transformer(v.len(), 64), v.clone(), v.clone()).unwrap().max_len, 48);
    let gru =
        GruTranslator::new(&GruTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..GruTranslatorConfig::new(v.len(), v.len()) }).unwrap();
    assert_eq!(Translator::new(gru, v.clone(), v.clone()).unwrap().max_len, 48);

    // A chosen max_len: within the model's taken, beyond it refused at the setter and at use.
    let t = t.with_max_len(8).unwrap();
    assert_eq!(t.max_len, 8);
    let e = err(t.clone().with_max_len(17));
    assert!(e.starts_with("Translator::with_max_len: ") && e.contains("max_len 17") && e.contains("max_len 16"), "{e}");
    let e = err(t.clone().with_max_len(0));
    assert!(e.starts_with("Translator::with_max_len: ") && e.contains("max_len"), "{e}");
    let mut t = t;
    t.max_len = 48;
    let e = err(t.greedy(&["w1"]));
    assert!(e.starts_with("Translator::greedy: ") && e.contains("max_len 48") && e.contains("16"), "{e}");
    let e = err(t.beam(&["w1"], 2));
    assert!(e.starts_with("Translator::beam: ") && e.contains("max_len 48"), "{e}");
    let e = err(t.sentence_attention("w1", None));
    assert!(e.starts_with("Translator::sentence_attention: ") && e.contains("max_len 48"), "{e}");
    // With a target given, no translation is made: max_len plays no part.
    t.sentence_attention("w1", Some("w2")).unwrap();
}

#[test]
fn translator_checks_the_vocabulary_sizes() {
    let _guard = common::serial();
    manual_seed(0).unwrap();
    let gru = |src: usize, tgt: usize| {
        GruTranslator::new(&GruTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..GruTranslatorConfig::new(src, tgt) }).unwrap()
    };
    // A target vocabulary smaller than the logits: refused at once, naming both sizes.
    let e = err(Translator::new(gru(11, 13), vocab(7), vocab(7)));
    assert!(e.starts_with("Translator::new: ") && e.contains("tgt_vocab") && e.contains("11") && e.contains("13"), "{e}");
    // A source vocabulary with ids the model cannot embed.
    let e = err(Translator::new(gru(9, 11), vocab(7), vocab(7)));
    assert!(e.starts_with("Translator::new: ") && e.contains("src_vocab") && e.contains("11") && e.contains(" 9"), "{e}");
    // No over-refusal: a smaller source vocabulary, a larger target one.
    let mut t = Translator::new(gru(13, 9), vocab(7), vocab(9)).unwrap();
    t.max_len = 3;
    assert_eq!(t.greedy(&["w1 w2"]).unwrap().len(), 1);
    // The LSTM translator says its sizes too.
    let lstm = LstmTranslator::new(&LstmTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..LstmTranslatorConfig::new(11, 13) }).unwrap();
    let e = err(Translator::new(lstm, vocab(7), vocab(7)));
    assert!(e.starts_with("Translator::new: ") && e.contains("tgt_vocab") && e.contains("13"), "{e}");
}

#[test]
fn a_pad_id_outside_the_target_vocabulary_is_refused() {
    let v = vocab(7);
    let toy = Toy { vocab: v.len(), pad: Some(50) };
    let e = err(Translator::new(toy.clone(), v.clone(), v.clone()));
    assert!(e.starts_with("Translator::new: ") && e.contains("pad_id 50") && e.contains("0..11"), "{e}");
    let src = ids(&[&[4, 5]]);
    let e = err(greedy_decode(&mut toy.clone(), &src, SOS_ID, EOS_ID, 3));
    assert!(e.starts_with("greedy_decode") && e.contains("pad_id 50"), "{e}");
    let e = err(beam_search(&mut toy.clone(), &src, SOS_ID, EOS_ID, &BeamConfig::new(2, 3)));
    assert!(e.starts_with("beam_search") && e.contains("pad_id 50"), "{e}");
    let batch = TranslationBatch::from_pairs(&[(vec![4, 5], vec![SOS_ID, 6, EOS_ID])]).unwrap();
    let e = err(toy.clone().forward_batch(&batch));
    assert!(e.contains("forward_batch") && e.contains("pad_id 50"), "{e}");
    // A pad_id inside the vocabulary but not the one the batches use would mask the wrong token.
    let other = Toy { vocab: v.len(), pad: Some(3) };
    let e = err(Translator::new(other.clone(), v.clone(), v.clone()));
    assert!(e.starts_with("Translator::new: ") && e.contains("pad_id 3"), "{e}");
    let e = err(other.clone().forward_batch(&batch));
    assert!(e.contains("forward_batch") && e.contains("pad_id 3"), "{e}");
    // No over-refusal: the usual padding id, or none.
    let mut ok = Translator::new(Toy { vocab: v.len(), pad: None }, v.clone(), v.clone()).unwrap();
    ok.max_len = 2;
    assert_eq!(ok.greedy(&["w1"]).unwrap().len(), 1);
    Toy { vocab: v.len(), pad: Some(PAD_ID) }.forward_batch(&batch).unwrap();
}

#[test]
fn the_transformer_refuses_a_pad_id_outside_its_vocabularies_where_it_is_made() {
    let small = |src_vocab, tgt_vocab, pad_id| TransformerConfig {
        pad_id,
        d_model: 8,
        n_heads: 2,
        d_ff: 8,
        n_layers: 1,
        ..TransformerConfig::small(src_vocab, tgt_vocab)
    };
    let e = err(Transformer::from_config(&small(20, 11, Some(11))));
    assert!(e.starts_with("Transformer: ") && e.contains("pad_id 11") && e.contains("target vocabulary 0..11"), "{e}");
    let e = err(Transformer::from_config(&small(5, 11, Some(7))));
    assert!(e.starts_with("Transformer: ") && e.contains("pad_id 7") && e.contains("source vocabulary 0..5"), "{e}");
    // The last id of both, and no padding at all, are models.
    Transformer::from_config(&small(11, 11, Some(10))).unwrap();
    Transformer::from_config(&small(11, 11, None)).unwrap();
}

#[test]
fn recurrent_translators_refuse_padding_inside_a_source() {
    let _guard = common::serial();
    manual_seed(0).unwrap();
    let mut gru = GruTranslator::new(&GruTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..GruTranslatorConfig::new(11, 13) }).unwrap();
    let mut lstm = LstmTranslator::new(&LstmTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..LstmTranslatorConfig::new(11, 13) }).unwrap();
    let bi = LstmTranslator::new(&LstmTranslatorConfig {
        bidirectional: true,
        embed_dim: 4,
        hidden_dim: 6,
        ..LstmTranslatorConfig::new(11, 13)
    })
    .unwrap();
    let src = ids(&[&[4, 5, 6, 7], &[4, 5, 0, 7]]);
    let tgt = ids(&[&[1, 5], &[1, 6]]);
    let says = |e: &str, model: &str| {
        assert!(e.starts_with(&format!("{model}: ")) && e.contains("source 1") && e.contains("position 2 before a real token at 3"), "{e}")
    };
    says(&err(gru.encode(&src)), "GruTranslator");
    says(&err(gru.forward(&src, &tgt)), "GruTranslator");
    says(&err(lstm.encode(&src)), "LstmTranslator");
    says(&err(lstm.forward(&src, &tgt)), "LstmTranslator");
    says(&err(bi.encode(&src)), "LstmTranslator");
    // Through decoding and training too.
    let e = err(greedy_decode(&mut gru, &src, SOS_ID, EOS_ID, 3));
    assert!(e.contains("source 1") && e.contains("position 2"), "{e}");
    let e = err(beam_search(&mut lstm, &src, SOS_ID, EOS_ID, &BeamConfig::new(2, 3)));
    assert!(e.contains("source 1") && e.contains("position 2"), "{e}");
    // Padding at the end only is fine, and gives each row the answer it gives alone.
    let padded = ids(&[&[4, 5, 6, 7], &[4, 5, 0, 0]]);
    let both = gru.forward(&padded, &tgt).unwrap();
    let alone = gru.forward(&ids(&[&[4, 5]]), &ids(&[&[1, 6]])).unwrap();
    let diff = (both.get(1).unwrap() - alone.get(0).unwrap()).unwrap().abs().unwrap().max_all().unwrap().to_scalar::<f32>().unwrap();
    assert!(diff < 1e-5, "{diff}");
    lstm.forward(&padded, &tgt).unwrap();
}

#[test]
fn config_errors_name_the_constructor_and_the_field() {
    let _guard = common::serial();
    manual_seed(0).unwrap();
    for (field, g, l) in [
        ("src_vocab", GruTranslatorConfig::new(0, 13), LstmTranslatorConfig::new(0, 13)),
        ("tgt_vocab", GruTranslatorConfig::new(11, 0), LstmTranslatorConfig::new(11, 0)),
        (
            "embed_dim",
            GruTranslatorConfig { embed_dim: 0, ..GruTranslatorConfig::new(11, 13) },
            LstmTranslatorConfig { embed_dim: 0, ..LstmTranslatorConfig::new(11, 13) },
        ),
        (
            "hidden_dim",
            GruTranslatorConfig { hidden_dim: 0, ..GruTranslatorConfig::new(11, 13) },
            LstmTranslatorConfig { hidden_dim: 0, ..LstmTranslatorConfig::new(11, 13) },
        ),
    ] {
        let e = err(GruTranslator::new(&g));
        assert_eq!(e, format!("GruTranslator::new: {field} must be at least 1, got 0"));
        let e = err(LstmTranslator::new(&l));
        assert_eq!(e, format!("LstmTranslator::new: {field} must be at least 1, got 0"));
        // The inner layers' own constructors name themselves and the field.
        assert!(err(GruEncoder::new(&g)).starts_with(&format!("GruEncoder::new: {field}")));
        assert!(err(GruAttnDecoder::new(&g)).starts_with(&format!("GruAttnDecoder::new: {field}")));
        assert!(err(LstmEncoder::new(&l)).starts_with(&format!("LstmEncoder::new: {field}")));
        assert!(err(AttnLstmDecoder::new(&l)).starts_with(&format!("AttnLstmDecoder::new: {field}")));
    }
    // An odd hidden_dim for a bidirectional encoder: the constructor called, then the field.
    let e = err(LstmTranslator::new(&LstmTranslatorConfig { bidirectional: true, hidden_dim: 7, ..LstmTranslatorConfig::new(11, 13) }));
    assert!(e.starts_with("LstmTranslator::new: ") && e.contains("hidden_dim") && e.contains('7'), "{e}");
    // Sizes too large to make: an error naming the fields, not an abort.
    let huge = usize::MAX / 4;
    let e = err(GruTranslator::new(&GruTranslatorConfig::new(huge, 13)));
    assert!(e.starts_with("GruTranslator::new: ") && e.contains("src_vocab") && e.contains("embed_dim"), "{e}");
    let e = err(LstmTranslator::new(&LstmTranslatorConfig { hidden_dim: 1 << 20, ..LstmTranslatorConfig::new(11, 13) }));
    assert!(e.starts_with("LstmTranslator::new: ") && e.contains("hidden_dim"), "{e}");
    let e = err(LstmTranslator::new(&LstmTranslatorConfig::new(11, 1 << 28)));
    assert!(e.starts_with("LstmTranslator::new: ") && e.contains("tgt_vocab"), "{e}");
}

/// Found by the properties of the second half: rows outside a decoding state, a rank-1 source to
/// the GRU encoder, mismatched shapes in one LSTM decoder step and a reference word the model
/// cannot embed gave candle's bare "invalid index", "unexpected rank" or "shape mismatch".
#[test]
fn decoder_states_steps_and_references_are_checked() {
    let _serial = common::serial();
    manual_seed(11).unwrap();
    let (src, rows) = (ids(&[&[4, 5], &[6, 0]]), Tensor::new(&[1u32, 2], &Device::Cpu).unwrap());
    let mut gru = GruTranslator::new(&GruTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..GruTranslatorConfig::new(9, 9) }).unwrap();
    let state = gru.encode_src(&src).unwrap();
    let e = err(gru.select_rows(&state, &rows));
    assert!(
        e.starts_with("GruTranslator::select_rows: ") && e.contains("row 2 (index 1 of the rows) is not one of the state's 2 sentences"),
        "{e}"
    );
    let cfg = LstmTranslatorConfig { embed_dim: 4, hidden_dim: 6, ..LstmTranslatorConfig::new(9, 9) };
    let mut lstm = LstmTranslator::new(&cfg).unwrap();
    let state = lstm.encode_src(&src).unwrap();
    let e = err(lstm.select_rows(&state, &rows.to_dtype(DType::F32).unwrap()));
    assert!(e.starts_with("LstmTranslator::select_rows: ") && e.contains("integer row indices"), "{e}");
    let mut transformer =
        Transformer::from_config(&TransformerConfig { d_model: 4, n_heads: 2, d_ff: 4, n_layers: 1, ..TransformerConfig::new(9, 9) })
            .unwrap();
    let state = transformer.encode_src(&src).unwrap();
    let e = err(transformer.select_rows(&state, &Tensor::new(&[[0u32]], &Device::Cpu).unwrap()));
    assert!(e.starts_with("Transformer::select_rows: ") && e.contains("row indices (K,)"), "{e}");

    let encoder = GruEncoder::new(&GruTranslatorConfig::new(9, 9)).unwrap();
    let e = err(encoder.forward(&Tensor::new(&[4u32, 5], &Device::Cpu).unwrap(), &[2]));
    assert!(e.starts_with("GruEncoder: expected source ids (N, S), got [2]"), "{e}");
    let decoder = AttnLstmDecoder::new(&cfg).unwrap();
    let (h, keys) = (Tensor::zeros((2, 6), DType::F32, &Device::Cpu).unwrap(), Tensor::zeros((2, 3, 6), DType::F32, &Device::Cpu).unwrap());
    let token = Tensor::new(&[4u32, 5], &Device::Cpu).unwrap();
    let e = err(decoder.forward(&token, &h, &h, &keys, &keys, &Tensor::zeros((2, 4), DType::F32, &Device::Cpu).unwrap()));
    assert!(
        e.starts_with("AttnLstmDecoder: expected token (2,), h and c (2, 6), keys and outputs (2, S, 6), mask (2, S)")
            && e.contains("[2, 4]"),
        "{e}"
    );

    // A target vocabulary may name more words than the model outputs; a reference using one of them is named.
    let mut t = Translator::new(gru, vocab(5), vocab(7)).unwrap();
    let e = err(t.alphas("w1", Some("w2 w6")));
    assert!(e.starts_with("Translator::alphas: ") && e.contains("target token 1 `w6` has id 10, beyond the model's 9 target ids"), "{e}");
}
