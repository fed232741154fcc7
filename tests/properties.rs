//! Property tests: random shapes, dtypes and values for every public constructor and forward,
//! and random corruptions of a checkpoint. Each call must return a result or an error, never
//! panic. `PROPTEST_CASES` sets the number of cases (proptest's default, 256, in `make test`);
//! `make fuzz` runs them for ten minutes with new random seeds.
//!
//! This file holds the lecture's half (layers, attention, the seq2seq and self-attention models,
//! the squares, checkpoints, displays); `transformer`, `translation` and `files` the rest.

mod fields;
mod files;
mod transformer;
mod translation;

use crate::common;

use attention_zoo::attention::{cosine_products, scaled_dot_products};
use attention_zoo::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

const DTYPES: [DType; 7] = [DType::F32, DType::F64, DType::F16, DType::BF16, DType::U8, DType::U32, DType::I64];

/// A tensor of the given dtype and dims, its values cycling through `values`.
fn tensor(dtype_index: usize, dims: &[usize], values: &[f64]) -> Tensor {
    let n: usize = dims.iter().product();
    let data: Vec<f64> = (0..n).map(|i| if values.is_empty() { 0.0 } else { values[i % values.len()] }).collect();
    let t = Tensor::from_vec(data, dims, &Device::Cpu).expect("a tensor");
    let dtype = DTYPES[dtype_index % DTYPES.len()];
    // Integer dtypes cannot hold NaN or negatives: build those from their absolute whole parts.
    if dtype.is_int() {
        t.abs().and_then(|t| t.to_dtype(dtype)).expect("an int tensor")
    } else {
        t.to_dtype(dtype).expect("a float tensor")
    }
}

fn dims() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..5)
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    let special = prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1e30), Just(0.0), Just(1e-40)];
    prop::collection::vec(prop_oneof![4 => -3.0f64..3.0, 1 => special], 1..8)
}

/// A random input: dtype, dims and values.
fn input() -> impl Strategy<Value = Tensor> {
    (0usize..DTYPES.len(), dims(), values()).prop_map(|(d, s, v)| tensor(d, &s, &v))
}

/// A float batch `(N, L, F)` with small sizes (zeros included), sometimes of another rank or dtype.
fn batch() -> impl Strategy<Value = Tensor> {
    prop_oneof![
        4 => (0usize..3, 0usize..4, 0usize..4, values()).prop_map(|(n, l, f, v)| tensor(0, &[n, l, f], &v)),
        1 => input(),
    ]
}

