//! The attention mechanisms: one attention head, wide and narrow multi-head attention, the blog's
//! QKV layer, positional encoding and the residual "add & norm" around a sub-layer.

use super::canvas::{Diagram, Part};

/// Query, keys and values to scores, alphas and the context vector.
pub(crate) fn attention() -> Diagram {
    Diagram::new("Attention: score the keys, softmax to alphas, average the values", 790, 360)
        .block("q", "query (N, 1, H)", Part::Data, (90.0, 100.0))
        .block("k", "keys (N, L, H)", Part::Data, (90.0, 200.0))
        .block("v", "values (N, L, H)", Part::Data, (90.0, 300.0))
        .block("lq", "Linear", Part::Linear, (240.0, 100.0))
        .block("lk", "Linear", Part::Linear, (240.0, 200.0))
        .block("lv", "Linear\n(if proj_values)", Part::Linear, (240.0, 300.0))
        .block("s", "scores\nq·kᵀ / √H", Part::Attention, (400.0, 150.0))
        .block("m", "mask: -inf where\nthe source is padding", Part::Op, (400.0, 60.0))
        .block("sm", "softmax", Part::Attention, (540.0, 150.0))
        .block("bmm", "alphas × values", Part::Attention, (540.0, 300.0))
        .block("c", "context (N, 1, H)", Part::Data, (705.0, 300.0))
        .arrow("q", "lq")
        .arrow("k", "lk")
        .arrow("v", "lv")
        .arrow("lq", "s")
        .arrow("lk", "s")
        .route("m", "s", None, &[], true)
        .arrow("s", "sm")
        .arrow_labelled("sm", "bmm", "alphas (N, 1, L)")
        .arrow("lv", "bmm")
        .arrow("bmm", "c")
}

/// Wide multi-head attention: every head attends over all H features, then a linear layer mixes.
pub(crate) fn multi_head() -> Diagram {
    Diagram::new("MultiHeadAttention (wide): every head sees all the features", 700, 300)
        .block("kv", "keys, values (N, L, H)", Part::Data, (110.0, 70.0))
        .block("q", "query (N, 1, H)", Part::Data, (110.0, 230.0))
        .block("h1", "Attention head 1", Part::Attention, (330.0, 60.0))
        .block("h2", "Attention head 2", Part::Attention, (330.0, 150.0))
        .block("h3", "Attention head 3", Part::Attention, (330.0, 240.0))
        .block("cat", "concatenate\n(N, 1, 3H)", Part::Op, (500.0, 150.0))
        .block("lin", "Linear\n(3H → H)", Part::Linear, (620.0, 150.0))
        .arrow("kv", "h1")
        .arrow("kv", "h2")
        .arrow("kv", "h3")
        .arrow("q", "h1")
        .arrow("q", "h2")
        .arrow("q", "h3")
        .arrow("h1", "cat")
        .arrow("h2", "cat")
        .arrow("h3", "cat")
        .arrow("cat", "lin")
        .group("n_heads = 3", &["h1", "h2", "h3"])
}

/// Narrow multi-head attention beside the wide one: the projections are split into h chunks.
pub(crate) fn narrow_multi_head() -> Diagram {
    Diagram::new("Wide heads (all D features each) and narrow heads (d_k = D / h features each)", 780, 370)
        .block("wx", "x (N, L, D)", Part::Data, (130.0, 330.0))
        .block("w1", "head 1\nD → D", Part::Attention, (60.0, 220.0))
        .block("w2", "head 2\nD → D", Part::Attention, (200.0, 220.0))
        .block("wcat", "concat (N, L, hD)\n→ Linear hD → D", Part::Linear, (130.0, 110.0))
        .block("nx", "x (N, L, D)", Part::Data, (540.0, 330.0))
        .block("proj", "W_q, W_k, W_v: D → D\nsplit into h chunks of d_k", Part::Linear, (540.0, 260.0))
        .block("n1", "head 1\nd_k", Part::Attention, (460.0, 180.0))
        .block("n2", "head 2\nd_k", Part::Attention, (620.0, 180.0))
        .block("ncat", "concat (N, L, D)\n→ W_o: D → D", Part::Linear, (540.0, 95.0))
        .arrow("wx", "w1")
        .arrow("wx", "w2")
        .arrow("w1", "wcat")
        .arrow("w2", "wcat")
        .arrow("nx", "proj")
        .arrow("proj", "n1")
        .arrow("proj", "n2")
        .arrow("n1", "ncat")
        .arrow("n2", "ncat")
        .group("wide (lecture)", &["w1", "w2", "wcat"])
        .group("narrow (Transformer)", &["proj", "n1", "n2", "ncat"])
}

