//! The whole LSTM translator: encoder, attention decoder, teacher forcing, and decoding.

use super::config::LstmTranslatorConfig;
use super::decoder::AttnLstmDecoder;
use super::encoder::LstmEncoder;
use crate::attention::{ScoreTerms, padding_mask};
use crate::models::recurrent_translate::RecurrentTranslate;
use crate::models::special_ids::PAD_ID;
use crate::models::translate::{check_rows, padded_lengths};
use crate::nn::fused::attn_lstm_decoder::attn_lstm_sequence;
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{Within, invalid, invalid_shape};
use crate::nn::{Walk, errors_as};
use candle_core::{Result, Tensor};

/// The encoder and the attention decoder, with the attention weights of the last forward pass.
#[derive(Clone, Debug, Walk)]
pub struct LstmTranslator {
    /// The config the model was built from, checked ([`LstmTranslator::config`]).
    #[walk(skip)]
    config: LstmTranslatorConfig,
    pub encoder: LstmEncoder,
    pub decoder: AttnLstmDecoder,
    /// The attention weights of the last [`LstmTranslator::forward`], `(N, T, S)`.
    #[walk(skip)]
    pub alphas: Option<Tensor>,
}

/// What the encoder leaves for the decoder: outputs, keys, the additive padding mask and the
/// final state.
#[derive(Clone, Debug)]
pub struct LstmState {
    pub outputs: Tensor,
    pub keys: Tensor,
    pub mask: Tensor,
    pub h: Tensor,
    pub c: Tensor,
}

impl LstmTranslator {
    /// Draws the encoder's parameters, then the decoder's, in PyTorch's order. A size of 0, or one
    /// too large to make, is an error naming the config field, under `LstmTranslator::new`.
    #[errors_as("LstmTranslator::new")]
    pub fn new(cfg: &LstmTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        let encoder = LstmEncoder::build(cfg)?;
        let decoder = AttnLstmDecoder::build(cfg)?;
        Ok(LstmTranslator { config: cfg.clone(), encoder, decoder, alphas: None })
    }

    /// The config the model was built from (checked then; the model reads its sizes from it).
    pub fn config(&self) -> &LstmTranslatorConfig {
        &self.config
    }

    /// Encodes a padded batch of sources (padding id [`PAD_ID`], at the end of each row).
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns the decoder's starting state for `N` sentences
    #[errors_as("LstmTranslator")]
    pub fn encode(&self, src: &Tensor) -> Result<LstmState> {
        let lengths = padded_lengths(src)?;
        let (outputs, (h, c)) = self.encoder.forward(src, &lengths)?;
        let keys = self.decoder.keys(&outputs)?;
        let mask = padding_mask(src, PAD_ID)?.squeeze(1)?; // (N, S): -inf at the padding
        Ok(LstmState { outputs, keys, mask, h, c })
    }

    /// Teacher forcing, step by step: from the encoder's final state, the decoder attends with
    /// its hidden state and reads the true previous token at every position of `tgt`. Returns
    /// every step's hidden state `(N, T, H)` and weights `(N, T, S)`;
    /// [`LstmTranslator::decode_target`] maps the states to logits once over every step, one
    /// `(N*T, H) x (H, V)` product rather than T small ones. (It checks `tgt`, and runs the same
    /// arithmetic as one fused node where the kernel applies.)
    fn decode(&self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let (mut h, mut c) = (state.h.clone(), state.c.clone());
        let (mut hs, mut alphas) = (vec![], vec![]);
        for k in 0..tgt.dim(1)? {
            let token = tgt.narrow(1, k, 1)?.squeeze(1)?;
            let ((h2, c2), a) = self.decoder.step(&token, &h, &c, &state.keys, &state.outputs, &state.mask)?;
            (h, c) = (h2, c2);
            hs.push(h.clone());
            alphas.push(a);
        }
        Ok((Tensor::stack(&hs, 1)?, Tensor::stack(&alphas, 1)?))
    }

    /// Teacher forcing: the logits of the token after every position of `tgt_input`.
    ///
    /// # Shapes
    /// - `src`: `(N, S)` padded with 0; `tgt_input`: `(N, T)` starting with `<sos>`
    /// - returns the logits `(N, T, V)`; [`LstmTranslator::alphas`] holds the weights `(N, T, S)`
    #[errors_as]
    pub fn forward(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let state = self.encode(src)?;
        let (logits, alphas) = self.decode_target(&state, tgt_input)?; // decode, fused where it can be
        self.alphas = Some(alphas);
        Ok(logits)
    }

