//! Which items of the crate's source each lecture class cell shows, and their text. The text is
//! generated: tests/class_excerpts.rs finds each pick in its file with `syn` and keeps the file's
//! exact bytes in excerpts.txt, which the crate reads when it is compiled (`include_str!`). The
//! test fails when excerpts.txt no longer matches the sources (a model changed, a pick was renamed);
//! `ZOO_BLESS=1 cargo test --test zoo class_excerpts` rewrites it.

use crate::notebook::figures::diagram::Architecture;
use Pick::{Alias, Fn, Methods, Struct, TraitImpl};
use std::fmt;

/// One item of a source file.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// `struct NAME` with its doc comment and attributes.
    Struct(&'static str),
    /// Methods of `impl NAME` (inherent impls only), in the order given, under their impl header.
    Methods(&'static str, &'static [&'static str]),
    /// The whole `impl TRAIT for NAME` block.
    TraitImpl(&'static str, &'static str),
    /// A free function.
    Fn(&'static str),
    /// `type NAME = ...;`
    Alias(&'static str),
}

/// The pick as excerpts.txt names it: `struct NAME`, `impl NAME: a, b`, `impl TRAIT for NAME`,
/// `fn NAME`, `type NAME`.
impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Struct(name) => write!(f, "struct {name}"),
            Methods(ty, names) => write!(f, "impl {ty}: {}", names.join(", ")),
            TraitImpl(tr, ty) => write!(f, "impl {tr} for {ty}"),
            Fn(name) => write!(f, "fn {name}"),
            Alias(name) => write!(f, "type {name}"),
        }
    }
}

/// One source file and the items shown from it.
pub struct Source {
    /// The file's path from the crate's root.
    pub path: &'static str,
    /// The items, in the order shown.
    pub picks: &'static [Pick],
}

macro_rules! source {
    ($path:literal, $picks:expr) => {
        Source { path: concat!("src/", $path), picks: $picks }
    };
}

/// The generated excerpts: each item's text under a line `#### ARCHITECTURE PATH PICK`, and a line
/// break after it (the texts end with the item's `}` or `;`, never with a line break).
const EXCERPTS: &str = include_str!("excerpts.txt");

/// What starts a record's header line in excerpts.txt.
pub const RECORD: &str = "#### ";

/// The text of one pick of one class cell, as excerpts.txt holds it.
pub fn excerpt(architecture: Architecture, path: &str, pick: &Pick) -> Option<&'static str> {
    record(&format!("{architecture:?} {path} {pick}"))
}

/// The text of the record under `#### HEADER` in excerpts.txt (a class cell's pick, or an exercise's
/// solution: `Practice PATH PICK`).
pub fn record(header: &str) -> Option<&'static str> {
    EXCERPTS.split(&format!("\n{RECORD}")).skip(1).find_map(|record| {
        let (head, text) = record.split_once('\n')?;
        (head == header).then(|| text.strip_suffix('\n').unwrap_or(text))
    })
}

