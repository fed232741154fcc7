//! The hyperparameters of the lecture's self-attention encoder and decoder, in one place.

/// The knobs of [`EncoderSelfAttn`](super::EncoderSelfAttn), [`DecoderSelfAttn`](super::DecoderSelfAttn)
/// and their positional-encoding versions [`EncoderPe`](super::EncoderPe) and
/// [`DecoderPe`](super::DecoderPe). The defaults are the lecture's:
/// `EncoderPe(n_heads=3, d_model=2, ff_units=10, n_features=None, max_len=100)`.
///
/// ```
/// use attention_zoo::prelude::*;
/// # fn main() -> Result<()> {
/// manual_seed(43)?;
/// let cfg = SelfAttnConfig { n_features: Some(2), ..SelfAttnConfig::default() };
/// let encoder = EncoderPe::from_config(&cfg)?;
/// assert_eq!(encoder.layer.n_heads, 3);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SelfAttnConfig {
    /// Attention heads (each a full-width [`Attention`](crate::attention::Attention)). Default 3.
    pub n_heads: usize,
    /// The model's width `D`: every head's and the feed-forward block's output size. Default 2.
    pub d_model: usize,
    /// Hidden units of the feed-forward block. Default 10.
    pub ff_units: usize,
    /// Input features `F`; `None` means `d_model`. Default `None`.
    pub n_features: Option<usize>,
    /// The longest sequence the positional encoding covers (PE versions only). Default 100.
    pub max_len: usize,
}

impl Default for SelfAttnConfig {
    fn default() -> Self {
        SelfAttnConfig { n_heads: 3, d_model: 2, ff_units: 10, n_features: None, max_len: 100 }
    }
}

impl SelfAttnConfig {
    /// The input features: `n_features`, or `d_model` when it is `None`.
    pub fn features(&self) -> usize {
        self.n_features.unwrap_or(self.d_model)
    }
}
