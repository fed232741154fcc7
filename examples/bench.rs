//! `make bench`: trains the lecture's models with this crate and prints one JSON line per model
//! (seconds, final losses). `tools/bench.py` runs the same trainings in PyTorch and compares.
//! Run with RAYON_NUM_THREADS=1 (the Makefile does).

use attention_zoo::prelude::*;
use std::time::Instant;

/// Trains a lecture model for 100 epochs on the squares (Adam 0.01, MSE, batches of 16; the
/// model is made right after `manual_seed(seed)`); returns (seconds, final loss, final
/// validation loss).
fn train_lecture<M: Model>(seed: i128, make: impl Fn() -> Result<M>) -> Result<(f64, f64, f64)> {
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
    let start = Instant::now();
    sbs.train(100)?;
    Ok((start.elapsed().as_secs_f64(), sbs.losses[99], sbs.val_losses[99]))
}

fn main() -> Result<()> {
    let which: Vec<String> = std::env::args().skip(1).collect();
    let run = |name: &str| which.is_empty() || which.iter().any(|w| w == name);
    let report = |name: &str, (secs, loss, val): (f64, f64, f64)| {
        println!("{{\"model\": \"{name}\", \"seconds\": {secs:.4}, \"loss\": {loss:.6}, \"val_loss\": {val:.6}}}");
    };
    if run("seq2seq") {
        report("seq2seq", train_lecture(23, || EncoderDecoder::new(Encoder::new(2, 2)?, Decoder::new(2, 2)?, 2, 2, 0.5))?);
    }
    if run("attention") {
        report("attention", train_lecture(23, || EncoderDecoderAttn::new(Encoder::new(2, 2)?, DecoderAttn::new(2, 2)?, 2, 2, 0.5))?);
    }
    if run("selfattn") {
        report(
            "selfattn",
            train_lecture(23, || {
                EncoderDecoderSelfAttn::new(EncoderSelfAttn::new(3, 2, 10, Some(2))?, DecoderSelfAttn::new(3, 2, 10, Some(2))?, 2, 2)
            })?,
        );
    }
    if run("selfattn_pe") {
        report(
            "selfattn_pe",
            train_lecture(43, || {
                EncoderDecoderSelfAttn::new(EncoderPe::new(3, 2, 10, Some(2), 100)?, DecoderPe::new(3, 2, 10, Some(2), 100)?, 2, 2)
            })?,
        );
    }
    Ok(())
}
