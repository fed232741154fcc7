//! Every public constructor, and the methods a student calls before `forward`, name themselves on
//! the first line of their errors: `Attention::new(0, None, false)` reads `Attention: ...`, not
//! the `Linear: ...` of the first layer it builds, and `MultiHeadAttention::init_keys` is not
//! reported as one of its heads. The inner error stays on the lines beneath.

use crate::common;

use attention_zoo::attention::{AttentionLayer, PackedMultiheadAttention, VectorisedMultiHeadAttention};
use attention_zoo::models::{AttnLstmDecoder, GruAttnDecoder, GruEncoder, LstmEncoder, TransformerDecoder, TransformerEncoder};
use attention_zoo::nn::LstmCell;
use attention_zoo::prelude::*;

/// The first line's label (the text before its first `: `, or the line without its `:`).
fn first_label<T>(result: Result<T>) -> String {
    let text = match result {
        Ok(_) => return "(no error)".to_string(),
        Err(e) => e.to_string(),
    };
    let first = text.lines().next().unwrap_or("").to_string();
    first.split(": ").next().unwrap_or("").trim_end_matches(':').to_string()
}

fn floats<S: Into<candle_core::Shape>>(shape: S) -> Tensor {
    Tensor::zeros(shape, DType::F32, &Device::Cpu).unwrap()
}

/// The recurrent layers name themselves as PyTorch does (`GRU: ...` for `nn.GRU`).
fn pytorch_name(name: &str) -> Option<&'static str> {
    match name {
        "Gru" => Some("GRU"),
        "Lstm" => Some("LSTM"),
        "LstmCell" => Some("LSTMCell"),
        _ => None,
    }
}

