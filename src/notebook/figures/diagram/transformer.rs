//! The self-attention architectures: the lecture's encoder and decoder, the Transformer's layers
//! and the whole translator, and the blog's encoder block.

use super::canvas::{Diagram, Part};

/// The lecture's self-attention encoder: multi-head self-attention then a feed-forward network.
pub(crate) fn encoder_self_attn() -> Diagram {
    Diagram::new("EncoderSelfAttn: every source point queries every source point", 700, 250)
        .block("x", "source (N, L, F)", Part::Data, (75.0, 130.0))
        .block("mha", "MultiHeadAttention\nquery = keys = values", Part::Attention, (265.0, 130.0))
        .block("ffn", "Linear → ReLU → Linear\n(ff_units)", Part::Linear, (500.0, 130.0))
        .block("y", "states (N, L, D)", Part::Data, (630.0, 210.0))
        .arrow("x", "mha")
        .arrow_labelled("mha", "ffn", "contexts")
        .arrow("ffn", "y")
        .group("EncoderSelfAttn(n_heads, d_model, ff_units)", &["mha", "ffn"])
}

/// The lecture's self-attention decoder: masked self-attention, cross-attention, feed-forward.
pub(crate) fn decoder_self_attn() -> Diagram {
    Diagram::new("DecoderSelfAttn: masked self-attention, then cross-attention to the encoder", 760, 300)
        .block("y", "shifted target (N, L, F)", Part::Data, (100.0, 220.0))
        .block("mask", "subsequent_mask(L)", Part::Op, (100.0, 120.0))
        .block("self", "MultiHeadAttention\n(self, masked)", Part::Attention, (290.0, 220.0))
        .block("mem", "encoder states\n(init_keys)", Part::Data, (460.0, 60.0))
        .block("cross", "MultiHeadAttention\n(cross)", Part::Attention, (460.0, 220.0))
        .block("ffn", "Linear → ReLU → Linear\n(ff_units → n_features)", Part::Linear, (640.0, 220.0))
        .block("out", "points (N, L, F)", Part::Data, (640.0, 120.0))
        .arrow("y", "self")
        .route("mask", "self", None, &[(290.0, 120.0)], true)
        .arrow("self", "cross")
        .arrow_labelled("mem", "cross", "keys, values")
        .arrow("cross", "ffn")
        .arrow("ffn", "out")
}

/// The lecture's EncoderPe and DecoderPe: positional encoding before each self-attention layer.
pub(crate) fn encoder_decoder_pe() -> Diagram {
    Diagram::new("EncoderPe and DecoderPe: positional encoding, then the self-attention layer", 760, 290)
        .block("src", "source (N, L, F)", Part::Data, (100.0, 90.0))
        .block("pe_enc", "PositionalEncoding", Part::Embedding, (290.0, 90.0))
        .block("enc", "EncoderSelfAttn", Part::Attention, (480.0, 90.0))
        .block("states", "states (N, L, D)", Part::Data, (670.0, 90.0))
        .block("tgt", "shifted target (N, L, F)", Part::Data, (100.0, 230.0))
        .block("pe_dec", "PositionalEncoding", Part::Embedding, (290.0, 230.0))
        .block("dec", "DecoderSelfAttn", Part::Attention, (480.0, 230.0))
        .block("pred", "predictions (N, L, F)", Part::Data, (670.0, 230.0))
        .arrow("src", "pe_enc")
        .arrow("pe_enc", "enc")
        .arrow("enc", "states")
        .arrow_labelled("states", "dec", "init_keys")
        .arrow("tgt", "pe_dec")
        .arrow("pe_dec", "dec")
        .arrow("dec", "pred")
        .group("EncoderPe", &["pe_enc", "enc"])
        .group("DecoderPe", &["pe_dec", "dec"])
}

/// The self-attention encoder-decoder: in training the whole shifted target in one pass, masked;
/// in evaluation one point at a time.
pub(crate) fn encoder_decoder_self_attn() -> Diagram {
    Diagram::new("EncoderDecoderSelfAttn", 760, 300)
        .block("src", "source (N, L, F)", Part::Data, (90.0, 220.0))
        .block("enc", "EncoderSelfAttn", Part::Attention, (90.0, 110.0))
        .block("tgt", "[last source point,\ntarget without its last]", Part::Data, (380.0, 240.0))
        .block("dec", "DecoderSelfAttn\n(subsequent mask)", Part::Attention, (380.0, 110.0))
        .block("y", "predictions (N, L, F)", Part::Data, (630.0, 110.0))
        .arrow("src", "enc")
        .arrow_labelled("enc", "dec", "init_keys")
        .arrow_labelled("tgt", "dec", "train: all at once")
        .arrow("dec", "y")
        .route("y", "tgt", Some("eval: fed back one point at a time"), &[(630.0, 240.0)], true)
}

