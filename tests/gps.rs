//! The GPS exercise's data against Python (tests/fixtures/gps.json, written by
//! tools/fixtures/gps.py): trajectories bit for bit with `random.seed(s)` and 001's generator,
//! scikit-learn's MinMaxScaler within 1e-12, Python's seeding against NumPy's, and the errors.

use crate::common;

use attention_zoo::data::{GpsConfig, MinMaxScaler, Trajectories, generate_gps_trajectories, gps_splits};
use attention_zoo::repro::{Mt19937, PyRandom};
use common::fixtures::load_as;
use serde::Deserialize;

/// `tests/fixtures/gps.json`: Python's trajectories for a few seeds, scikit-learn's scaler on
/// them, a constant feature, and the first words of Python's and NumPy's generators for seed 7.
#[derive(Deserialize)]
struct GpsFx {
    cases: Vec<Case>,
    constant: Constant,
    words_seed7: Words,
}

#[derive(Deserialize)]
struct Case {
    seed: i64,
    /// The training and validation splits are kept for seed 0 only.
    train: Option<Split>,
    valid: Option<Split>,
    test: Split,
    scaler: Option<Scaler>,
}

/// A split's points, `(latitude, longitude, time)` flattened.
#[derive(Deserialize)]
struct Split {
    sources: Vec<f64>,
    targets: Vec<f64>,
}

/// scikit-learn's `MinMaxScaler` fitted on seed 0's training sources.
#[derive(Deserialize)]
struct Scaler {
    data_min: Vec<f64>,
    data_max: Vec<f64>,
    scale: Vec<f64>,
    min: Vec<f64>,
    test_sources: Vec<f64>,
    test_targets: Vec<f64>,
    inverse: Vec<f64>,
}

#[derive(Deserialize)]
struct Constant {
    data: Vec<f64>,
    scale: Vec<f64>,
    min: Vec<f64>,
    transformed: Vec<f64>,
}

#[derive(Deserialize)]
struct Words {
    python: Vec<u32>,
    numpy: Vec<u32>,
}

fn fixture() -> GpsFx {
    load_as("gps")
}

fn flat(points: &[[f64; 3]]) -> Vec<f64> {
    points.iter().flat_map(|p| p.iter().copied()).collect()
}

fn assert_split(what: &str, got: &Trajectories, want: &Split) {
    assert_eq!(flat(&got.sources), want.sources, "{what}: sources, bit for bit");
    assert_eq!(flat(&got.targets), want.targets, "{what}: targets, bit for bit");
}

#[test]
fn trajectories_are_pythons_bit_for_bit() {
    for case in fixture().cases {
        let seed = case.seed as i128;
        let splits = gps_splits(seed, &GpsConfig::default()).unwrap();
        assert_eq!((splits.train.len(), splits.valid.len(), splits.test.len()), (1000, 100, 20));
        assert_split(&format!("seed {seed}, test"), &splits.test, &case.test);
        if seed == 0 {
            assert_split("seed 0, train", &splits.train, case.train.as_ref().expect("seed 0's training split"));
            assert_split("seed 0, valid", &splits.valid, case.valid.as_ref().expect("seed 0's validation split"));
        }
    }
}

#[test]
fn pythons_seeding_is_not_numpys() {
    let words = fixture().words_seed7;
    let mut py = PyRandom::new(7);
    assert_eq!((0..5).map(|_| py.next_u32()).collect::<Vec<_>>(), words.python);
    let mut np = Mt19937::new(7);
    assert_eq!((0..5).map(|_| np.next_u32()).collect::<Vec<_>>(), words.numpy);
    assert_ne!(words.python, words.numpy);
}

#[test]
fn the_scaler_is_scikit_learns() {
    let fx = fixture();
    let want = fx.cases[0].scaler.as_ref().expect("the scaler of seed 0");
    let splits = gps_splits(0, &GpsConfig::default()).unwrap();
    let mut scaler = MinMaxScaler::default();
    scaler.fit(&splits.train.sources).unwrap();
    let close = |what: &str, got: &[f64], want: &[f64]| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{what}[{k}]: {g} against scikit-learn's {w}");
        }
    };
    close("data_min", &scaler.data_min, &want.data_min);
    close("data_max", &scaler.data_max, &want.data_max);
    close("scale", &scaler.scale, &want.scale);
    close("min", &scaler.min, &want.min);
    close("test sources", &flat(&scaler.transform(&splits.test.sources).unwrap()), &want.test_sources);
    let scaled = scaler.transform(&splits.test.targets).unwrap();
    close("test targets", &flat(&scaled), &want.test_targets);
    close("inverse", &flat(&scaler.inverse_transform(&scaled).unwrap()), &want.inverse);

    // A constant feature: scikit-learn's scale of 1 for a zero range, so it maps to the low end.
    let c = &fx.constant;
    // the third feature's range (2e-16) is below 10 machine epsilons: constant for scikit-learn
    let data: Vec<[f64; 3]> = c.data.chunks(3).map(|r| [r[0], r[1], r[2]]).collect();
    let mut constant = MinMaxScaler::new((-1.0, 1.0));
    constant.fit(&data).unwrap();
    close("constant: scale", &constant.scale, &c.scale);
    close("constant: min", &constant.min, &c.min);
    let t: Vec<f64> = constant.transform(&data).unwrap().iter().flatten().copied().collect();
    close("constant: transformed", &t, &c.transformed);
}

#[test]
fn bad_requests_are_clear_errors() {
    let mut rng = PyRandom::new(0);
    let e = generate_gps_trajectories(&mut rng, 0, &GpsConfig::default()).unwrap_err().to_string();
    assert!(e.contains("generate_gps_trajectories") && e.contains("n = 0"), "{e}");
    let e = generate_gps_trajectories(&mut rng, 3, &GpsConfig { pred_len: 0, ..GpsConfig::default() }).unwrap_err().to_string();
    assert!(e.contains("pred_len = 0"), "{e}");
    let scaler = MinMaxScaler::default();
    let e = scaler.transform(&[[1.0, 2.0]]).unwrap_err().to_string();
    assert!(e.contains("MinMaxScaler") && e.contains("transform before fit"), "{e}");
    let mut fitted = MinMaxScaler::default();
    fitted.fit(&[[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]).unwrap();
    let e = fitted.inverse_transform(&[[1.0, 2.0]]).unwrap_err().to_string();
    assert!(e.contains("fitted on 3 features, got samples of 2"), "{e}");
    let e = MinMaxScaler::default().fit::<3>(&[]).unwrap_err().to_string();
    assert!(e.contains("at least one sample"), "{e}");
    let e = MinMaxScaler::new((1.0, 1.0)).fit(&[[1.0]]).unwrap_err().to_string();
    assert!(e.contains("min < max"), "{e}");
}
