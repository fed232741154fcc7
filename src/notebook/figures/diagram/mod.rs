//! Architecture diagrams drawn by the crate: `draw(Architecture::DecoderAttn)` in a cell shows the
//! model the lecture defines at that point, and [`Diagram`] draws one of your own.

pub(crate) mod attention;
pub(crate) mod canvas;
pub(crate) mod recurrent;
pub(crate) mod transformer;

pub use canvas::{Diagram, Part};

/// The architectures the documents draw, by the name of the class that implements each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// The GRU encoder (part 1).
    Encoder,
    /// The GRU decoder, one step at a time (part 1).
    Decoder,
    /// Encoder and decoder with teacher forcing (part 1).
    EncoderDecoder,
    /// Scores, alphas and the context vector (part 2).
    Attention,
    /// The decoder whose hidden state queries the encoder's states (part 2).
    DecoderAttn,
    /// Encoder and attention decoder together (part 2).
    EncoderDecoderAttn,
    /// Wide multi-head attention (part 2).
    MultiHeadAttention,
    /// Narrow heads beside wide ones (the Transformer notebook).
    NarrowMultiHeadAttention,
    /// The self-attention encoder (part 3).
    EncoderSelfAttn,
    /// The self-attention decoder with its subsequent mask (part 3).
    DecoderSelfAttn,
    /// Self-attention encoder and decoder together (part 3).
    EncoderDecoderSelfAttn,
    /// Positional encoding (part 3).
    PositionalEncoding,
    /// The self-attention encoder and decoder with positional encoding in front (part 3).
    EncoderDecoderPe,
    /// Residual connection and layer norm around a sub-layer (the Transformer notebook).
    AddNorm,
    /// The position-wise feed-forward network (the Transformer notebook).
    PointwiseFeedforward,
    /// Token embeddings scaled by √d_model (the Transformer notebook).
    Embeddings,
    /// The Transformer's positional encoding, with dropout and without scaling.
    TransformerPositionalEncoding,
    /// The Transformer's encoder layer.
    EncoderLayer,
    /// The Transformer's decoder layer.
    DecoderLayer,
    /// The whole Transformer translator.
    Transformer,
    /// The blog's QKV attention layer.
    AttentionLayer,
    /// The blog's LSTM translator with an attention decoder.
    LstmTranslator,
    /// The blog's vectorised multi-head attention: narrow heads as one projection, split by
    /// `view` and `permute` (the same diagram as [`Architecture::NarrowMultiHeadAttention`]).
    VectorisedMultiHeadAttention,
    /// The blog's bidirectional LSTM encoder over a padded batch.
    BiLstmEncoder,
    /// The blog's Transformer encoder block.
    TransformerEncoderBlock,
}

impl Architecture {
    /// Every architecture, in the order the notebooks meet them.
    pub const ALL: [Architecture; 25] = [
        Architecture::Encoder,
        Architecture::Decoder,
        Architecture::EncoderDecoder,
        Architecture::Attention,
        Architecture::DecoderAttn,
        Architecture::EncoderDecoderAttn,
        Architecture::MultiHeadAttention,
        Architecture::NarrowMultiHeadAttention,
        Architecture::EncoderSelfAttn,
        Architecture::DecoderSelfAttn,
        Architecture::EncoderDecoderSelfAttn,
        Architecture::PositionalEncoding,
        Architecture::EncoderDecoderPe,
        Architecture::AddNorm,
        Architecture::PointwiseFeedforward,
        Architecture::Embeddings,
        Architecture::TransformerPositionalEncoding,
        Architecture::EncoderLayer,
        Architecture::DecoderLayer,
        Architecture::Transformer,
        Architecture::AttentionLayer,
        Architecture::LstmTranslator,
        Architecture::VectorisedMultiHeadAttention,
        Architecture::BiLstmEncoder,
        Architecture::TransformerEncoderBlock,
    ];
}

/// The diagram of an architecture, to show as a cell's last expression.
pub fn draw(architecture: Architecture) -> Diagram {
    use Architecture as A;
    match architecture {
        A::Encoder => recurrent::encoder(),
        A::Decoder => recurrent::decoder(),
        A::EncoderDecoder => recurrent::encoder_decoder(),
        A::Attention => attention::attention(),
        A::DecoderAttn => recurrent::decoder_attn(),
        A::EncoderDecoderAttn => recurrent::encoder_decoder_attn(),
        A::MultiHeadAttention => attention::multi_head(),
        A::NarrowMultiHeadAttention | A::VectorisedMultiHeadAttention => attention::narrow_multi_head(),
        A::EncoderSelfAttn => transformer::encoder_self_attn(),
        A::DecoderSelfAttn => transformer::decoder_self_attn(),
        A::EncoderDecoderSelfAttn => transformer::encoder_decoder_self_attn(),
        A::PositionalEncoding => attention::positional_encoding(),
        A::EncoderDecoderPe => transformer::encoder_decoder_pe(),
        A::AddNorm => attention::add_norm(),
        A::PointwiseFeedforward => attention::pointwise_feedforward(),
        A::Embeddings => attention::embeddings(),
        A::TransformerPositionalEncoding => attention::transformer_positional_encoding(),
        A::EncoderLayer => transformer::encoder_layer(),
        A::DecoderLayer => transformer::decoder_layer(),
        A::Transformer => transformer::transformer(),
        A::AttentionLayer => attention::attention_layer(),
        A::LstmTranslator => recurrent::lstm_translator(),
        A::BiLstmEncoder => recurrent::bilstm_encoder(),
        A::TransformerEncoderBlock => transformer::transformer_encoder_block(),
    }
}