/// The blog's QKV attention layer.
pub(crate) fn attention_layer() -> Diagram {
    Diagram::new("AttentionLayer: three linear maps, scores, softmax, weighted values", 720, 300)
        .block("q", "query", Part::Data, (70.0, 70.0))
        .block("k", "key", Part::Data, (70.0, 150.0))
        .block("v", "value", Part::Data, (70.0, 240.0))
        .block("lq", "Linear query", Part::Linear, (210.0, 70.0))
        .block("lk", "Linear key", Part::Linear, (210.0, 150.0))
        .block("lv", "Linear value", Part::Linear, (210.0, 240.0))
        .block("s", "Q Kᵀ", Part::Attention, (370.0, 110.0))
        .block("sm", "softmax", Part::Attention, (500.0, 110.0))
        .block("o", "weights × V", Part::Attention, (500.0, 240.0))
        .block("y", "output", Part::Data, (640.0, 240.0))
        .arrow("q", "lq")
        .arrow("k", "lk")
        .arrow("v", "lv")
        .arrow("lq", "s")
        .arrow("lk", "s")
        .arrow("s", "sm")
        .arrow_labelled("sm", "o", "attention weights")
        .arrow("lv", "o")
        .arrow("o", "y")
}

/// Positional encoding: the scaled input plus a fixed table of sines and cosines.
pub(crate) fn positional_encoding() -> Diagram {
    Diagram::new("PositionalEncoding: scale the input, add the position codes", 700, 280)
        .block("x", "x (N, L, D)", Part::Data, (80.0, 160.0))
        .block("scale", "× √d_model", Part::Op, (230.0, 160.0))
        .block("pe", "pe buffer (1, max_len, D)\nsin / cos of position × angle rate", Part::Embedding, (390.0, 75.0))
        .block("add", "+", Part::Op, (390.0, 160.0))
        .block("y", "encoded (N, L, D)", Part::Data, (570.0, 160.0))
        .arrow("x", "scale")
        .arrow("scale", "add")
        .arrow_labelled("pe", "add", "first L rows")
        .arrow("add", "y")
        .note("The table is a buffer: saved in the state dict, never trained.", (40.0, 255.0))
}

/// The Transformer notebook's AddNorm: the residual sum, layer norm, then dropout.
pub(crate) fn add_norm() -> Diagram {
    Diagram::new("AddNorm: Dropout(LayerNorm(x + sublayer(x)))", 700, 230)
        .block("x", "x", Part::Data, (60.0, 140.0))
        .block("sub", "sublayer\n(attention or FFN)", Part::Attention, (200.0, 140.0))
        .block("add", "+", Part::Op, (330.0, 140.0))
        .block("ln", "LayerNorm", Part::Norm, (450.0, 140.0))
        .block("drop", "Dropout", Part::Norm, (570.0, 140.0))
        .block("y", "out", Part::Data, (660.0, 140.0))
        .arrow("x", "sub")
        .arrow("sub", "add")
        .route("x", "add", Some("residual"), &[(60.0, 60.0), (330.0, 60.0)], false)
        .arrow("add", "ln")
        .arrow("ln", "drop")
        .arrow("drop", "y")
}

/// The Transformer's position-wise feed-forward network.
pub(crate) fn pointwise_feedforward() -> Diagram {
    Diagram::new("PointwiseFeedforward: the same two layers at every position", 720, 200)
        .block("x", "x (N, L, d_model)", Part::Data, (85.0, 120.0))
        .block("l1", "Linear\nd_model → d_ff", Part::Linear, (250.0, 120.0))
        .block("relu", "ReLU", Part::Op, (360.0, 120.0))
        .block("drop", "Dropout", Part::Norm, (455.0, 120.0))
        .block("l2", "Linear\nd_ff → d_model", Part::Linear, (570.0, 120.0))
        .block("y", "out", Part::Data, (670.0, 120.0))
        .arrow("x", "l1")
        .arrow("l1", "relu")
        .arrow("relu", "drop")
        .arrow("drop", "l2")
        .arrow("l2", "y")
}

/// The Transformer's token embeddings: a lookup table, scaled by the square root of d_model.
pub(crate) fn embeddings() -> Diagram {
    Diagram::new("Embeddings: look up each token's row, scale by √d_model", 700, 200)
        .block("ids", "token ids (N, L)", Part::Data, (85.0, 120.0))
        .block("table", "lookup table\n(vocab, d_model)", Part::Embedding, (270.0, 120.0))
        .block("scale", "× √d_model", Part::Op, (440.0, 120.0))
        .block("y", "(N, L, d_model)", Part::Data, (600.0, 120.0))
        .arrow("ids", "table")
        .arrow("table", "scale")
        .arrow("scale", "y")
}

/// The Transformer's positional encoding: the codes added to the (already scaled) embeddings,
/// then dropout.
pub(crate) fn transformer_positional_encoding() -> Diagram {
    Diagram::new("TransformerPositionalEncoding: add the codes, then dropout", 700, 250)
        .block("x", "embeddings (N, L, D)", Part::Data, (95.0, 160.0))
        .block("pe", "pe buffer (1, max_len, D)\nsin / cos of position × angle rate", Part::Embedding, (330.0, 70.0))
        .block("add", "+", Part::Op, (330.0, 160.0))
        .block("drop", "Dropout", Part::Norm, (460.0, 160.0))
        .block("y", "(N, L, D)", Part::Data, (600.0, 160.0))
        .arrow("x", "add")
        .arrow_labelled("pe", "add", "first L rows")
        .arrow("add", "drop")
        .arrow("drop", "y")
        .note("No scaling here: Embeddings already multiplied by √D.", (40.0, 235.0))
}
