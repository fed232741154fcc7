//! The attention decoder: one `LstmCell` step per target token.

use super::config::LstmTranslatorConfig;
use crate::nn::shape::invalid;
use crate::nn::{Embedding, Linear, LstmCell, Walk, errors_as, softmax};
use candle_core::{D, Result, Tensor};

/// `embed` (`nn.Embedding(tgt_vocab, embed_dim)`), `attn` (`Linear(H, H)`, the keys'
/// projection), `cell` (`LSTMCell(embed_dim + H, H)`) and `out` (`Linear(H, tgt_vocab)`).
///
/// The blog post leaves its attention unspecified: we score each encoder output `e_s` against the
/// previous hidden state `h` with `(W e_s + b) · h / sqrt(H)` (Luong's "general" score, scaled),
/// padding masked out.
#[derive(Clone, Debug, Walk)]
pub struct AttnLstmDecoder {
    pub embed: Embedding,
    pub attn: Linear,
    pub cell: LstmCell,
    pub out: Linear,
}

impl AttnLstmDecoder {
    /// Checks `cfg`, then builds the layers (`AttnLstmDecoder::build`).
    #[errors_as("AttnLstmDecoder::new")]
    pub fn new(cfg: &LstmTranslatorConfig) -> Result<Self> {
        cfg.check()?;
        Self::build(cfg)
    }

    /// The layers of a checked config (the translator's constructor checks it once for the
    /// encoder and the decoder). Sizes that passed the check make every layer.
    pub(crate) fn build(cfg: &LstmTranslatorConfig) -> Result<Self> {
        let h = cfg.hidden_dim;
        Ok(AttnLstmDecoder {
            embed: Embedding::new(cfg.tgt_vocab, cfg.embed_dim)?,
            attn: Linear::new(h, h)?,
            cell: LstmCell::new(cfg.embed_dim + h, h)?,
            out: Linear::new(h, cfg.tgt_vocab)?,
        })
    }

    /// The keys the decoder compares its hidden state with: `attn(outputs)`, computed once.
    ///
    /// # Shapes
    /// - `outputs`: the encoder's `(N, S, H)`; returns `(N, S, H)`
    #[errors_as("AttnLstmDecoder")]
    pub fn keys(&self, outputs: &Tensor) -> Result<Tensor> {
        self.attn.forward(outputs)
    }

    /// One step: attend with the previous hidden state, then advance the cell on the token's
    /// embedding and the context.
    ///
    /// # Shapes
    /// - `token`: ids `(N,)`; `h`, `c`: `(N, H)`
    /// - `keys`, `outputs`: `(N, S, H)`; `mask`: additive `(N, S)` (`-inf` at padding)
    /// - returns the logits `(N, V)`, the new `(h, c)` and the attention weights `(N, S)`
    #[errors_as]
    pub fn forward(
        &self,
        token: &Tensor,
        h: &Tensor,
        c: &Tensor,
        keys: &Tensor,
        outputs: &Tensor,
        mask: &Tensor,
    ) -> Result<(Tensor, (Tensor, Tensor), Tensor)> {
        let ((h, c), alphas) = self.step(token, h, c, keys, outputs, mask)?;
        let logits = self.out.forward(&h)?;
        Ok((logits, (h, c), alphas))
    }

    /// [`AttnLstmDecoder::forward`] without the output layer, which a whole sequence of hidden
    /// states can then go through at once.
    ///
    /// # Shapes
    /// - as [`AttnLstmDecoder::forward`]; returns the new `(h, c)` and the weights `(N, S)`
    #[errors_as("AttnLstmDecoder")]
    pub fn step(
        &self,
        token: &Tensor,
        h: &Tensor,
        c: &Tensor,
        keys: &Tensor,
        outputs: &Tensor,
        mask: &Tensor,
    ) -> Result<((Tensor, Tensor), Tensor)> {
        check_step(token, h, c, keys, outputs, mask)?;
        let (alphas, context) = attend(h, keys, outputs, mask)?;
        let input = Tensor::cat(&[self.embed.forward(token)?, context], D::Minus1)?;
        Ok((self.cell.forward(&input, Some((h, c)))?, alphas))
    }
}

/// The step's attention, the blog post's unspecified one as we read it: the scores
/// `keys · h / sqrt(H)` (`(N, S)`, `mask` added), their softmax `alphas` and the context
/// `alphas · outputs` (`(N, H)`). Returns `(alphas, context)`.
fn attend(h: &Tensor, keys: &Tensor, outputs: &Tensor, mask: &Tensor) -> Result<(Tensor, Tensor)> {
    let scale = (h.dim(1)? as f64).sqrt();
    let scores = (keys.matmul(&h.unsqueeze(2)?)?.squeeze(2)? / scale)?; // (N, S)
    let alphas = softmax(&(scores + mask)?)?;
    let context = alphas.unsqueeze(1)?.matmul(outputs)?.squeeze(1)?; // (N, H)
    Ok((alphas, context))
}

/// Checks one decoding step's shapes against each other (candle would say only "shape mismatch
/// in add" or "in matmul"): what was expected and what came, if they differ.
fn check_step(token: &Tensor, h: &Tensor, c: &Tensor, keys: &Tensor, outputs: &Tensor, mask: &Tensor) -> Result<()> {
    let (n, hidden) = match h.dims() {
        &[n, hidden] => (n, hidden),
        d => return Err(invalid(format!("expected a hidden state h (N, H), got {d:?}"))),
    };
    let s = keys.dims().get(1).copied().unwrap_or(0);
    let fits = token.dims() == [n]
        && c.dims() == [n, hidden]
        && keys.dims() == [n, s, hidden]
        && outputs.dims() == [n, s, hidden]
        && mask.dims() == [n, s];
    if fits {
        return Ok(());
    }
    Err(invalid(format!(
        "expected token ({n},), h and c ({n}, {hidden}), keys and outputs ({n}, S, {hidden}), mask ({n}, S); got {:?}, {:?}, {:?}, {:?}, {:?} and {:?}",
        token.dims(),
        h.dims(),
        c.dims(),
        keys.dims(),
        outputs.dims(),
        mask.dims()
    )))
}
