//! Lecture part 1 (sequence-to-sequence with GRUs): the printed values and the training run
//! against PyTorch's own run of the same cells (tests/fixtures/seq2seq.json).

use crate::common;

use attention_zoo::prelude::*;
use common::fixtures::*;
use common::{corners, round4};
use serde::Deserialize;

/// `tests/fixtures/seq2seq.json`: PyTorch's run of the lecture's part-1 cells.
#[derive(Deserialize)]
struct Seq2SeqFx {
    encoder_states: TensorFx,
    decoder_own: DecoderSteps,
    decoder_forced: DecoderSteps,
    encdec_train_p1: TensorFx,
    encdec_eval: TensorFx,
    coin_cells: CoinCells,
    loader_orders: LoaderOrders,
    initial_state: StateFx,
    train_100: Training,
}

/// The decoder's hidden state before each step and its output at each step.
#[derive(Deserialize)]
struct DecoderSteps {
    hiddens: Vec<Vec<f64>>,
    outputs: Vec<Vec<f64>>,
}

/// 001's coin-toss cell: the coins, the steps, the model's output and the generator's next draw.
#[derive(Deserialize)]
struct CoinCells {
    coins: Vec<f64>,
    hiddens: Vec<Vec<f64>>,
    outputs: Vec<Vec<f64>>,
    encdec_train: TensorFx,
    next_rand: f64,
}

/// Batches of sample indices, pass by pass.
#[derive(Deserialize)]
struct LoaderOrders {
    own: Vec<Vec<Vec<usize>>>,
    default: Vec<Vec<Vec<usize>>>,
    sequential: Vec<Vec<usize>>,
    default_rand_after: Vec<f64>,
}

#[derive(Deserialize)]
struct Training {
    losses: Vec<f64>,
    val_losses: Vec<f64>,
}

fn fixture() -> Seq2SeqFx {
    load_as("seq2seq")
}

#[test]
fn lecture_values_of_encoder_decoder_and_teacher_forcing() {
    let _serial = common::serial();
    let fx = fixture();
    let full = corners();
    let source = full.narrow(1, 0, 2).unwrap();
    let target = full.narrow(1, 2, 2).unwrap();
    manual_seed(21).unwrap();
    let mut encoder = Encoder::new(2, 2).unwrap();
    let states = encoder.forward(&source).unwrap();
    assert_tensor_close("encoder states", &states, &fx.encoder_states.tensor(), 1e-6);
    assert_eq!(round4(&values(&states)), vec![0.0832, -0.0356, 0.3105, -0.5263]);

    manual_seed(21).unwrap();
    let mut decoder = Decoder::new(2, 2).unwrap();
    for (name, forcing, want) in [("own", false, &fx.decoder_own), ("forced", true, &fx.decoder_forced)] {
        decoder.init_hidden(&states).unwrap();
        let mut input = source.narrow(1, 1, 1).unwrap();
        for i in 0..2 {
            let hidden = values(decoder.hidden.as_ref().unwrap());
            assert_close(&format!("{name} hidden {i}"), &hidden, &want.hiddens[i], 1e-6);
            let out = decoder.forward(&input).unwrap();
            assert_close(&format!("{name} output {i}"), &values(&out), &want.outputs[i], 1e-6);
            input = if forcing { target.narrow(1, i, 1).unwrap() } else { out };
        }
    }
    // The lecture's printed numbers, to 4 decimals.
    assert_eq!(round4(&fx.decoder_own.outputs[1]), vec![-0.0226, 0.4628]);

    let mut model = EncoderDecoder::new(encoder, decoder, 2, 2, 1.0).unwrap();
    model.train();
    let out = model.forward(&full).unwrap();
    assert_tensor_close("train mode, p = 1", &out, &fx.encdec_train_p1.tensor(), 1e-6);
    assert_eq!(round4(&values(&out)), vec![-0.2339, 0.4702, 0.2265, 0.4529]);
    model.eval();
    let out = model.forward(&source).unwrap();
    assert_tensor_close("eval mode", &out, &fx.encdec_eval.tensor(), 1e-6);
    assert_eq!(round4(&values(&out)), vec![-0.2339, 0.4702, -0.0226, 0.4628]);
}

