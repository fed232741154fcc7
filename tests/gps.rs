//! The GPS exercise's data against Python (tests/fixtures/gps.json, written by
//! tools/fixtures/gps.py): trajectories bit for bit with `random.seed(s)` and 001's generator,
//! scikit-learn's MinMaxScaler within 1e-12, Python's seeding against NumPy's, and the errors.

use crate::common;

use attention_zoo::data::{GpsConfig, MinMaxScaler, Trajectories, generate_gps_trajectories, gps_splits};
use attention_zoo::repro::{Mt19937, PyRandom};
use common::fixtures::load;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn flat(points: &[[f64; 3]]) -> Vec<f64> {
    points.iter().flat_map(|p| p.iter().copied()).collect()
}

fn assert_split(what: &str, got: &Trajectories, want: &Value) {
    assert_eq!(flat(&got.sources), floats(&want["sources"]), "{what}: sources, bit for bit");
    assert_eq!(flat(&got.targets), floats(&want["targets"]), "{what}: targets, bit for bit");
}

#[test]
fn trajectories_are_pythons_bit_for_bit() {
    let fx = load("gps");
    for case in fx["cases"].as_array().unwrap() {
        let seed = case["seed"].as_i64().unwrap() as i128;
        let splits = gps_splits(seed, &GpsConfig::default()).unwrap();
        assert_eq!((splits.train.len(), splits.valid.len(), splits.test.len()), (1000, 100, 20));
        assert_split(&format!("seed {seed}, test"), &splits.test, &case["test"]);
        if seed == 0 {
            assert_split("seed 0, train", &splits.train, &case["train"]);
            assert_split("seed 0, valid", &splits.valid, &case["valid"]);
        }
    }
}

#[test]
fn pythons_seeding_is_not_numpys() {
    let fx = load("gps");
    let words = |k: &str| -> Vec<u32> { fx["words_seed7"][k].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect() };
    let mut py = PyRandom::new(7);
    assert_eq!((0..5).map(|_| py.next_u32()).collect::<Vec<_>>(), words("python"));
    let mut np = Mt19937::new(7);
    assert_eq!((0..5).map(|_| np.next_u32()).collect::<Vec<_>>(), words("numpy"));
    assert_ne!(words("python"), words("numpy"));
}

#[test]
fn the_scaler_is_scikit_learns() {
    let fx = load("gps");
    let case = &fx["cases"][0];
    let want = &case["scaler"];
    let splits = gps_splits(0, &GpsConfig::default()).unwrap();
    let mut scaler = MinMaxScaler::default();
    scaler.fit(&splits.train.sources).unwrap();
    let close = |what: &str, got: &[f64], want: &Value| {
        let want = floats(want);
        assert_eq!(got.len(), want.len(), "{what}");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{what}[{k}]: {g} against scikit-learn's {w}");
        }
    };
    close("data_min", &scaler.data_min, &want["data_min"]);
    close("data_max", &scaler.data_max, &want["data_max"]);
    close("scale", &scaler.scale, &want["scale"]);
    close("min", &scaler.min, &want["min"]);
    close("test sources", &flat(&scaler.transform(&splits.test.sources).unwrap()), &want["test_sources"]);
    let scaled = scaler.transform(&splits.test.targets).unwrap();
    close("test targets", &flat(&scaled), &want["test_targets"]);
    close("inverse", &flat(&scaler.inverse_transform(&scaled).unwrap()), &want["inverse"]);

    // A constant feature: scikit-learn's scale of 1 for a zero range, so it maps to the low end.
    let c = &fx["constant"];
    let data: Vec<[f64; 2]> = floats(&c["data"]).chunks(2).map(|r| [r[0], r[1]]).collect();
    let mut constant = MinMaxScaler::new((-1.0, 1.0));
    constant.fit(&data).unwrap();
    close("constant: scale", &constant.scale, &c["scale"]);
    close("constant: min", &constant.min, &c["min"]);
    let t: Vec<f64> = constant.transform(&data).unwrap().iter().flatten().copied().collect();
    close("constant: transformed", &t, &c["transformed"]);
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
