//! Errors carry context: each public model puts its own name on top of what went wrong beneath
//! it, and the inner layers stay visible below it, one label a line (candle's `Error::context`).
//! A model's error never names a sibling model.

use crate::common;

use attention_zoo::prelude::*;

fn floats<S: Into<candle_core::Shape>>(shape: S) -> Tensor {
    Tensor::zeros(shape, DType::F32, &Device::Cpu).unwrap()
}

fn ids(rows: &[&[u32]]) -> Tensor {
    let width = rows[0].len();
    Tensor::from_vec(rows.concat(), (rows.len(), width), &Device::Cpu).unwrap()
}

/// The label of every line of an error (the text before its first `: `, or the whole line
/// without its closing `:`), top first.
fn labels<T: std::fmt::Debug>(result: Result<T>) -> Vec<String> {
    let e = result.expect_err("an error").to_string();
    e.lines().map(|l| l.split(": ").next().unwrap_or("").trim_end_matches(':').to_string()).collect()
}

#[test]
fn each_model_names_itself_above_its_inner_layers() -> Result<()> {
    let _serial = common::serial();
    manual_seed(0)?;
    assert_eq!(labels(Encoder::new(2, 2)?.forward(&floats((1, 2, 3)))), ["Encoder"]);
    assert_eq!(labels(Decoder::new(2, 2)?.forward(&floats((1, 1, 3)))), ["Decoder"]);
    assert_eq!(
        labels(EncoderDecoder::new(Encoder::new(2, 2)?, Decoder::new(2, 2)?, 2, 2, 0.5)?.forward(&floats((1, 4, 3)))),
        ["EncoderDecoder"]
    );
    assert_eq!(
        labels(EncoderDecoderAttn::new(Encoder::new(2, 2)?, DecoderAttn::new(2, 2)?, 2, 2, 0.5)?.forward(&floats((1, 4, 3)))),
        ["EncoderDecoder"]
    );
    assert_eq!(labels(EncoderSelfAttn::new(3, 2, 10, Some(2))?.forward(&floats((1, 2, 3)), None)), ["EncoderSelfAttn"]);
    assert_eq!(labels(DecoderSelfAttn::new(3, 2, 10, Some(2))?.forward(&floats((1, 2, 3)), None, None)), ["DecoderSelfAttn"]);
    assert_eq!(
        labels(
            EncoderDecoderSelfAttn::new(EncoderSelfAttn::new(3, 2, 10, Some(2))?, DecoderSelfAttn::new(3, 2, 10, Some(2))?, 2, 2)?
                .forward(&floats((1, 4, 3)))
        ),
        ["EncoderDecoderSelfAttn", "EncoderSelfAttn"]
    );
    assert_eq!(
        labels(
            EncoderDecoderSelfAttn::new(EncoderPe::new(3, 2, 10, Some(2), 100)?, DecoderPe::new(3, 2, 10, Some(2), 100)?, 2, 2)?
                .forward(&floats((1, 4, 3)))
        ),
        ["EncoderDecoderSelfAttn", "PositionalEncoding"]
    );
    assert_eq!(
        labels(TransformerEncoderBlock::new(4, 2, 8, 0.0)?.forward(&floats((1, 2, 3)), None)),
        ["TransformerEncoderBlock", "PackedMultiheadAttention"]
    );
    let cfg = TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 1, max_len: 10, ..TransformerConfig::new(11, 13) };
    assert_eq!(
        labels(Transformer::from_config(&cfg)?.forward(&ids(&[&[1, 20]]), &ids(&[&[1, 2]]), None, None)),
        ["Transformer", "Transformer::encode", "Embeddings", "Embedding"]
    );
    assert_eq!(
        labels(Transformer::from_config(&cfg)?.forward(&ids(&[&[1, 2]]), &ids(&[&[1, 2]]), Some(&floats((1, 3, 3))), None)),
        ["Transformer", "Transformer::encode", "TransformerEncoder", "EncoderLayer", "NarrowMultiHeadAttention"]
    );
    assert_eq!(labels(TransformerEncoder::from_config(&cfg)?.forward(&floats((1, 2, 3)), None)), ["TransformerEncoder", "EncoderLayer"]);
    assert_eq!(
        labels(EncoderLayer::from_config(&cfg)?.forward(&floats((1, 2, 8)), Some(&floats((1, 3, 3))))),
        ["EncoderLayer", "NarrowMultiHeadAttention"]
    );
    let g = GruTranslatorConfig::new(11, 13);
    assert_eq!(labels(GruTranslator::new(&g)?.forward(&ids(&[&[1, 20]]), &ids(&[&[1, 2]]))), ["GruTranslator", "GruEncoder", "Embedding"]);
    assert_eq!(labels(GruTranslator::new(&g)?.forward(&ids(&[&[0, 0]]), &ids(&[&[1, 2]]))), ["GruTranslator"]);
    let l = LstmTranslatorConfig::new(11, 13);
    assert_eq!(
        labels(LstmTranslator::new(&l)?.forward(&ids(&[&[1, 20]]), &ids(&[&[1, 2]]))),
        ["LstmTranslator", "LstmEncoder", "Embedding"]
    );
    assert_eq!(labels(LstmTranslator::new(&l)?.forward(&ids(&[&[1, 2]]), &ids(&[&[1, 2], &[1, 2]]))), ["LstmTranslator"]);
    Ok(())
}

#[test]
fn a_model_never_names_a_sibling_and_every_line_is_one_label() -> Result<()> {
    let _serial = common::serial();
    manual_seed(0)?;
    // The GRU translator used to report its padding errors as the LSTM translator's.
    let e = GruTranslator::new(&GruTranslatorConfig::new(11, 13))?.encode(&ids(&[&[0, 0]])).unwrap_err().to_string();
    assert_eq!(e, "GruTranslator: source 0 of 1 is all padding");
    // `Transformer` is compared whole: an error of the `TransformerEncoder` inside it is put
    // under the `Transformer`'s name, not mistaken for one of its own.
    let cfg = TransformerConfig { d_model: 8, n_heads: 2, d_ff: 16, n_layers: 1, max_len: 10, ..TransformerConfig::new(11, 13) };
    let e = Transformer::from_config(&cfg)?.encode(&ids(&[&[1, 2]]), Some(&floats((1, 3, 3)))).unwrap_err().to_string();
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[..3], ["Transformer::encode:", "TransformerEncoder:", "EncoderLayer:"], "{e}");
    assert!(lines[3].starts_with("NarrowMultiHeadAttention: "), "{e}");
    for sibling in ["GruTranslator", "LstmTranslator", "TransformerEncoderBlock", "TransformerDecoder"] {
        assert!(!e.contains(sibling), "{e}");
    }
    Ok(())
}
