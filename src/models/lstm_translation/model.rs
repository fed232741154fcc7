//! The whole LSTM translator: encoder, attention decoder, teacher forcing, and decoding.

use super::config::LstmTranslatorConfig;
use super::decoder::AttnLstmDecoder;
use super::encoder::LstmEncoder;
use crate::attention::padding_mask;
use crate::models::recurrent_translate::RecurrentTranslate;
use crate::models::special_ids::PAD_ID;
use crate::models::translate::{check_rows, source_lengths};
use crate::nn::fused::attn_lstm_decoder::attn_lstm_sequence;
use crate::nn::fused::rows::index_rows;
use crate::nn::shape::{Within, error, shape_error};
use crate::nn::{Walk, Walker};
use candle_core::{Result, Tensor};

/// The encoder and the attention decoder, with the attention weights of the last forward pass.
#[derive(Clone, Debug)]
pub struct LstmTranslator {
    pub config: LstmTranslatorConfig,
    pub encoder: LstmEncoder,
    pub decoder: AttnLstmDecoder,
    /// The attention weights of the last [`LstmTranslator::forward`], `(N, T, S)`.
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
    pub fn new(cfg: &LstmTranslatorConfig) -> Result<Self> {
        const NEW: &str = "LstmTranslator::new";
        cfg.check(NEW)?;
        let encoder = LstmEncoder::new(cfg).within(NEW)?;
        let decoder = AttnLstmDecoder::new(cfg).within(NEW)?;
        Ok(LstmTranslator { config: cfg.clone(), encoder, decoder, alphas: None })
    }

    /// Encodes a padded batch of sources (padding id [`PAD_ID`], at the end of each row).
    ///
    /// # Shapes
    /// - `src`: `(N, S)`; returns the decoder's starting state for `N` sentences
    pub fn encode(&self, src: &Tensor) -> Result<LstmState> {
        let module = "LstmTranslator";
        let lengths = source_lengths(module, src)?;
        let (outputs, (h, c)) = self.encoder.forward(src, &lengths).within(module)?;
        let keys = self.decoder.keys(&outputs).within(module)?;
        let mask = padding_mask(src, PAD_ID).within(module)?.squeeze(1).within(module)?; // (N, S): -inf at the padding
        Ok(LstmState { outputs, keys, mask, h, c })
    }

    /// Runs the decoder over `tgt` from `state`: the logits of every position and the weights.
    fn decode(&self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        let t = match tgt.dims() {
            &[n, t] if n == state.h.dim(0)? && t > 0 => t,
            d => return Err(shape_error("LstmTranslator", format!("target ids (N, T) with N = {} and T > 0", state.h.dim(0)?), d)),
        };
        // teacher forcing over the whole target as one graph node where the kernel applies
        let emb = self.decoder.embed.forward(tgt).within("AttnLstmDecoder")?;
        let cell = &self.decoder.cell.weights;
        if let Some((hs, alphas)) = attn_lstm_sequence(cell, &emb, &state.keys, &state.outputs, &state.mask, &state.h, &state.c)? {
            return Ok((self.decoder.out.forward(&hs)?, alphas));
        }
        let (mut h, mut c) = (state.h.clone(), state.c.clone());
        let (mut hs, mut alphas) = (Vec::with_capacity(t), Vec::with_capacity(t));
        for k in 0..t {
            let token = tgt.narrow(1, k, 1)?.squeeze(1)?;
            let ((h2, c2), a) = self.decoder.step(&token, &h, &c, &state.keys, &state.outputs, &state.mask)?;
            (h, c) = (h2, c2);
            hs.push(h.clone());
            alphas.push(a);
        }
        // The output layer once over every step: one (N*T, H) x (H, V) product, not T small ones.
        let logits = self.decoder.out.forward(&Tensor::stack(&hs, 1)?)?;
        Ok((logits, Tensor::stack(&alphas, 1)?))
    }

    /// Teacher forcing: the logits of the token after every position of `tgt_input`.
    ///
    /// # Shapes
    /// - `src`: `(N, S)` padded with 0; `tgt_input`: `(N, T)` starting with `<sos>`
    /// - returns the logits `(N, T, V)`; [`LstmTranslator::alphas`] holds the weights `(N, T, S)`
    pub fn forward(&mut self, src: &Tensor, tgt_input: &Tensor) -> Result<Tensor> {
        let state = self.encode(src)?;
        let (logits, alphas) = self.decode(&state, tgt_input).within("LstmTranslator")?;
        self.alphas = Some(alphas);
        Ok(logits)
    }
}

impl Walk for LstmTranslator {
    fn walk(&self, w: &mut Walker) {
        w.child("encoder", &self.encoder);
        w.child("decoder", &self.decoder);
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

    fn decode(&mut self, state: &LstmState, tgt: &Tensor) -> Result<(Tensor, Tensor)> {
        LstmTranslator::decode(self, state, tgt)
    }

    fn select_rows(&self, s: &LstmState, rows: &Tensor) -> Result<LstmState> {
        check_rows(rows, s.outputs.dim(0)?).within("LstmTranslator::select_rows")?;
        let pick = |t: &Tensor| index_rows(t, rows);
        Ok(LstmState { outputs: pick(&s.outputs)?, keys: pick(&s.keys)?, mask: pick(&s.mask)?, h: pick(&s.h)?, c: pick(&s.c)? })
    }

    /// The encoder's final `h` and `c`, each `(N, H)`.
    fn start_carry(&self, state: &LstmState) -> Result<Vec<Tensor>> {
        Ok(vec![state.h.clone(), state.c.clone()])
    }

    /// The decoder attends with `h`, then its cell reads the token's embedding and the context.
    fn step(&mut self, state: &LstmState, carry: &[Tensor], token: &Tensor) -> Result<(Tensor, Vec<Tensor>)> {
        let [h, c] = carry else {
            return Err(error("LstmTranslator", format!("expected a carry of h and c, got {} tensors", carry.len())));
        };
        let (logits, (h, c), _) = self.decoder.forward(token, h, c, &state.keys, &state.outputs, &state.mask)?;
        Ok((logits, vec![h, c]))
    }
}