/// The Transformer's encoder layer: self-attention and feed-forward, each in an add & norm.
pub(crate) fn encoder_layer() -> Diagram {
    Diagram::new("EncoderLayer: self-attention and feed-forward, each with add & norm", 780, 230)
        .block("x", "x (N, L, D)", Part::Data, (60.0, 140.0))
        .block("mha", "multi-head\nself-attention", Part::Attention, (200.0, 140.0))
        .block("an1", "Add & Norm", Part::Norm, (340.0, 140.0))
        .block("ffn", "feed-forward\nD → d_ff → D", Part::Linear, (480.0, 140.0))
        .block("an2", "Add & Norm", Part::Norm, (620.0, 140.0))
        .block("y", "out", Part::Data, (730.0, 140.0))
        .arrow("x", "mha")
        .arrow("mha", "an1")
        .route("x", "an1", Some("residual"), &[(60.0, 60.0), (340.0, 60.0)], false)
        .arrow("an1", "ffn")
        .arrow("ffn", "an2")
        .route("an1", "an2", Some("residual"), &[(340.0, 210.0), (620.0, 210.0)], false)
        .arrow("an2", "y")
}

/// The Transformer's decoder layer: masked self-attention, cross-attention, feed-forward.
pub(crate) fn decoder_layer() -> Diagram {
    Diagram::new("DecoderLayer: masked self-attention, cross-attention, feed-forward", 780, 300)
        .block("y", "y (N, T, D)", Part::Data, (55.0, 200.0))
        .block("sa", "masked\nself-attention", Part::Attention, (170.0, 200.0))
        .block("an1", "Add & Norm", Part::Norm, (285.0, 200.0))
        .block("mem", "encoder output\n(memory)", Part::Data, (400.0, 50.0))
        .block("ca", "cross-\nattention", Part::Attention, (400.0, 200.0))
        .block("an2", "Add & Norm", Part::Norm, (515.0, 200.0))
        .block("ffn", "feed-forward", Part::Linear, (625.0, 200.0))
        .block("an3", "Add & Norm", Part::Norm, (730.0, 200.0))
        .arrow("y", "sa")
        .arrow("sa", "an1")
        .arrow("an1", "ca")
        .arrow_labelled("mem", "ca", "keys, values")
        .arrow("ca", "an2")
        .arrow("an2", "ffn")
        .arrow("ffn", "an3")
        .route("y", "an1", None, &[(55.0, 265.0), (285.0, 265.0)], false)
        .route("an1", "an2", None, &[(285.0, 145.0), (515.0, 145.0)], false)
        .route("an2", "an3", None, &[(515.0, 265.0), (730.0, 265.0)], false)
        .note("Each Add & Norm also takes its sub-layer's input (the residual lines).", (20.0, 292.0))
}

/// The whole Transformer translator.
pub(crate) fn transformer() -> Diagram {
    Diagram::new("Transformer: German in, English out", 860, 380)
        .block("src", "German tokens (N, S)", Part::Data, (150.0, 340.0))
        .block("es", "Embedding × √D\n+ positional encoding", Part::Embedding, (150.0, 255.0))
        .block("enc", "EncoderLayer × n_layers\n(source padding mask)", Part::Attention, (150.0, 160.0))
        .block("mem", "memory (N, S, D)", Part::Data, (150.0, 70.0))
        .block("tgt", "English so far (N, T)\nstarting with <sos>", Part::Data, (530.0, 340.0))
        .block("et", "Embedding × √D\n+ positional encoding", Part::Embedding, (530.0, 255.0))
        .block("dec", "DecoderLayer × n_layers\n(subsequent + padding masks)", Part::Attention, (530.0, 160.0))
        .block("lin", "Linear → vocabulary logits", Part::Linear, (530.0, 70.0))
        .arrow("src", "es")
        .arrow("es", "enc")
        .arrow("enc", "mem")
        .route("mem", "dec", None, &[(340.0, 70.0), (340.0, 160.0)], false)
        .arrow("tgt", "et")
        .arrow("et", "dec")
        .arrow("dec", "lin")
        .route("lin", "tgt", Some("next token (greedy or beam)"), &[(680.0, 70.0), (680.0, 340.0)], true)
        .group("encoder", &["es", "enc"])
        .group("decoder", &["et", "dec", "lin"])
}

/// The blog's encoder block: attention and feed-forward with residuals and a key-padding mask.
pub(crate) fn transformer_encoder_block() -> Diagram {
    Diagram::new("TransformerEncoderBlock: x + attention(x), then x + ffn(x)", 800, 275)
        .block("x", "x (L, N, E)", Part::Data, (60.0, 175.0))
        .block("mask", "key_padding_mask\n(N, L): true = pad", Part::Op, (230.0, 70.0))
        .block("mha", "MultiheadAttention\n(x, x, x)", Part::Attention, (230.0, 175.0))
        .block("add1", "+", Part::Op, (400.0, 175.0))
        .block("ffn", "Linear → ReLU → Dropout\n→ Linear → Dropout", Part::Linear, (560.0, 175.0))
        .block("add2", "+", Part::Op, (700.0, 175.0))
        .block("y", "out", Part::Data, (765.0, 175.0))
        .arrow("x", "mha")
        .arrow("mask", "mha")
        .arrow_labelled("mha", "add1", "attended")
        .route("x", "add1", None, &[(60.0, 250.0), (400.0, 250.0)], false)
        .arrow("add1", "ffn")
        .arrow("ffn", "add2")
        .route("add1", "add2", None, &[(400.0, 115.0), (700.0, 115.0)], false)
        .arrow("add2", "y")
}
