//! Same seed, same numbers: our generators, initialisations and data against PyTorch's and
//! NumPy's own outputs (tests/fixtures, written by tools/fixtures).

use crate::common;

use attention_zoo::prelude::*;
use attention_zoo::repro;
use common::fixtures::*;
use serde::Deserialize;

const TOL: f64 = 1e-6;

/// `tests/fixtures/generators.json`: PyTorch's default-generator functions after
/// `manual_seed(seed)`, and normal draws of every size.
#[derive(Deserialize)]
struct GeneratorsFx {
    cases: Vec<GeneratorCase>,
    normal_sizes: Vec<NormalSizes>,
}

/// Each field is named after the PyTorch call that drew it, in draw order.
#[derive(Deserialize)]
struct GeneratorCase {
    seed: u64,
    rand_7: Vec<Num>,
    #[serde(rename = "uniform_5_m2.5_3")]
    uniform_5_m2_5_3: Vec<Num>,
    randn_5: Vec<Num>,
    randn_3_after: Vec<Num>,
    randn_16: Vec<Num>,
    randn_40: Vec<Num>,
    randn_2x3x4: TensorFx,
    normal_20_m1_s2: Vec<Num>,
    randperm_10: Vec<usize>,
    randperm_1000: Vec<usize>,
    #[serde(rename = "bernoulli_40_p0.3")]
    bernoulli_40_p0_3: Vec<Num>,
    #[serde(rename = "dropout_mask_1000_p0.5")]
    dropout_mask_1000_p0_5: Vec<Num>,
    rand_3_end: Vec<Num>,
    gen_randperm_256: Vec<usize>,
    gen_random_int64: i64,
    gen_rand_4: Vec<Num>,
}

#[derive(Deserialize)]
struct NormalSizes {
    seed: u64,
    /// `randn(n)` for n = 1, 2, ... right after the seed.
    randn: Vec<Vec<Num>>,
    embedding_11_6: TensorFx,
    normal: Vec<NormalCase>,
}

#[derive(Deserialize)]
struct NormalCase {
    n: usize,
    mean: f64,
    std: f64,
    values: Vec<Num>,
}

/// `tests/fixtures/layers.json`: the initial state of each layer after `manual_seed(seed)`, in
/// the order drawn, and linear forwards.
#[derive(Deserialize)]
struct LayersFx {
    cases: Vec<LayerCase>,
    linear_forward: Vec<LinearForward>,
}

#[derive(Deserialize)]
struct LayerCase {
    seed: u64,
    linear_3_4: StateFx,
    linear_5_2_nobias: StateFx,
    gru_2_2: StateFx,
    gru_3_4_l2_bi: StateFx,
    lstm_3_5: StateFx,
    lstm_2_3_bi: StateFx,
    embedding_10_4: StateFx,
    layernorm_6: StateFx,
    linear_after: StateFx,
}

#[derive(Deserialize)]
struct LinearForward {
    n_in: usize,
    n_out: usize,
    state: StateFx,
    x: TensorFx,
    y: TensorFx,
}

/// `tests/fixtures/rnn_forward.json`: recurrent layers' outputs and final states.
#[derive(Deserialize)]
struct RnnForwardFx {
    gru_corners: RnnCase,
    gru_l2_bi: RnnCase,
    lstm_bi: RnnCase,
}

#[derive(Deserialize)]
struct RnnCase {
    state: StateFx,
    x: TensorFx,
    out: TensorFx,
    h: TensorFx,
}

/// `tests/fixtures/numpy_data.json`: NumPy's squares and `RandomState` draws.
#[derive(Deserialize)]
struct NumpyDataFx {
    cases: Vec<SquaresCase>,
    random_state: RandomStateCase,
}

#[derive(Deserialize)]
struct SquaresCase {
    n: usize,
    variable_len: bool,
    seed: i64,
    directions: Vec<i64>,
    points: Vec<Vec<[f64; 2]>>,
}

#[derive(Deserialize)]
struct RandomStateCase {
    seed: i64,
    randint_10_20: Vec<f64>,
    rand_5: Vec<f64>,
    randn_7: Vec<f64>,
    randint_1000_5: Vec<f64>,
    wide_seed: i64,
    /// 64-bit integers, written as strings (JSON numbers are doubles).
    randint_full_i64: Vec<String>,
    randint_2_40: Vec<String>,
}