/// 001's coin-toss cell and its `EncoderDecoder` cell in training mode, run as the notebook runs
/// them: the decoder made after `manual_seed(21)`, the two cells without coins, then the coins of
/// the default generator (`rand_scalar`, PyTorch's `torch.rand(1)`) with p = 0.5. The first coin
/// (0.62) says "own prediction", the model's first coin says "teacher": 001's printed numbers.
#[test]
fn the_coin_toss_cells_print_001s_numbers() {
    let _serial = common::serial();
    let fx = fixture().coin_cells;
    let full = corners();
    let (source, target) = (full.narrow(1, 0, 2).unwrap(), full.narrow(1, 2, 2).unwrap());
    manual_seed(21).unwrap();
    let mut encoder = Encoder::new(2, 2).unwrap();
    let states = encoder.forward(&source).unwrap();
    manual_seed(21).unwrap();
    let mut decoder = Decoder::new(2, 2).unwrap();
    for forcing in [false, true] {
        decoder.init_hidden(&states).unwrap();
        let mut input = source.narrow(1, 1, 1).unwrap();
        for i in 0..2 {
            let out = decoder.forward(&input).unwrap();
            input = if forcing { target.narrow(1, i, 1).unwrap() } else { out };
        }
    }
    decoder.init_hidden(&states).unwrap();
    let mut input = source.narrow(1, 1, 1).unwrap();
    let (mut hiddens, mut outputs, mut coins) = (vec![], vec![], vec![]);
    for i in 0..2 {
        hiddens.push(values(decoder.hidden.as_ref().unwrap()));
        let out = decoder.forward(&input).unwrap();
        outputs.push(values(&out));
        let coin = rand_scalar() as f64;
        coins.push(coin);
        input = if coin <= 0.5 { target.narrow(1, i, 1).unwrap() } else { out };
    }
    assert_close("coins", &coins, &fx.coins, 0.0);
    for i in 0..2 {
        assert_close(&format!("coin cell hidden {i}"), &hiddens[i], &fx.hiddens[i], 1e-6);
        assert_close(&format!("coin cell output {i}"), &outputs[i], &fx.outputs[i], 1e-6);
    }
    // As 001 prints them.
    assert_eq!(round4(&hiddens.concat()), vec![0.3105, -0.5263, 0.3913, -0.6853]);
    assert_eq!(round4(&outputs.concat()), vec![-0.2339, 0.4702, -0.0226, 0.4628]);

    let mut encdec = EncoderDecoder::new(encoder, decoder, 2, 2, 0.5).unwrap();
    encdec.train();
    let out = encdec.forward(&full).unwrap();
    assert_tensor_close("training mode, p = 0.5", &out, &fx.encdec_train.tensor(), 1e-6);
    assert_eq!(round4(&values(&out)), vec![-0.2339, 0.4702, 0.2265, 0.4529]);
    // The model drew one coin a step, as PyTorch's does: the generators are still in step.
    assert_eq!(rand_scalar() as f64, fx.next_rand);
}

fn lecture_loaders() -> (DataLoader, DataLoader) {
    let full_train = generate_sequences(256, false, 13).unwrap().to_tensor().unwrap();
    let full_test = generate_sequences(128, false, 19).unwrap().to_tensor().unwrap();
    let target_train = full_train.narrow(1, 2, 2).unwrap();
    let train = TensorDataset::new(&full_train, &target_train).unwrap();
    let test = TensorDataset::new(&full_test.narrow(1, 0, 2).unwrap(), &full_test.narrow(1, 2, 2).unwrap()).unwrap();
    (DataLoader::shuffled(train, 16, Generator::default()).unwrap(), DataLoader::new(test, 16).unwrap())
}

fn lecture_trainer() -> StepByStep<EncoderDecoder> {
    manual_seed(23).unwrap();
    let encoder = Encoder::new(2, 2).unwrap();
    let decoder = Decoder::new(2, 2).unwrap();
    let model = EncoderDecoder::new(encoder, decoder, 2, 2, 0.5).unwrap();
    let optimizer = Adam::new(model.parameters(), 0.01).unwrap();
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    let (train, test) = lecture_loaders();
    sbs.set_loaders(train, Some(test));
    sbs.progress_every = 0;
    sbs
}

fn batches_of(loader: &mut DataLoader) -> Vec<Vec<usize>> {
    loader.batches().unwrap().iter().map(|(x, _)| values(x).into_iter().map(|v| v as usize).collect()).collect()
}