fn config() -> Config {
    Config { failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn layers_never_panic(fan_in in 0usize..5, fan_out in 0usize..5, x in input(), ids in input()) {
        let _serial = common::serial();
        if let Ok(l) = Linear::new(fan_in, fan_out) { let _ = l.forward(&x); }
        if let Ok(l) = LayerNorm::new(fan_in) { let _ = l.forward(&x); }
        if let Ok(l) = FeedForward::new(fan_in, fan_out + 1, fan_in) { let _ = l.forward(&x); }
        if let Ok(e) = Embedding::new(fan_in, fan_out) { let _ = e.forward(&ids); }
        let _ = softmax(&x);
        let _ = reverse_time(&x);
        let _ = masked_fill(&x, &ids, -1e9);
    }

    #[test]
    fn recurrent_layers_never_panic(input in 0usize..4, hidden in 0usize..4, layers in 0usize..3, bidir: bool, x in batch(), h in input()) {
        let _serial = common::serial();
        if let Ok(g) = Gru::with_layers(input, hidden, layers, bidir) {
            let _ = g.forward(&x, None);
            let _ = g.forward(&x, Some(&h));
        }
        if let Ok(l) = Lstm::with_layers(input, hidden, layers, bidir) {
            let _ = l.forward(&x, None);
            let _ = l.forward(&x, Some((&h, &h)));
        }
    }

    #[test]
    fn attention_never_panics(hidden in 0usize..4, input_dim in 0usize..4, proj: bool, score in 0usize..6, keys in batch(), query in batch(), mask in input()) {
        let _serial = common::serial();
        let score = match score {
            0 => Score::ScaledDot, 1 => Score::Dot, 2 => Score::General, 3 => Score::Additive, 4 => Score::Cosine,
            _ => Score::Location { source_len: hidden },
        };
        let _ = dot_products(&query, &keys);
        let _ = scaled_dot_products(&query, &keys);
        let _ = cosine_products(&query, &keys);
        let _ = calc_alphas(&keys, &query);
        let _ = context_vector(&query, &keys);
        let _ = scaled_dot_product_attention(&query, &keys, &keys, Some(&mask));
        let _ = uniform_alphas(&keys);
        let _ = source_mask(&keys);
        let _ = subsequent_mask(hidden);
        if let Ok(mut a) = Attention::with_score(hidden, Some(input_dim), proj, score) {
            let _ = a.forward(&query, None);
            if a.init_keys(&keys).is_ok() {
                let _ = a.forward(&query, None);
                let _ = a.forward(&query, Some(&mask));
            }
        }
        if let Ok(mut m) = MultiHeadAttention::new(input_dim, hidden, None, proj) && m.init_keys(&keys).is_ok() {
            let _ = m.forward(&query, Some(&mask));
            let _ = m.alphas();
        }
        if let Ok(mut l) = AttentionLayer::new(input_dim, hidden) { let _ = l.forward(&query, &keys, &keys); }
        if let Ok(pe) = PositionalEncoding::new(hidden + 1, input_dim) { let _ = pe.forward(&query); }
    }

    #[test]
    fn seq2seq_models_never_panic(f in 0usize..4, h in 0usize..4, input_len in 0usize..3, target_len in 0usize..3, tf in -0.5f64..1.5, x in batch(), step in batch()) {
        let _serial = common::serial();
        if let (Ok(mut enc), Ok(mut dec)) = (Encoder::new(f, h), Decoder::new(f, h)) {
            if let Ok(states) = enc.forward(&x) && dec.init_hidden(&states).is_ok() {
                let _ = dec.forward(&step);
            }
            if let Ok(mut m) = EncoderDecoder::new(enc, dec, input_len, target_len, tf) {
                let _ = m.forward(&x);
                m.set_training(false);
                let _ = m.forward(&x);
            }
        }
        if let (Ok(enc), Ok(mut dec)) = (Encoder::new(f, h), DecoderAttn::new(f, h)) {
            let _ = dec.forward(&step, None);
            if let Ok(mut m) = EncoderDecoderAttn::new(enc, dec, input_len, target_len, tf.clamp(0.0, 1.0)) { let _ = m.forward(&x); }
        }
    }

    #[test]
    fn self_attention_models_never_panic(heads in 0usize..3, d in 0usize..4, ff in 0usize..4, f in 0usize..4, pe: bool, x in batch(), mask in input()) {
        let _serial = common::serial();
        let cfg = SelfAttnConfig { n_heads: heads, d_model: d, ff_units: ff, n_features: Some(f), max_len: 4 };
        if pe {
            if let (Ok(e), Ok(dd)) = (EncoderPe::from_config(&cfg), DecoderPe::from_config(&cfg))
                && let Ok(mut m) = EncoderDecoderSelfAttn::new(e, dd, 2, 2)
            {
                {
                    let _ = m.forward_masked(&x, Some(&mask));
                    m.set_training(false);
                    let _ = m.forward(&x);
                    let _ = m.predict(&x, None);
                }
            }
        } else if let (Ok(mut e), Ok(mut dd)) = (EncoderSelfAttn::from_config(&cfg), DecoderSelfAttn::from_config(&cfg)) {
            let _ = e.forward(&x, Some(&mask));
            let _ = dd.forward(&x, None, Some(&mask));
            if let Ok(states) = e.forward(&x, None) && dd.init_keys(&states).is_ok() {
                let _ = dd.forward(&x, Some(&mask), Some(&mask));
            }
            let _ = shifted_target(&x, f);
        }
    }

    #[test]
    fn data_and_losses_never_panic(n in 0usize..20, variable: bool, seed in -2i64..5, batch_size in 0usize..5, x in input(), y in input()) {
        let _serial = common::serial();
        if let Ok(s) = generate_sequences(n, variable, seed) { let _ = s.to_tensor(); let _ = s.directions_tensor(); }
        if let Ok(ds) = TensorDataset::new(&x, &y) && let Ok(mut l) = DataLoader::new(ds, batch_size) {
            let _ = l.batches();
            l.set_shuffle(true);
            let _ = l.batches();
        }
        let _ = MSELoss.loss(&x, &y);
        let _ = attention_zoo::repro::randperm(n);
        let _ = RandomState::new(seed).and_then(|mut r| r.randint_one(seed, seed.saturating_mul(3)));
    }
}

/// A trained checkpoint, saved once for the corruption property.
fn checkpoint() -> (std::path::PathBuf, Vec<u8>) {
    static SAVED: std::sync::OnceLock<(std::path::PathBuf, Vec<u8>)> = std::sync::OnceLock::new();
    SAVED.get_or_init(save_one).clone()
}

fn save_one() -> (std::path::PathBuf, Vec<u8>) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("properties");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("good.safetensors");
    let mut sbs = trainer();
    sbs.train(1).expect("one epoch");
    sbs.save_checkpoint(&path).expect("saved");
    let bytes = std::fs::read(&path).expect("readable");
    (dir, bytes)
}

