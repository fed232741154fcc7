//! The lecture's four trainings on the squares, over many model seeds, and the check that their
//! final losses spread as PyTorch's do. The self-attention trainings amplify float32 rounding:
//! one run ends wherever rounding sends it, in PyTorch as here, so a run is not compared with a
//! run; the distributions are.

use super::ks::{KsTest, ks_2samp, median};
use super::loss::MSELoss;
use super::optim::Adam;
use super::step_by_step::StepByStep;
use crate::data::{DataLoader, TensorDataset, generate_sequences};
use crate::models::{
    Decoder, DecoderAttn, DecoderPe, DecoderSelfAttn, Encoder, EncoderDecoder, EncoderDecoderAttn, EncoderDecoderSelfAttn, EncoderPe,
    EncoderSelfAttn,
};
use crate::nn::Model;
use crate::repro::{Generator, manual_seed};
use candle_core::{Error, Result};

/// The significance level of the seed-spread check.
pub const SPREAD_ALPHA: f64 = 0.05;
/// How far our median final loss may be from PyTorch's, relative to PyTorch's.
pub const SPREAD_MEDIAN_TOLERANCE: f64 = 0.25;

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

/// The last epoch's mean training and validation losses of one training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalLosses {
    pub loss: f64,
    pub val_loss: f64,
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

/// Our final losses of one recipe over many seeds against PyTorch's.
#[derive(Clone, Debug)]
pub struct SeedSpread {
    pub name: String,
    pub ours: Vec<f64>,
    pub pytorch: Vec<f64>,
    pub ks: KsTest,
    pub median_ours: f64,
    pub median_pytorch: f64,
}

impl SeedSpread {
    /// Compares the two samples: the two-sample Kolmogorov-Smirnov test and both medians.
    pub fn new(name: impl Into<String>, ours: Vec<f64>, pytorch: Vec<f64>) -> Result<Self> {
        let ks = ks_2samp(&ours, &pytorch)?;
        let (median_ours, median_pytorch) = (median(&ours)?, median(&pytorch)?);
        Ok(Self { name: name.into(), ours, pytorch, ks, median_ours, median_pytorch })
    }

    /// |median ours - median PyTorch| / median PyTorch.
    pub fn median_gap(&self) -> f64 {
        (self.median_ours - self.median_pytorch).abs() / self.median_pytorch.abs()
    }

    /// The check: the KS test keeps "same distribution" at [`SPREAD_ALPHA`] and the medians are
    /// within [`SPREAD_MEDIAN_TOLERANCE`].
    pub fn passes(&self) -> bool {
        self.ks.same_distribution(SPREAD_ALPHA) && self.median_gap() <= SPREAD_MEDIAN_TOLERANCE
    }

    /// How often chance alone puts the medians further apart than [`SPREAD_MEDIAN_TOLERANCE`]:
    /// both samples pooled, as if they came from one distribution, then `draws` times shuffled
    /// (a generator seeded `seed`) and cut into two samples of the same sizes again. A large value
    /// says the medians of this many seeds are too unsettled for the tolerance to tell anything.
    pub fn chance_of_median_gap(&self, draws: usize, seed: u64) -> Result<f64> {
        if draws == 0 {
            return Err(Error::Msg("SeedSpread::chance_of_median_gap: draws must be at least 1".into()));
        }
        let pooled: Vec<f64> = self.ours.iter().chain(&self.pytorch).copied().collect();
        let mut g = Generator::new(seed);
        let mut over = 0;
        for _ in 0..draws {
            let order = g.randperm(pooled.len());
            let (a, b): (Vec<f64>, Vec<f64>) = (
                order[..self.ours.len()].iter().map(|&i| pooled[i]).collect(),
                order[self.ours.len()..].iter().map(|&i| pooled[i]).collect(),
            );
            let (ma, mb) = (median(&a)?, median(&b)?);
            if (ma - mb).abs() > SPREAD_MEDIAN_TOLERANCE * mb.abs() {
                over += 1;
            }
        }
        Ok(over as f64 / draws as f64)
    }
}
