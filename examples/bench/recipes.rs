//! The lecture's four trainings on the squares, as `make bench` and `make seeds` run them (and
//! `tests/seed_spread.rs`, which checks the recurrent ones against PyTorch seed by seed). They use
//! the crate's public API only.

use attention_zoo::prelude::*;
use attention_zoo::train::FinalLosses;
use candle_core::Error;

/// One of the lecture's trainings on the squares: Adam 0.01, MSE, batches of 16 from 256
/// training and 128 validation squares, the trainer's seed 42; the model is made right after
/// `manual_seed(seed)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LectureRecipe {
    /// `EncoderDecoder(Encoder(2, 2), Decoder(2, 2), 2, 2, 0.5)` (lecture seed 23).
    Seq2Seq,
    /// `EncoderDecoderAttn(Encoder(2, 2), DecoderAttn(2, 2), 2, 2, 0.5)` (lecture seed 23).
    Attention,
    /// `EncoderDecoderSelfAttn` of `EncoderSelfAttn(3, 2, 10, 2)` and `DecoderSelfAttn(3, 2, 10, 2)`
    /// (lecture seed 23).
    SelfAttn,
    /// The same with positional encoding, `EncoderPe`/`DecoderPe(3, 2, 10, 2, 100)` (lecture
    /// seed 43).
    SelfAttnPe,
}

impl LectureRecipe {
    pub const ALL: [LectureRecipe; 4] = [Self::Seq2Seq, Self::Attention, Self::SelfAttn, Self::SelfAttnPe];

    /// The name `make bench` and the fixtures use: `seq2seq`, `attention`, `selfattn`, `selfattn_pe`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Seq2Seq => "seq2seq",
            Self::Attention => "attention",
            Self::SelfAttn => "selfattn",
            Self::SelfAttnPe => "selfattn_pe",
        }
    }

    /// The seed the lecture makes this model with.
    pub fn lecture_seed(&self) -> i128 {
        if *self == Self::SelfAttnPe { 43 } else { 23 }
    }

    /// Trains this recipe's model, made after `manual_seed(seed)`, for `epochs` epochs.
    pub fn train(&self, seed: i128, epochs: usize) -> Result<FinalLosses> {
        match self {
            Self::Seq2Seq => train_squares(seed, epochs, || EncoderDecoder::new(Encoder::new(2, 2)?, Decoder::new(2, 2)?, 2, 2, 0.5)),
            Self::Attention => {
                train_squares(seed, epochs, || EncoderDecoderAttn::new(Encoder::new(2, 2)?, DecoderAttn::new(2, 2)?, 2, 2, 0.5))
            }
            Self::SelfAttn => train_squares(seed, epochs, || {
                EncoderDecoderSelfAttn::new(EncoderSelfAttn::new(3, 2, 10, Some(2))?, DecoderSelfAttn::new(3, 2, 10, Some(2))?, 2, 2)
            }),
            Self::SelfAttnPe => train_squares(seed, epochs, || {
                EncoderDecoderSelfAttn::new(EncoderPe::new(3, 2, 10, Some(2), 100)?, DecoderPe::new(3, 2, 10, Some(2), 100)?, 2, 2)
            }),
        }
    }
}

fn train_squares<M: Model>(seed: i128, epochs: usize, make: impl Fn() -> Result<M>) -> Result<FinalLosses> {
    if epochs == 0 {
        return Err(Error::Msg("LectureRecipe::train: epochs must be at least 1".into()));
    }
    let full_train = generate_sequences(256, false, 13)?.to_tensor()?;
    let full_test = generate_sequences(128, false, 19)?.to_tensor()?;
    let train = TensorDataset::new(&full_train, &full_train.narrow(1, 2, 2)?)?;
    let test = TensorDataset::new(&full_test.narrow(1, 0, 2)?, &full_test.narrow(1, 2, 2)?)?;
    manual_seed(seed)?;
    let model = make()?;
    let optimizer = Adam::new(model.parameters(), 0.01)?;
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    sbs.progress_every = 0;
    sbs.set_loaders(DataLoader::shuffled(train, 16, Generator::default())?, Some(DataLoader::new(test, 16)?));
    sbs.train(epochs)?;
    Ok(FinalLosses { loss: sbs.losses[epochs - 1], val_loss: sbs.val_losses[epochs - 1] })
}