    /// [`LstmTranslator::decode`] of a checked target, then the output layer: the whole target as
    /// one fused graph node where the kernel applies (float32 on the CPU, a hidden size it
    /// covers), else step by step. The same arithmetic either way, within float32 rounding.
    fn decode_target(&self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let (hs, alphas) = self.hidden_states(state, tgt)?;
        Ok((self.decoder.out.forward(&hs)?, alphas))
    }

    /// [`LstmTranslator::decode_target`] without the output layer: every step's hidden state
    /// `(N, T, H)` and weights `(N, T, S)`.
    fn hidden_states(&self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let n = state.h.dim(0)?;
        match tgt.dims() {
            &[m, t] if m == n && t > 0 => {}
            d => return Err(invalid_shape(format!("target ids (N, T) with N = {n} and T > 0"), d)),
        }
        // `.within`: the target's embedding is the decoder's, and its errors say so, as the steps' do.
        let emb = self.decoder.embed.forward(tgt).within("AttnLstmDecoder")?;
        let cell = &self.decoder.cell.weights;
        match attn_lstm_sequence(cell, &emb, &state.keys, &state.outputs, &state.mask, &state.h, &state.c)? {
            Some(given) => Ok(given),
            None => self.decode(state, tgt),
        }
    }
}

impl RecurrentTranslate for LstmTranslator {
    type State = LstmState;
    const NAME: &'static str = "LstmTranslator";

    fn tgt_vocab(&self) -> usize {
        self.config.tgt_vocab
    }

    fn src_vocab(&self) -> usize {
        self.config.src_vocab
    }

    fn encode(&self, src: &Tensor) -> Result<LstmState> {
        LstmTranslator::encode(self, src)
    }

    #[errors_as("LstmTranslator")]
    fn decode(&mut self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        self.decode_target(state, tgt)
    }

    #[errors_as]
    fn select_rows(&self, s: &LstmState, rows: &Tensor) -> Result<LstmState> {
        check_rows(rows, s.outputs.dim(0)?)?;
        let pick = |t: &Tensor| index_rows(t, rows);
        Ok(LstmState { outputs: pick(&s.outputs)?, keys: pick(&s.keys)?, mask: pick(&s.mask)?, h: pick(&s.h)?, c: pick(&s.c)? })
    }

    /// The terms of a teacher-forced pass's scores: each step's query is the hidden state before
    /// it (the encoder's final `h`, then every step's but the last), the keys the decoder's
    /// projection of the encoder's outputs, the padding masked.
    #[errors_as("LstmTranslator")]
    fn score_terms(&mut self, state: &LstmState, tgt: &Tensor) -> Result<ScoreTerms> {
        let (hs, alphas) = self.hidden_states(state, tgt)?;
        let before = Tensor::cat(&[state.h.unsqueeze(1)?, hs.narrow(1, 0, hs.dim(1)? - 1)?], 1)?;
        let mask = state.mask.unsqueeze(1)?.unsqueeze(1)?; // (N, 1, 1, S)
        ScoreTerms::scaled_dot(&before.unsqueeze(1)?, &state.keys.unsqueeze(1)?, Some(&mask), &alphas.unsqueeze(1)?)
    }

    /// The encoder's final `h` and `c`, each `(N, H)`.
    fn start_carry(&self, state: &LstmState) -> Result<Vec<Tensor>> {
        Ok(vec![state.h.clone(), state.c.clone()])
    }

    /// The decoder attends with `h`, then its cell reads the token's embedding and the context.
    #[errors_as("LstmTranslator")]
    fn step(&mut self, state: &LstmState, carry: &[Tensor], token: &Tensor) -> Result<(Tensor, Vec<Tensor>)> {
        let [h, c] = carry else {
            return Err(invalid(format!("expected a carry of h and c, got {} tensors", carry.len())));
        };
        let (logits, (h, c), _) = self.decoder.forward(token, h, c, &state.keys, &state.outputs, &state.mask)?;
        Ok((logits, vec![h, c]))
    }
}
