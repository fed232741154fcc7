//! The recurrent architectures: the lecture's GRU encoder and decoder (with teacher forcing and
//! with attention) and the blog post's LSTM translator and padded biLSTM encoder.

use super::canvas::{Diagram, Part};

/// The GRU encoder unrolled over a source of two points.
pub(crate) fn encoder() -> Diagram {
    Diagram::new("Encoder(n_features, hidden_dim): a GRU reads the source; its last state sums it up", 680, 300)
        .block("h", "zeros\n(1, N, H)", Part::Data, (70.0, 150.0))
        .block("g0", "GRU", Part::Recurrent, (230.0, 150.0))
        .block("g1", "GRU", Part::Recurrent, (410.0, 150.0))
        .block("x0", "x₀ (N, 1, F)", Part::Data, (230.0, 255.0))
        .block("x1", "x₁ (N, 1, F)", Part::Data, (410.0, 255.0))
        .block("o", "hidden_seq (N, L, H)", Part::Data, (365.0, 55.0))
        .block("f", "final hidden\nstate (1, N, H)", Part::Data, (590.0, 150.0))
        .arrow("h", "g0")
        .arrow_labelled("g0", "g1", "h₀")
        .arrow_labelled("g1", "f", "h₁")
        .arrow("x0", "g0")
        .arrow("x1", "g1")
        .arrow("g0", "o")
        .arrow("g1", "o")
        .group("Encoder", &["g0", "g1"])
}

/// One step of the GRU decoder: hidden state in, one point out, fed back as the next input.
pub(crate) fn decoder() -> Diagram {
    Diagram::new("Decoder: one step, one point out, fed back as the next input", 680, 320)
        .block("init", "encoder's final hidden\n(init_hidden)", Part::Data, (110.0, 70.0))
        .block("x", "last point (N, 1, F)", Part::Data, (110.0, 250.0))
        .block("gru", "GRU", Part::Recurrent, (320.0, 160.0))
        .block("lin", "Linear\n(H → F)", Part::Linear, (480.0, 160.0))
        .block("y", "prediction\n(N, 1, F)", Part::Data, (610.0, 160.0))
        .arrow_labelled("init", "gru", "hidden")
        .arrow("x", "gru")
        .arrow_labelled("gru", "lin", "output")
        .arrow("lin", "y")
        .route("y", "x", Some("next input"), &[(610.0, 290.0), (110.0, 290.0)], true)
        .group("Decoder(n_features, hidden_dim)", &["gru", "lin"])
}

/// The encoder-decoder with teacher forcing: a coin decides whether the next input is the true
/// target point or the model's own prediction.
pub(crate) fn encoder_decoder() -> Diagram {
    Diagram::new("EncoderDecoder with teacher forcing", 760, 360)
        .block("x0", "x₀", Part::Data, (60.0, 290.0))
        .block("x1", "x₁", Part::Data, (180.0, 290.0))
        .block("e0", "GRU", Part::Recurrent, (60.0, 190.0))
        .block("e1", "GRU", Part::Recurrent, (180.0, 190.0))
        .block("d0", "GRU + Linear\nstep 1", Part::Recurrent, (340.0, 190.0))
        .block("p0", "x̂₂", Part::Data, (340.0, 80.0))
        .block("coin", "coin ≤ teacher_forcing_prob ?\nyes: true x₂   no: x̂₂", Part::Op, (530.0, 290.0))
        .block("t2", "x₂ (target)", Part::Data, (530.0, 80.0))
        .block("d1", "GRU + Linear\nstep 2", Part::Recurrent, (680.0, 190.0))
        .block("p1", "x̂₃", Part::Data, (680.0, 80.0))
        .arrow("x0", "e0")
        .arrow("x1", "e1")
        .arrow("e0", "e1")
        .arrow_labelled("e1", "d0", "hidden")
        .route("x1", "d0", None, &[(250.0, 290.0), (250.0, 240.0), (300.0, 240.0)], false)
        .arrow("d0", "p0")
        .route("p0", "coin", None, &[(420.0, 80.0), (420.0, 290.0)], true)
        .arrow("t2", "coin")
        .arrow_labelled("coin", "d1", "input")
        .arrow("d0", "d1")
        .arrow("d1", "p1")
        .group("Encoder", &["e0", "e1"])
        .group("Decoder", &["d0", "d1"])
        .note("In training the coin is tossed at every step; in eval() the prediction is always fed back.", (30.0, 345.0))
}

/// The attention decoder: the GRU's state queries the encoder's states.
pub(crate) fn decoder_attn() -> Diagram {
    Diagram::new("DecoderAttn: the hidden state queries the encoder's states", 720, 380)
        .block("keys", "encoder states\nkeys = values (N, L, H)", Part::Data, (110.0, 100.0))
        .block("x", "last point (N, 1, F)", Part::Data, (110.0, 310.0))
        .block("gru", "GRU", Part::Recurrent, (280.0, 230.0))
        .block("att", "Attention\n(init_keys)", Part::Attention, (280.0, 100.0))
        .block("cat", "concatenate\n[context, query]", Part::Op, (475.0, 100.0))
        .block("lin", "Linear\n(2H → F)", Part::Linear, (625.0, 100.0))
        .block("y", "prediction (N, 1, F)", Part::Data, (625.0, 310.0))
        .arrow("keys", "att")
        .arrow("x", "gru")
        .arrow_labelled("gru", "att", "query")
        .arrow_labelled("att", "cat", "context")
        .route("gru", "cat", None, &[(475.0, 230.0)], false)
        .arrow("cat", "lin")
        .arrow("lin", "y")
        .group("DecoderAttn(n_features, hidden_dim)", &["gru", "att", "cat", "lin"])
}