#[test]
fn generator_functions_match_pytorch() {
    let _serial = common::serial();
    let fx: GeneratorsFx = load_as("generators");
    for case in &fx.cases {
        let seed = case.seed as i128;
        manual_seed(seed).unwrap();
        let s = format!("seed {seed}");
        assert_close(&format!("{s} rand(7)"), &values(&repro::rand(7).unwrap()), &nums(&case.rand_7), 0.0);
        assert_close(
            &format!("{s} uniform_(-2.5, 3)"),
            &values(&repro::uniform(5, -2.5, 3.0).unwrap()),
            &nums(&case.uniform_5_m2_5_3),
            0.0,
        );
        // Normal draws of every size are PyTorch's bit for bit (see normal_draws_of_every_size_...).
        assert_close(&format!("{s} randn(5)"), &values(&repro::randn(5).unwrap()), &nums(&case.randn_5), 0.0);
        assert_close(&format!("{s} randn(3) after"), &values(&repro::randn(3).unwrap()), &nums(&case.randn_3_after), 0.0);
        assert_close(&format!("{s} randn(16)"), &values(&repro::randn(16).unwrap()), &nums(&case.randn_16), 0.0);
        assert_close(&format!("{s} randn(40)"), &values(&repro::randn(40).unwrap()), &nums(&case.randn_40), 0.0);
        let t = repro::randn((2, 3, 4)).unwrap();
        assert_tensor_close(&format!("{s} randn(2,3,4)"), &t, &case.randn_2x3x4.tensor(), 0.0);
        let normal = repro::with_default(|g| g.normal(20, 1.0, 2.0)).unwrap();
        assert_close(&format!("{s} normal_(1, 2)"), &values(&normal), &nums(&case.normal_20_m1_s2), 0.0);
        assert_eq!(repro::randperm(10), case.randperm_10, "{s} randperm(10)");
        assert_eq!(repro::randperm(1000), case.randperm_1000, "{s} randperm(1000)");
        assert_close(&format!("{s} bernoulli_(0.3)"), &values(&repro::bernoulli(40, 0.3).unwrap()), &nums(&case.bernoulli_40_p0_3), 0.0);
        assert_close(
            &format!("{s} dropout mask"),
            &values(&repro::bernoulli(1000, 0.5).unwrap()),
            &nums(&case.dropout_mask_1000_p0_5),
            0.0,
        );
        assert_close(&format!("{s} rand(3) at the end"), &values(&repro::rand(3).unwrap()), &nums(&case.rand_3_end), TOL);

        let mut g = Generator::new(seed as u64);
        assert_eq!(g.randperm(256), case.gen_randperm_256, "{s} Generator randperm(256)");
        assert_eq!(g.random_i64(), case.gen_random_int64, "{s} Generator random_()");
        assert_close(&format!("{s} Generator rand(4)"), &values(&g.rand(4).unwrap()), &nums(&case.gen_rand_4), TOL);
    }
}

/// Initialisations, uniform and normal (embeddings), are PyTorch's bit for bit.
fn check_state<M: Walk>(what: &str, m: &M, want: &StateFx) {
    assert_params(what, m, want, 0.0);
}

/// `randn(n)` right after `manual_seed` for every `n` from 1 to 100 (the double-precision path
/// below 16, the float32 block kernel with its redrawn last block above), an `Embedding(11, 6)`
/// and `normal_(mean, std)` of odd sizes: PyTorch's numbers bit for bit.
#[test]
fn normal_draws_of_every_size_equal_pytorchs() {
    let _serial = common::serial();
    let fx: GeneratorsFx = load_as("generators");
    for case in &fx.normal_sizes {
        let seed = case.seed as i128;
        for (i, want) in case.randn.iter().enumerate() {
            manual_seed(seed).unwrap();
            let n = i + 1;
            assert_close(&format!("seed {seed} randn({n})"), &values(&repro::randn(n).unwrap()), &nums(want), 0.0);
        }
        manual_seed(seed).unwrap();
        assert_params(
            &format!("seed {seed} Embedding(11, 6)"),
            &Embedding::new(11, 6).unwrap(),
            &StateFx(vec![("weight".to_string(), case.embedding_11_6.clone())]),
            0.0,
        );
        for c in &case.normal {
            let (n, mean, std) = (c.n, c.mean, c.std);
            let got = repro::with_default(|g| g.normal(n, mean, std)).unwrap();
            assert_close(&format!("seed {seed} normal_({mean}, {std}) of {n}"), &values(&got), &nums(&c.values), 0.0);
        }
    }
}