#[test]
fn loaders_draw_what_pytorch_draws() {
    let _serial = common::serial();
    let want = fixture().loader_orders;
    let ids = Tensor::arange(0f32, 10., &Device::Cpu).unwrap();
    let data = TensorDataset::new(&ids, &ids).unwrap();
    // a loader given `&data` shares its tensors and leaves `data` to the caller
    let mut own = DataLoader::shuffled(&data, 4, Generator::new(42)).unwrap();
    for epoch in 0..3 {
        assert_eq!(batches_of(&mut own), want.own[epoch], "own generator, pass {epoch}");
    }
    manual_seed(7).unwrap();
    let mut default = DataLoader::new(&data, 4).unwrap();
    default.set_shuffle(true);
    for epoch in 0..2 {
        assert_eq!(batches_of(&mut default), want.default[epoch], "default generator, pass {epoch}");
    }
    let mut plain = DataLoader::new(data, 4).unwrap();
    assert_eq!(batches_of(&mut plain), want.sequential);
    assert_close("default generator afterwards", &values(&attention_zoo::repro::rand(2).unwrap()), &want.default_rand_after, 1e-7);
}

#[test]
fn training_matches_pytorch() {
    let _serial = common::serial();
    let fx = fixture();
    let mut sbs = lecture_trainer();
    assert_params("sbs.model", &sbs.model, &fx.initial_state, 0.0);
    sbs.train(100).unwrap();
    let (losses, val) = (&fx.train_100.losses, &fx.train_100.val_losses);
    // The first epochs agree to 4 decimals; the end within 1%.
    assert_close("first training losses", &round4(&sbs.losses[..5]), &round4(&losses[..5]), 1e-4);
    assert_close("first validation losses", &round4(&sbs.val_losses[..5]), &round4(&val[..5]), 1e-4);
    let (last, last_val) = (*sbs.losses.last().unwrap(), *sbs.val_losses.last().unwrap());
    assert!((last / 0.24048 - 1.0).abs() < 0.01, "final training loss {last}, PyTorch 0.24048");
    assert!((last_val / 0.31996 - 1.0).abs() < 0.01, "final validation loss {last_val}, PyTorch 0.31996");
    assert!((last / losses[99] - 1.0).abs() < 0.01 && (last_val / val[99] - 1.0).abs() < 0.01);
}

/// The lecture's trainer after `epochs` epochs, saved as `file` in a fresh scratch folder `dir`:
/// (the folder, the checkpoint's path, the trainer).
fn saved_checkpoint(dir: &str, file: &str, epochs: usize) -> (std::path::PathBuf, std::path::PathBuf, StepByStep<EncoderDecoder>) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    let mut sbs = lecture_trainer();
    sbs.train(epochs).unwrap();
    sbs.save_checkpoint(&path).unwrap();
    (dir, path, sbs)
}

#[test]
fn checkpoints_round_trip_and_resume_exactly() {
    let _serial = common::serial();
    let (dir, path, mut sbs) = saved_checkpoint("checkpoints-seq2seq", "seq2seq.safetensors", 3);
    let mut other = lecture_trainer();
    other.load_checkpoint(&path).unwrap();
    assert_eq!(other.losses, sbs.losses);
    assert_eq!(other.total_epochs, 3);
    for ((_, a), (_, b)) in other.model.named_parameters().iter().zip(sbs.model.named_parameters()) {
        assert_eq!(values(&a.tensor()), values(&b.tensor()));
    }
    // Resuming gives the same numbers as never stopping.
    sbs.train(2).unwrap();
    other.train(2).unwrap();
    assert_eq!(other.losses, sbs.losses);

    // The record travels inside the checkpoint: nothing is written beside it.
    let beside: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n != "seq2seq.safetensors").collect();
    assert!(beside.iter().all(|n| !n.to_string_lossy().starts_with("seq2seq")), "{beside:?}");
}