fn trainer() -> StepByStep<EncoderDecoder> {
    manual_seed(3).expect("seeded");
    let model = EncoderDecoder::new(Encoder::new(2, 2).expect("enc"), Decoder::new(2, 2).expect("dec"), 2, 2, 0.5).expect("model");
    let optimizer = Adam::new(model.parameters(), 0.01).expect("adam");
    let mut sbs = StepByStep::new(model, MSELoss::new(), optimizer);
    let data = generate_sequences(8, false, 1).and_then(|s| s.to_tensor()).expect("data");
    let ds = TensorDataset::new(&data, &data.narrow(1, 2, 2).expect("target")).expect("dataset");
    sbs.set_loaders(DataLoader::new(ds, 4).expect("loader"), None);
    sbs.progress_every = 0;
    sbs
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn corrupt_checkpoints_never_panic_and_change_nothing(damage in files::corruption()) {
        let _serial = common::serial();
        let (dir, good) = checkpoint();
        let path = dir.join("corrupt.safetensors");
        std::fs::write(&path, files::corrupt(&good, &damage)).expect("written");
        let mut sbs = trainer();
        let before: Vec<Vec<f32>> = sbs.model.parameters().iter().map(|p| p.tensor().flatten_all().and_then(|t| t.to_vec1()).expect("values")).collect();
        if sbs.load_checkpoint(&path).is_err() {
            let after: Vec<Vec<f32>> = sbs.model.parameters().iter().map(|p| p.tensor().flatten_all().and_then(|t| t.to_vec1()).expect("values")).collect();
            prop_assert_eq!(before, after);
            prop_assert_eq!(sbs.total_epochs, 0);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn displays_and_plots_never_panic(t in input(), losses in prop::collection::vec(prop_oneof![3 => 1e-3f64..10.0, 1 => prop_oneof![Just(f64::NAN), Just(f64::MAX), Just(5e-324), Just(-1.0), Just(1e300)]], 0..6), rows in 0usize..4) {
        let _serial = common::serial();
        let _ = show(&t).text();
        let _ = show(&t).html();
        let _ = show_alphas(&t, &[], &[]).html();
        let _ = plot_mesh(&t, "t", "row");
        let _ = plot_attention(&t, &[], &[], &[]);
        let _ = plot_losses(&losses, &losses[..losses.len() / 2]);
        let _ = sequence_pred(&t, &t, &[1, 0]);
        let points: Vec<Vec<[f64; 2]>> = losses.iter().map(|v| vec![[*v, -v]; rows]).collect();
        let _ = plot_data(&points, &vec![1; points.len()], rows);
    }
}