#[test]
fn layer_initialisation_matches_pytorch() {
    let _serial = common::serial();
    let fx: LayersFx = load_as("layers");
    for case in &fx.cases {
        let seed = case.seed as i128;
        manual_seed(seed).unwrap();
        let s = format!("seed {seed}");
        check_state(&format!("{s} Linear(3, 4)"), &Linear::new(3, 4).unwrap(), &case.linear_3_4);
        check_state(&format!("{s} Linear(5, 2, bias=False)"), &Linear::with_bias(5, 2, false).unwrap(), &case.linear_5_2_nobias);
        check_state(&format!("{s} GRU(2, 2)"), &Gru::new(2, 2).unwrap(), &case.gru_2_2);
        check_state(&format!("{s} GRU(3, 4, 2 layers, bi)"), &Gru::with_layers(3, 4, 2, true).unwrap(), &case.gru_3_4_l2_bi);
        check_state(&format!("{s} LSTM(3, 5)"), &Lstm::new(3, 5).unwrap(), &case.lstm_3_5);
        check_state(&format!("{s} LSTM(2, 3, bi)"), &Lstm::with_layers(2, 3, 1, true).unwrap(), &case.lstm_2_3_bi);
        check_state(&format!("{s} Embedding(10, 4)"), &Embedding::new(10, 4).unwrap(), &case.embedding_10_4);
        check_state(&format!("{s} LayerNorm(6)"), &LayerNorm::new(6).unwrap(), &case.layernorm_6);
        check_state(&format!("{s} Linear(2, 2) after"), &Linear::new(2, 2).unwrap(), &case.linear_after);
    }
}

#[test]
fn lecture_check_values_for_the_gru_encoder() {
    let _serial = common::serial();
    // manual_seed(21), GRU(2, 2), batch-first over the corners [[-1, -1], [-1, 1]].
    manual_seed(21).unwrap();
    let gru = Gru::new(2, 2).unwrap();
    let w = values(&gru.weights[0].weight_ih.tensor());
    assert_close("weight_ih_l0[:4]", &w[..4], &[-0.0373798, 0.1606529, -0.6900329, -0.6511084], 1e-7);
    let x = Tensor::new(&[[[-1f32, -1.], [-1., 1.]]], &Device::Cpu).unwrap();
    let (out, h) = gru.forward(&x, None).unwrap();
    assert_close("hidden states", &values(&out), &[0.0832, -0.0356, 0.3105, -0.5263], 5e-5);
    assert_close("final state", &values(&h), &[0.3105, -0.5263], 5e-5);
}

#[test]
fn recurrent_layers_compute_what_pytorch_computes() {
    let _serial = common::serial();
    let fx: RnnForwardFx = load_as("rnn_forward");
    let c = &fx.gru_corners;
    manual_seed(21).unwrap();
    let gru = Gru::new(2, 2).unwrap();
    check_state("GRU corners", &gru, &c.state);
    let (out, h) = gru.forward(&c.x.tensor(), None).unwrap();
    assert_tensor_close("GRU corners out", &out, &c.out.tensor(), 1e-6);
    assert_tensor_close("GRU corners h", &h, &c.h.tensor(), 1e-6);

    let c = &fx.gru_l2_bi;
    let gru = Gru::with_layers(3, 4, 2, true).unwrap();
    gru.load_state_dict(&c.state.tensors().into_iter().collect()).unwrap();
    let (out, h) = gru.forward(&c.x.tensor(), None).unwrap();
    assert_tensor_close("GRU 2 layers bi out", &out, &c.out.tensor(), 1e-6);
    assert_tensor_close("GRU 2 layers bi h", &h, &c.h.tensor(), 1e-6);

    let c = &fx.lstm_bi;
    let lstm = Lstm::with_layers(3, 5, 1, true).unwrap();
    lstm.load_state_dict(&c.state.tensors().into_iter().collect()).unwrap();
    let (out, (h, cell)) = lstm.forward(&c.x.tensor(), None).unwrap();
    assert_tensor_close("LSTM bi out", &out, &c.out.tensor(), 1e-6);
    assert_tensor_close("LSTM bi (h, c)", &Tensor::stack(&[h, cell], 0).unwrap(), &c.h.tensor(), 1e-6);
}