/// The sources of one architecture's class cell.
pub fn sources(architecture: Architecture) -> Vec<Source> {
    use Architecture as A;
    match architecture {
        A::Encoder => vec![source!("models/seq2seq.rs", &[Struct("Encoder"), Methods("Encoder", &["new", "forward"])])],
        A::Decoder => vec![source!("models/seq2seq.rs", &[Struct("Decoder"), Methods("Decoder", &["new", "init_hidden", "forward"])])],
        A::EncoderDecoder => vec![source!(
            "models/seq2seq.rs",
            &[Struct("EncoderDecoder"), Methods("EncoderDecoder", &["new", "forward"]), Fn("teacher_forcing")]
        )],
        A::Attention => vec![
            source!(
                "attention/head.rs",
                &[Struct("Attention"), Methods("Attention", &["new", "with_score", "init_keys", "score_function", "forward"])]
            ),
            source!("attention/score.rs", &[Fn("dot_products"), Fn("scaled_dot_products"), Fn("context_vector")]),
        ],
        A::DecoderAttn => {
            vec![source!(
                "models/attention_decoder.rs",
                &[Struct("DecoderAttn"), Methods("DecoderAttn", &["new", "init_hidden", "forward"])]
            )]
        }
        A::EncoderDecoderAttn => vec![
            source!("models/attention_decoder.rs", &[Alias("EncoderDecoderAttn"), TraitImpl("StepDecoder", "DecoderAttn")]),
            source!("models/seq2seq.rs", &[Methods("EncoderDecoder", &["forward"])]),
        ],
        A::MultiHeadAttention => vec![source!(
            "attention/multi_head.rs",
            &[Struct("MultiHeadAttention"), Methods("MultiHeadAttention", &["new", "init_keys", "alphas", "forward"])]
        )],
        A::NarrowMultiHeadAttention => vec![source!(
            "attention/narrow.rs",
            &[Struct("NarrowMultiHeadAttention"), Methods("NarrowMultiHeadAttention", &["new", "forward"])]
        )],
        A::EncoderSelfAttn => {
            vec![source!("models/self_attention/layers.rs", &[Struct("EncoderSelfAttn"), Methods("EncoderSelfAttn", &["new", "forward"])])]
        }
        A::DecoderSelfAttn => vec![source!(
            "models/self_attention/layers.rs",
            &[Struct("DecoderSelfAttn"), Methods("DecoderSelfAttn", &["new", "init_keys", "forward"])]
        )],
        A::EncoderDecoderSelfAttn => vec![source!(
            "models/self_attention/encoder_decoder.rs",
            &[
                Struct("EncoderDecoderSelfAttn"),
                Methods("EncoderDecoderSelfAttn", &["new", "encode", "decode", "forward_masked", "predict", "predict_steps"]),
                Fn("shifted_target"),
            ]
        )],
        A::PositionalEncoding => vec![source!(
            "attention/positional.rs",
            &[Fn("positional_encoding_table"), Struct("PositionalEncoding"), Methods("PositionalEncoding", &["new", "forward"])]
        )],
        A::EncoderDecoderPe => vec![source!(
            "models/self_attention/with_pe.rs",
            &[
                Struct("WithPe"),
                Alias("EncoderPe"),
                Alias("DecoderPe"),
                Methods("WithPe<EncoderSelfAttn>", &["new", "forward"]),
                Methods("WithPe<DecoderSelfAttn>", &["new", "init_keys", "forward"]),
            ]
        )],
        A::AddNorm => vec![source!("models/transformer/sublayers.rs", &[Struct("AddNorm"), Methods("AddNorm", &["new", "forward"])])],
        A::PointwiseFeedforward => vec![source!(
            "models/transformer/sublayers.rs",
            &[Struct("PointwiseFeedforward"), Methods("PointwiseFeedforward", &["new", "forward"])]
        )],
        A::Embeddings => {
            vec![source!("models/transformer/embeddings.rs", &[Struct("Embeddings"), Methods("Embeddings", &["new", "forward"])])]
        }
        A::TransformerPositionalEncoding => vec![source!(
            "models/transformer/embeddings.rs",
            &[
                Fn("transformer_encoding_table"),
                Struct("TransformerPositionalEncoding"),
                Methods("TransformerPositionalEncoding", &["new", "forward"]),
            ]
        )],
        A::EncoderLayer => {
            vec![source!(
                "models/transformer/layers.rs",
                &[Struct("EncoderLayer"), Methods("EncoderLayer", &["new", "with_heads", "forward"])]
            )]
        }
        A::DecoderLayer => {
            vec![source!(
                "models/transformer/layers.rs",
                &[Struct("DecoderLayer"), Methods("DecoderLayer", &["new", "with_heads", "forward"])]
            )]
        }
        A::Transformer => vec![
            source!(
                "models/transformer/model.rs",
                &[Struct("Transformer"), Methods("Transformer", &["encoder_pass", "decoder_pass", "forward_with_attention"])]
            ),
            source!(
                "models/transformer/stacks.rs",
                &[Methods("TransformerEncoder", &["forward"]), Methods("TransformerDecoder", &["forward"])]
            ),
        ],
        A::AttentionLayer => {
            vec![source!("attention/layer.rs", &[Struct("AttentionLayer"), Methods("AttentionLayer", &["new", "forward"])])]
        }
        A::LstmTranslator => vec![
            source!(
                "models/lstm_translation/model.rs",
                &[Struct("LstmTranslator"), Methods("LstmTranslator", &["new", "encode", "decode", "forward"])]
            ),
            source!("models/lstm_translation/decoder.rs", &[Methods("AttnLstmDecoder", &["step"])]),
        ],
        A::VectorisedMultiHeadAttention => vec![source!(
            "attention/vectorised.rs",
            &[
                Struct("VectorisedMultiHeadAttention"),
                Methods("VectorisedMultiHeadAttention", &["new", "forward", "project_kv", "attend_kv", "split_heads"])
            ]
        )],
        A::BiLstmEncoder => {
            vec![source!(
                "models/lstm_translation/encoder.rs",
                &[Struct("LstmEncoder"), Methods("LstmEncoder", &["new", "build", "forward"])]
            )]
        }
        A::TransformerEncoderBlock => vec![source!(
            "models/encoder_block.rs",
            &[Struct("TransformerEncoderBlock"), Methods("TransformerEncoderBlock", &["new", "forward"])]
        )],
    }
}