/// Encoder and attention decoder together: every decoder step sees every encoder state.
pub(crate) fn encoder_decoder_attn() -> Diagram {
    Diagram::new("EncoderDecoderAttn: every step of the decoder looks at every source state", 740, 330)
        .block("x0", "x₀", Part::Data, (70.0, 280.0))
        .block("x1", "x₁", Part::Data, (200.0, 280.0))
        .block("e0", "GRU", Part::Recurrent, (70.0, 190.0))
        .block("e1", "GRU", Part::Recurrent, (200.0, 190.0))
        .block("kv", "keys = values\n[h₀, h₁]", Part::Data, (200.0, 75.0))
        .block("d0", "DecoderAttn\nstep 1", Part::Attention, (420.0, 190.0))
        .block("d1", "DecoderAttn\nstep 2", Part::Attention, (620.0, 190.0))
        .block("a", "alphas (N, 2, L)\nkept for plotting", Part::Data, (520.0, 75.0))
        .arrow("x0", "e0")
        .arrow("x1", "e1")
        .arrow("e0", "e1")
        .arrow("e0", "kv")
        .arrow("e1", "kv")
        .route("kv", "d0", None, &[(420.0, 75.0)], false)
        .route("kv", "d1", None, &[(300.0, 40.0), (620.0, 40.0)], false)
        .arrow_labelled("e1", "d0", "hidden")
        .arrow_labelled("d0", "d1", "x̂₂")
        .arrow("d0", "a")
        .arrow("d1", "a")
        .group("Encoder", &["e0", "e1"])
        .group("Decoder", &["d0", "d1"])
}

/// The blog's LSTM translator: embeddings, an LSTM encoder, and an LSTMCell decoder that attends
/// with its previous hidden state and reads `[embedding, context]`.
pub(crate) fn lstm_translator() -> Diagram {
    Diagram::new("LstmTranslator: embeddings, LSTM encoder, LSTMCell decoder with attention", 900, 400)
        .block("src", "source tokens (N, S)", Part::Data, (105.0, 350.0))
        .block("emb_s", "Embedding\n(src_vocab, E)", Part::Embedding, (105.0, 265.0))
        .block("lstm", "LSTM", Part::Recurrent, (105.0, 180.0))
        .block("mem", "encoder outputs (N, S, H)", Part::Data, (105.0, 85.0))
        .block("prev", "previous (h, c)", Part::Data, (290.0, 250.0))
        .block("att", "attention over\nencoder outputs", Part::Attention, (470.0, 85.0))
        .block("tgt", "previous target token\n(teacher forcing)", Part::Data, (640.0, 350.0))
        .block("emb_t", "Embedding\n(tgt_vocab, E)", Part::Embedding, (640.0, 265.0))
        .block("cat", "[embedding, context]", Part::Op, (640.0, 180.0))
        .block("cell", "LSTMCell", Part::Recurrent, (640.0, 85.0))
        .block("out", "Linear → vocab logits", Part::Linear, (800.0, 250.0))
        .arrow("src", "emb_s")
        .arrow("emb_s", "lstm")
        .arrow("lstm", "mem")
        .arrow_labelled("lstm", "prev", "initial state")
        .arrow("mem", "att")
        .arrow_labelled("prev", "att", "query: h")
        .route("att", "cat", Some("context"), &[(470.0, 180.0)], false)
        .arrow("tgt", "emb_t")
        .arrow("emb_t", "cat")
        .arrow("cat", "cell")
        .route("prev", "cell", None, &[(290.0, 135.0), (600.0, 135.0)], true)
        .route("cell", "out", Some("new h"), &[(800.0, 85.0)], false)
        .group("Encoder", &["emb_s", "lstm"])
        .group("Decoder, one step", &["att", "emb_t", "cat", "cell", "out"])
}

/// The biLSTM encoder over a padded batch: each direction stops at each sentence's real length.
pub(crate) fn bilstm_encoder() -> Diagram {
    Diagram::new("Bidirectional LSTM over a padded batch", 760, 330)
        .block("b", "batch (N, L): [w₁ w₂ w₃ <pad>]\n[w₁ w₂ <pad> <pad>]", Part::Data, (130.0, 280.0))
        .block("len", "lengths [3, 2]", Part::Data, (130.0, 190.0))
        .block("emb", "Embedding", Part::Embedding, (330.0, 280.0))
        .block("fwd", "LSTM →\nw₁ … w_len", Part::Recurrent, (330.0, 170.0))
        .block("bwd", "LSTM ←\nw_len … w₁", Part::Recurrent, (520.0, 170.0))
        .block("cat", "concatenate [→, ←]", Part::Op, (425.0, 70.0))
        .block("out", "outputs (N, L, 2H)\nzeros at padding", Part::Data, (650.0, 70.0))
        .arrow("b", "emb")
        .arrow("emb", "fwd")
        .route("emb", "bwd", None, &[(520.0, 280.0)], false)
        .arrow("len", "fwd")
        .route("len", "bwd", None, &[(130.0, 120.0), (520.0, 120.0)], true)
        .arrow("fwd", "cat")
        .arrow("bwd", "cat")
        .arrow("cat", "out")
        .note("Packing by length: the backward LSTM starts at each sentence's last real word, not at its padding.", (20.0, 320.0))
}
