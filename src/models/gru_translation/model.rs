//! The whole GRU translator: encoder, attention decoder, teacher forcing and decoding.

use super::config::GruTranslatorConfig;
use super::decoder::GruAttnDecoder;
use super::encoder::GruEncoder;
use crate::attention::{select_rows_transposed, transposed_in_memory};
use crate::models::recurrent_translate::RecurrentTranslate;
use crate::models::special_ids::PAD_ID;
use crate::models::translate::{check_rows, source_lengths};
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{Within, error, shape_error};
use crate::nn::{Walk, Walker};
use candle_core::{DType, Result, Tensor};

/// The encoder and the attention decoder, with the attention weights of the last forward pass.
#[derive(Clone, Debug)]
pub struct GruTranslator {
    pub config: GruTranslatorConfig,
    pub encoder: GruEncoder,
    pub decoder: GruAttnDecoder,
    /// The attention weights of the last [`GruTranslator::forward`], `(N, T, S)`.
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
    pub fn new(cfg: &GruTranslatorConfig) -> Result<Self> {
        const NEW: &str = "GruTranslator::new";
        cfg.check(NEW)?;
        let encoder = GruEncoder::new(cfg).within(NEW)?;
        let decoder = GruAttnDecoder::new(cfg).within(NEW)?;
        Ok(GruTranslator { config: cfg.clone(), encoder, decoder, alphas: None })
    }

    /// Encodes a padded batch of sources (padding id [`PAD_ID`], at the end of each row).
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns the decoder's starting state for `N` sentences
    pub fn encode(&self, src: &Tensor) -> Result<GruState> {
        let module = "GruTranslator";
        let lengths = source_lengths(module, src)?;
        let (states, hidden) = self.encoder.forward(src, &lengths).within(module)?;
        // laid out as `Attention::init_keys` lays them out: read at every step
        let proj_keys = transposed_in_memory(&self.decoder.attn.linear_key.forward(&states).within(module)?).within(module)?;
        let mask = source_keep_mask(src).within(module)?;
        Ok(GruState { states, proj_keys, mask, hidden })
    }

    /// The decoder's logits over `tgt` from `state`, and its attention weights.
    fn decode(&mut self, state: &GruState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let (logits, _) = self.decode_from(state, &state.hidden, tgt)?;
        let alphas =
            self.decoder.attn.alphas.clone().ok_or_else(|| candle_core::Error::Msg("GruTranslator: no attention weights".into()))?;
        Ok((logits, alphas))
    }

    /// The decoder's logits over `tgt` from the hidden state `hidden` `(1, N, H)`, and its hidden
    /// state after the last token.
    fn decode_from(&mut self, state: &GruState, hidden: &Tensor, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let n = state.hidden.dim(1)?;
        match tgt.dims() {
            &[m, t] if m == n && t > 0 => {}
            d => return Err(shape_error("GruTranslator", format!("target ids (N, T) with N = {n} and T > 0"), d)),
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
    pub fn forward(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let state = self.encode(src)?;
        let (logits, alphas) = self.decode(&state, tgt_input).within("GruTranslator")?;
        self.alphas = Some(alphas);
        Ok(logits)
    }
}

/// The keep mask of padded source ids `(N, S)`: `(N, 1, S)`, 1 at real tokens, 0 at [`PAD_ID`].
fn source_keep_mask(src: &Tensor) -> Result<Tensor> {
    src.to_dtype(DType::U32)?.ne(PAD_ID)?.to_dtype(DType::U8)?.unsqueeze(1)
}

impl Walk for GruTranslator {
    fn walk(&self, w: &mut Walker) {
        w.child("encoder", &self.encoder);
        w.child("decoder", &self.decoder);
    }
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

    fn encode(&self, src: &Tensor) -> Result<GruState> {
        GruTranslator::encode(self, src)
    }

    fn decode(&mut self, state: &GruState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        GruTranslator::decode(self, state, tgt)
    }

    fn select_rows(&self, s: &GruState, rows: &Tensor) -> Result<GruState> {
        check_rows(rows, s.states.dim(0)?).within("GruTranslator::select_rows")?;
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
    fn step(&mut self, state: &GruState, carry: &[Tensor], token: &Tensor) -> Result<(Tensor, Vec<Tensor>)> {
        let [h] = carry else {
            return Err(error("GruTranslator", format!("expected a carry of one hidden state, got {} tensors", carry.len())));
        };
        let (logits, hidden) = self.decode_from(state, &h.unsqueeze(0)?, &token.unsqueeze(1)?)?;
        Ok((logits.squeeze(1)?, vec![hidden.squeeze(0)?]))
    }
}