/// Each case: the name its error must start with, and the call with an argument it must refuse.
fn cases() -> Vec<(&'static str, String)> {
    let gru = GruTranslatorConfig { hidden_dim: 0, ..GruTranslatorConfig::new(11, 13) };
    let lstm = LstmTranslatorConfig { hidden_dim: 0, ..LstmTranslatorConfig::new(11, 13) };
    let transformer = TransformerConfig { n_heads: 3, ..TransformerConfig::new(11, 13) };
    let self_attn = SelfAttnConfig { d_model: 0, ..SelfAttnConfig::default() };
    vec![
        ("Linear", first_label(Linear::new(0, 3))),
        ("LayerNorm", first_label(LayerNorm::new(0))),
        ("Embedding", first_label(Embedding::new(0, 4))),
        ("Dropout", first_label(Dropout::new(1.5))),
        ("Gru", first_label(Gru::new(0, 3))),
        ("Gru", first_label(Gru::with_layers(4, 3, 0, false))),
        ("Lstm", first_label(Lstm::new(4, 0))),
        ("LstmCell", first_label(LstmCell::new(0, 3))),
        ("FeedForward", first_label(FeedForward::new(4, 0, 4))),
        ("Attention", first_label(Attention::new(0, None, false))),
        ("Attention", first_label(Attention::new(2, Some(0), false))),
        ("Attention", first_label(Attention::with_score(2, None, true, Score::Location { source_len: 0 }))),
        ("MultiHeadAttention", first_label(MultiHeadAttention::new(2, 0, None, true))),
        ("MultiHeadAttention", first_label(MultiHeadAttention::new(0, 2, None, true))),
        ("NarrowMultiHeadAttention", first_label(NarrowMultiHeadAttention::new(4, 3, 0.0))),
        ("VectorisedMultiHeadAttention", first_label(VectorisedMultiHeadAttention::new(4, 3, 0.0))),
        ("PackedMultiheadAttention", first_label(PackedMultiheadAttention::new(4, 3, 0.0))),
        ("AttentionLayer", first_label(AttentionLayer::new(0, 3))),
        ("PositionalEncoding", first_label(PositionalEncoding::new(0, 4))),
        ("Encoder", first_label(Encoder::new(0, 2))),
        ("Decoder", first_label(Decoder::new(2, 0))),
        ("DecoderAttn", first_label(DecoderAttn::new(2, 0))),
        ("EncoderSelfAttn", first_label(EncoderSelfAttn::new(0, 2, 10, Some(2)))),
        ("DecoderSelfAttn", first_label(DecoderSelfAttn::new(2, 2, 0, Some(2)))),
        ("EncoderSelfAttn", first_label(EncoderSelfAttn::from_config(&self_attn))),
        ("EncoderPe", first_label(EncoderPe::new(2, 2, 10, Some(2), 0))),
        ("DecoderPe", first_label(DecoderPe::new(0, 2, 10, Some(2), 100))),
        ("AddNorm", first_label(AddNorm::new(0, 0.1))),
        ("PointwiseFeedforward", first_label(PointwiseFeedforward::new(4, 0, 0.1))),
        ("EncoderLayer", first_label(EncoderLayer::new(4, 3, 8, 0.1))),
        ("DecoderLayer", first_label(DecoderLayer::new(4, 3, 8, 0.1))),
        ("EncoderLayer", first_label(EncoderLayer::from_config(&transformer))),
        ("TransformerEncoder", first_label(TransformerEncoder::from_config(&transformer))),
        ("TransformerDecoder", first_label(TransformerDecoder::from_config(&transformer))),
        ("Transformer", first_label(Transformer::from_config(&transformer))),
        ("Transformer", first_label(Transformer::new(0, 13))),
        ("TransformerEncoderBlock", first_label(TransformerEncoderBlock::new(4, 3, 8, 0.0))),
        ("GruTranslator", first_label(GruTranslator::new(&gru))),
        ("GruEncoder", first_label(GruEncoder::new(&gru))),
        ("GruAttnDecoder", first_label(GruAttnDecoder::new(&gru))),
        ("LstmTranslator", first_label(LstmTranslator::new(&lstm))),
        ("LstmEncoder", first_label(LstmEncoder::new(&lstm))),
        ("AttnLstmDecoder", first_label(AttnLstmDecoder::new(&lstm))),
        ("Adam", first_label(Adam::new(vec![], -1.0))),
        ("NoamSchedule", first_label(NoamSchedule::new(0, 10, 1.0))),
        ("CrossEntropyLoss", first_label(CrossEntropyLoss::with_options(None, 2.0, Default::default()))),
        ("DataLoader", first_label(DataLoader::new(TensorDataset::new(&floats((2, 1)), &floats((2, 1))).unwrap(), 0))),
        ("TensorDataset", first_label(TensorDataset::new(&floats((2, 1)), &floats((3, 1))))),
    ]
}

#[test]
fn every_constructor_names_itself_first() {
    let _serial = common::serial();
    manual_seed(0).unwrap();
    let wrong: Vec<String> = cases()
        .into_iter()
        .filter(|(name, got)| got != name && !got.starts_with(&format!("{name}::")) && Some(got.as_str()) != pytorch_name(name))
        .map(|(name, got)| format!("{name}: its error starts with {got:?}"))
        .collect();
    assert!(wrong.is_empty(), "errors that do not name what was called first:\n{}", wrong.join("\n"));
}

#[test]
fn init_keys_names_the_module_it_was_called_on() -> Result<()> {
    let _serial = common::serial();
    manual_seed(0)?;
    let keys = floats((1, 3, 5));
    assert_eq!(first_label(Attention::new(2, None, false)?.init_keys(&keys)), "Attention::init_keys");
    assert_eq!(first_label(MultiHeadAttention::new(2, 2, None, false)?.init_keys(&keys)), "MultiHeadAttention::init_keys");
    assert_eq!(first_label(DecoderSelfAttn::new(2, 2, 10, Some(2))?.init_keys(&keys)), "DecoderSelfAttn::init_keys");
    assert_eq!(first_label(DecoderPe::new(2, 2, 10, Some(2), 100)?.init_keys(&keys)), "DecoderPe::init_keys");
    // The inner error is kept beneath: what the head expected and got.
    let e = MultiHeadAttention::new(2, 2, None, false)?.init_keys(&keys).unwrap_err().to_string();
    assert!(e.contains("(N, L, 2)") || e.contains("2"), "{e}");
    Ok(())
}