#[test]
fn squares_equal_numpy_exactly() {
    let _serial = common::serial();
    let fx: NumpyDataFx = load_as("numpy_data");
    for case in &fx.cases {
        let (n, var, seed) = (case.n, case.variable_len, case.seed);
        let got = generate_sequences(n, var, seed).unwrap();
        assert_eq!(got.directions, case.directions, "directions n={n} seed={seed}");
        for (i, (p, w)) in got.points.iter().zip(&case.points).enumerate() {
            assert_eq!(p, w, "sequence {i} of n={n} seed={seed} must equal NumPy's bit for bit");
        }
    }
    let raw = &fx.random_state;
    let mut rs = RandomState::new(raw.seed).unwrap();
    let ints: Vec<f64> = rs.randint(10, 20).unwrap().into_iter().map(|x| x as f64).collect();
    assert_eq!(ints, raw.randint_10_20);
    assert_eq!(rs.rand(5).unwrap(), raw.rand_5);
    assert_eq!(rs.randn(7).unwrap(), raw.randn_7);
    let ints: Vec<f64> = rs.randint(1000, 5).unwrap().into_iter().map(|x| x as f64).collect();
    assert_eq!(ints, raw.randint_1000_5);
    // Ranges wider than 2^32 take NumPy's 64-bit path; the whole i64 range included.
    let mut wide = RandomState::new(raw.wide_seed).unwrap();
    let text = |v: &[String]| v.iter().map(|s| s.parse::<i64>().unwrap()).collect::<Vec<_>>();
    let full: Vec<i64> = (0..6).map(|_| wide.randint_one(i64::MIN, i64::MAX).unwrap()).collect();
    assert_eq!(full, text(&raw.randint_full_i64));
    let forty: Vec<i64> = (0..6).map(|_| wide.randint_one(0, 1 << 40).unwrap()).collect();
    assert_eq!(forty, text(&raw.randint_2_40));
}

#[test]
fn lecture_check_values_for_the_squares() {
    let _serial = common::serial();
    let s = generate_sequences(256, false, 13).unwrap();
    let want = [[-1.0442, -0.9045], [-0.9980, 1.0863]];
    for (k, (got, want)) in s.points[1].iter().zip(want).enumerate() {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 5e-5, "sequence 1 point {k}: {got:?}");
        }
    }
}

#[test]
fn bad_input_gives_clear_errors() {
    let _serial = common::serial();
    let e = manual_seed(1i128 << 64).unwrap_err().to_string();
    assert!(e.contains("seed") && e.contains("64-bit"), "{e}");
    let e = repro::uniform(3, 2.0, 1.0).unwrap_err().to_string();
    assert!(e.contains("repro::uniform") && e.contains("from <= to"), "{e}");
    let e = repro::uniform(3, f64::NEG_INFINITY, 1.0).unwrap_err().to_string();
    assert!(e.contains("finite"), "{e}");
    let e = repro::rand(()).unwrap_err().to_string();
    assert!(e.contains("empty shape"), "{e}");
    let e = repro::bernoulli(3, 1.5).unwrap_err().to_string();
    assert!(e.contains("probability"), "{e}");
    let e = repro::with_default(|g| g.normal(3, 0.0, -1.0)).unwrap_err().to_string();
    assert!(e.contains("std >= 0"), "{e}");
    let e = RandomState::new(-1).unwrap_err().to_string();
    assert!(e.contains("between 0 and 2**32 - 1"), "{e}");
    let e = generate_sequences(3, false, 1 << 40).unwrap_err().to_string();
    assert!(e.contains("seed"), "{e}");
    let e = Gru::new(2, 2).unwrap().forward(&Tensor::zeros((1, 3), DType::F32, &Device::Cpu).unwrap(), None).unwrap_err().to_string();
    assert!(e.contains("GRU") && e.contains("(N, L, 2)") && e.contains("[1, 3]"), "{e}");
}

#[test]
fn linear_forward_is_pytorchs_bit_for_bit() {
    let _serial = common::serial(); // it draws from the shared default generator
    let fx: LayersFx = load_as("layers");
    for case in &fx.linear_forward {
        let (n_in, n_out) = (case.n_in, case.n_out);
        let lin = Linear::new(n_in, n_out).unwrap();
        lin.load_state_dict(&case.state.tensors().into_iter().collect()).unwrap();
        let y = lin.forward(&case.x.tensor()).unwrap();
        assert_tensor_close(&format!("Linear({n_in}, {n_out}) forward"), &y, &case.y.tensor(), 0.0);
    }
}
