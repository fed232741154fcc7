//! The whole GRU translator: encoder, attention decoder, teacher forcing and decoding.

use super::config::GruTranslatorConfig;
use super::decoder::GruAttnDecoder;
use super::encoder::GruEncoder;
use crate::attention::{ScoreTerms, select_rows_transposed, transposed_in_memory};
use crate::models::recurrent_translate::RecurrentTranslate;
use crate::models::special_ids::PAD_ID;
use crate::models::translate::{check_rows, padded_lengths};
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{invalid, invalid_shape};
use crate::nn::{Walk, errors_as};
use candle_core::{DType, Result, Tensor};

/// The encoder and the attention decoder, with the attention weights of the last forward pass.
#[derive(Clone, Debug, Walk)]
pub struct GruTranslator {
    /// The config the model was built from, checked ([`GruTranslator::config`]).
    #[walk(skip)]
    config: GruTranslatorConfig,
    pub encoder: GruEncoder,
    pub decoder: GruAttnDecoder,
    /// The attention weights of the last [`GruTranslator::forward`], `(N, T, S)`.
    #[walk(skip)]
    pub alphas: Option<Tensor>,
}

/// What the encoder leaves for the decoder: its states (the attention's values), their
/// projections (the keys), the keep mask of the source and the final hidden state.
#[derive(Clone, Debug)]
pub struct GruState {
    pub states: Tensor,
    pub proj_keys: Tensor,
    pub mask: Tensor,
    pub hidden: Tensor,
}

impl GruTranslator {
    /// Draws the encoder's parameters, then the decoder's, in PyTorch's order. A size of 0, or one
    /// too large to make, is an error naming the config field, under `GruTranslator::new`.
    #[errors_as("GruTranslator::new")]
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        let encoder = GruEncoder::build(cfg)?;
        let decoder = GruAttnDecoder::build(cfg)?;
        Ok(GruTranslator { config: cfg.clone(), encoder, decoder, alphas: None })
    }

    /// The config the model was built from (checked then; the model reads its sizes from it).
    pub fn config(&self) -> &GruTranslatorConfig {
        &self.config
    }

    /// Encodes a padded batch of sources (padding id [`PAD_ID`], at the end of each row).
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns the decoder's starting state for `N` sentences
    #[errors_as("GruTranslator")]
    pub fn encode(&self, src: &Tensor) -> Result<GruState> {
        let lengths = padded_lengths(src)?;
        let (states, hidden) = self.encoder.forward(src, &lengths)?;
        let proj_keys = self.project_keys(&states)?;
        let mask = source_keep_mask(src)?;
        Ok(GruState { states, proj_keys, mask, hidden })
    }

    /// The attention's projected keys of the encoder's states, laid out as
    /// `Attention::init_keys` lays them out: read at every step.
    fn project_keys(&self, states: &Tensor) -> Result<Tensor> {
        transposed_in_memory(&self.decoder.attn.linear_key.forward(states)?)
    }

    /// The decoder's logits over `tgt` from `state`, and its attention weights.
    fn decode(&mut self, state: &GruState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let (logits, _) = self.decode_from(state, &state.hidden, tgt)?;
        let alphas = self.decoder.attn.alphas.clone().ok_or_else(|| invalid("no attention weights"))?;
        Ok((logits, alphas))
    }

    /// The decoder's logits over `tgt` from the hidden state `hidden` `(1, N, H)`, and its hidden
    /// state after the last token. Checks `tgt` against the state's `N` sentences.
    fn decode_from(&mut self, state: &GruState, hidden: &Tensor, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let n = state.hidden.dim(1)?;
        match tgt.dims() {
            &[m, t] if m == n && t > 0 => {}
            d => return Err(invalid_shape(format!("target ids (N, T) with N = {n} and T > 0"), d)),
        }
        let attn = &mut self.decoder.attn;
        attn.keys = Some(state.states.clone());
        attn.proj_keys = Some(state.proj_keys.clone());
        attn.values = Some(state.states.clone());
        self.decoder.forward_with_hidden(tgt, hidden, &state.mask)
    }

    /// Teacher forcing: the logits of the token after every position of `tgt_input`.
    ///
    /// # Shapes
    /// - `src`: `(N, S)` padded with 0; `tgt_input`: `(N, T)` starting with `<sos>`
    /// - returns the logits `(N, T, V)`; [`GruTranslator::alphas`] holds the weights `(N, T, S)`
    #[errors_as]
    pub fn forward(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let state = self.encode(src)?;
        let (logits, alphas) = self.decode(&state, tgt_input)?;
        self.alphas = Some(alphas);
        Ok(logits)
    }
}

/// The keep mask of padded source ids `(N, S)`: `(N, 1, S)`, 1 at real tokens, 0 at [`PAD_ID`].
fn source_keep_mask(src: &Tensor) -> Result<Tensor> {
    src.to_dtype(DType::U32)?.ne(PAD_ID)?.to_dtype(DType::U8)?.unsqueeze(1)
}

impl RecurrentTranslate for GruTranslator {
    type State = GruState;
    const NAME: &'static str = "GruTranslator";

    fn tgt_vocab(&self) -> usize {
        self.config.tgt_vocab
    }

    fn src_vocab(&self) -> usize {
        self.config.src_vocab
    }

    /// The decoder's attention after a teacher-forced pass over `tgt`: its last call's terms.
    fn score_terms(&mut self, state: &GruState, tgt: &Tensor) -> Result<ScoreTerms> {
        self.decode(state, tgt)?;
        self.decoder.attn.score_terms()
    }

    fn encode(&self, src: &Tensor) -> Result<GruState> {
        GruTranslator::encode(self, src)
    }

    #[errors_as("GruTranslator")]
    fn decode(&mut self, state: &GruState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        GruTranslator::decode(self, state, tgt)
    }

    #[errors_as]
    fn select_rows(&self, s: &GruState, rows: &Tensor) -> Result<GruState> {
        check_rows(rows, s.states.dim(0)?)?;
        let pick = |t: &Tensor| index_rows(t, rows);
        let proj_keys = select_rows_transposed(&s.proj_keys, rows)?;
        // The hidden state is `(1, N, H)`: its rows are those of `(N, H)`.
        let hidden = pick(&s.hidden.squeeze(0)?)?.unsqueeze(0)?;
        Ok(GruState { states: pick(&s.states)?, proj_keys, mask: pick(&s.mask)?, hidden })
    }

    /// The encoder's final hidden state, `(N, H)`.
    fn start_carry(&self, state: &GruState) -> Result<Vec<Tensor>> {
        Ok(vec![state.hidden.squeeze(0)?])
    }

    /// The GRU reads the token's embedding; its output attends over the source.
    #[errors_as("GruTranslator")]
    fn step(&mut self, state: &GruState, carry: &[Tensor], token: &Tensor) -> Result<(Tensor, Vec<Tensor>)> {
        let [h] = carry else {
            return Err(invalid(format!("expected a carry of one hidden state, got {} tensors", carry.len())));
        };
        let (logits, hidden) = self.decode_from(state, &h.unsqueeze(0)?, &token.unsqueeze(1)?)?;
        Ok((logits.squeeze(1)?, vec![hidden.squeeze(0)?]))
    }
}