/// Issue 26: the record (epochs, losses, seed, optimiser step...) is under a checksum too; a
/// changed field is refused by name and the trainer is left as it was.
#[test]
fn a_tampered_checkpoint_record_is_refused_naming_the_field() {
    let _serial = common::serial();
    let (_, path, _) = saved_checkpoint("checkpoints-tampered", "run.safetensors", 2);
    let good = std::fs::read(&path).unwrap();
    // The record is JSON text inside the header: change a digit in place (same length).
    let find = |needle: &str| good.windows(needle.len()).position(|w| w == needle.as_bytes());
    for (field, from, to) in [
        ("optimizer_step", "\\\"optimizer_step\\\":32", "\\\"optimizer_step\\\":33"),
        ("total_epochs", "\\\"total_epochs\\\":2", "\\\"total_epochs\\\":3"),
    ] {
        let at = find(from).unwrap_or_else(|| panic!("{from} not in the header"));
        let mut bad = good.clone();
        bad[at..at + to.len()].copy_from_slice(to.as_bytes());
        std::fs::write(&path, &bad).unwrap();
        let mut other = lecture_trainer();
        let e = other.load_checkpoint(&path).unwrap_err().to_string();
        assert!(e.contains("load_checkpoint") && e.contains(&format!("`{field}` no longer matches its checksum")), "{e}");
        assert_eq!(other.total_epochs, 0, "a refused checkpoint changes nothing");
    }
    std::fs::write(&path, &good).unwrap();
    lecture_trainer().load_checkpoint(&path).expect("the untouched file loads");
}

#[test]
fn wrong_shapes_name_the_module_and_both_shapes() {
    let _serial = common::serial();
    let mut enc = Encoder::new(2, 2).unwrap();
    let e = enc.forward(&Tensor::zeros((4, 2, 3), DType::F32, &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.contains("Encoder") && e.contains("(N, L, 2)") && e.contains("[4, 2, 3]"), "{e}");
    let e = enc.forward(&Tensor::zeros((4, 2), DType::F32, &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.contains("Encoder") && e.contains("[4, 2]"), "{e}");
    let mut dec = Decoder::new(2, 2).unwrap();
    let e = dec.forward(&Tensor::zeros((1, 1, 2), DType::F32, &Device::Cpu).unwrap()).unwrap_err().to_string();
    assert!(e.contains("init_hidden"), "{e}");
    let e = MSELoss
        .loss(&Tensor::zeros((2, 2), DType::F32, &Device::Cpu).unwrap(), &Tensor::zeros((2, 3), DType::F32, &Device::Cpu).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("MSELoss") && e.contains("[2, 2]") && e.contains("[2, 3]"), "{e}");
}

#[test]
fn figures_render_as_svg() {
    let _serial = common::serial();
    let s = generate_sequences(10, false, 13).unwrap();
    for fig in [counter_vs_clock().unwrap(), plot_sequences(2).unwrap(), plot_data(&s.points, &s.directions, 2).unwrap()] {
        assert!(fig.svg.starts_with("<svg") && fig.svg.contains("</svg>"), "{}", fig.title);
        assert!(fig.svg.contains("Clockwise"), "{}", fig.title);
    }
    let full = s.to_tensor().unwrap();
    let fig = sequence_pred(&full, &full.narrow(1, 2, 2).unwrap(), &s.directions).unwrap();
    assert!(fig.svg.contains("stroke-dasharray") || fig.svg.matches("<line").count() > 10 || fig.svg.contains("polyline"));
    let fig = plot_losses(&[1.0, 0.5, 0.25], &[1.2, 0.6, 0.3]).unwrap();
    assert!(fig.svg.contains("Training Loss") && fig.svg.contains("Validation Loss"));
}

/// `decoder.hidden()` reads as the lecture's `decoder.hidden`: the state `init_hidden` set, and a
/// clear error before it.
#[test]
fn hidden_is_the_state_and_an_error_before_init_hidden() {
    manual_seed(21).unwrap();
    let full = corners();
    let source = full.i((.., ..2)).unwrap();
    let mut encoder = Encoder::new(2, 2).unwrap();
    let states = encoder.forward(&source).unwrap();
    let mut decoder = Decoder::new(2, 2).unwrap();
    let mut attn = DecoderAttn::new(2, 2).unwrap();
    assert!(decoder.hidden().unwrap_err().to_string().starts_with("Decoder: no hidden state yet: call init_hidden"));
    assert!(attn.hidden().unwrap_err().to_string().starts_with("DecoderAttn: no hidden state yet"));
    decoder.init_hidden(&states).unwrap();
    attn.init_hidden(&states).unwrap();
    let last = states.i((.., 1..)).unwrap().permute((1, 0, 2)).unwrap();
    for h in [decoder.hidden().unwrap(), attn.hidden().unwrap()] {
        assert_eq!(h.dims(), &[1, 1, 2]);
        assert_eq!(h.flatten_all().unwrap().to_vec1::<f32>().unwrap(), last.flatten_all().unwrap().to_vec1::<f32>().unwrap());
    }
}
