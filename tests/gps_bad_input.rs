//! Bad input to the GPS exercise's data (issue 26): every case is an error naming the public item
//! called and the argument or field at fault, never a panic, an abort or NaN trajectories.

use attention_zoo::data::{FLORENCE, GpsConfig, MinMaxScaler, Trajectories, generate_gps_trajectories, gps_splits, lat_lon_mse};
use attention_zoo::repro::PyRandom;
use std::time::{Duration, Instant};

/// The error of `generate_gps_trajectories(n, cfg)`, checked to name the function and `words`.
fn gen_err(n: usize, cfg: GpsConfig, words: &[&str]) -> String {
    let e = generate_gps_trajectories(&mut PyRandom::new(0), n, &cfg).unwrap_err().to_string();
    assert!(e.starts_with("generate_gps_trajectories: "), "{e}");
    for w in words {
        assert!(e.contains(w), "expected {w:?} in: {e}");
    }
    e
}

fn cfg() -> GpsConfig {
    GpsConfig::default()
}

#[test]
fn a_huge_n_is_an_error_before_any_allocation() {
    gen_err(usize::MAX, cfg(), &["n = 18446744073709551615", "too many", "more than usize::MAX"]);
    let t = Instant::now();
    gen_err(1 << 40, cfg(), &["n = 1099511627776", "too many", &format!("at most {}", GpsConfig::MAX_POINTS)]);
    assert!(t.elapsed() < Duration::from_secs(1), "n = 2^40 took {:?}", t.elapsed());
    // Just past the stated limit: 8 points a trajectory by default.
    gen_err(GpsConfig::MAX_POINTS / 8 + 1, cfg(), &["too many"]);
    // A long trajectory overflows in the product, not in n.
    gen_err(2, GpsConfig { seq_len: usize::MAX / 2, ..cfg() }, &["n = 2", "too many"]);
    gen_err(1, GpsConfig { seq_len: usize::MAX, ..cfg() }, &["too many"]);
}

#[test]
fn zero_counts_are_errors() {
    // Python's generator gives shape-(0,) arrays for n = 0, which the exercise's scaler cannot
    // fit; seq_len = 0 fails there on the last observed point. Here both are errors.
    gen_err(0, cfg(), &["n (the number of trajectories)", "n = 0"]);
    gen_err(3, GpsConfig { seq_len: 0, ..cfg() }, &["GpsConfig.seq_len", "seq_len = 0"]);
    gen_err(3, GpsConfig { pred_len: 0, ..cfg() }, &["GpsConfig.pred_len", "pred_len = 0"]);
}

#[test]
fn non_finite_config_values_are_errors_naming_the_field() {
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        gen_err(2, GpsConfig { start: v, ..cfg() }, &["GpsConfig.start", "finite"]);
        gen_err(2, GpsConfig { interval_minutes: v, ..cfg() }, &["GpsConfig.interval_minutes", "finite"]);
        gen_err(2, GpsConfig { max_offset: v, ..cfg() }, &["GpsConfig.max_offset", "finite"]);
        gen_err(2, GpsConfig { step: v, ..cfg() }, &["GpsConfig.step", "finite"]);
    }
    // gps_splits names itself.
    let e = gps_splits(0, &GpsConfig { max_offset: f64::NAN, ..cfg() }).unwrap_err().to_string();
    assert!(e.starts_with("gps_splits: ") && e.contains("GpsConfig.max_offset") && e.contains("NaN"), "{e}");
}

#[test]
fn meaningless_signs_and_sizes_are_errors() {
    for v in [0.0, -15.0] {
        gen_err(2, GpsConfig { interval_minutes: v, ..cfg() }, &["GpsConfig.interval_minutes must be positive"]);
    }
    gen_err(2, GpsConfig { max_offset: -0.01, ..cfg() }, &["GpsConfig.max_offset must be non-negative", "-0.01"]);
    gen_err(2, GpsConfig { step: -0.001, ..cfg() }, &["GpsConfig.step must be non-negative", "-0.001"]);
    // Finite, but the points would overflow (f64: 2 * 1e308) or leave float32's range.
    gen_err(2, GpsConfig { max_offset: 1e308, ..cfg() }, &["GpsConfig.max_offset", "float32"]);
    gen_err(2, GpsConfig { step: 1e38, ..cfg() }, &["step", "float32"]);
    gen_err(2, GpsConfig { interval_minutes: 1e300, ..cfg() }, &["interval_minutes", "float32"]);
    gen_err(2, GpsConfig { start: -1e39, ..cfg() }, &["GpsConfig.start", "float32"]);
}

fn point(k: usize) -> [f64; 3] {
    [FLORENCE.0, FLORENCE.1, k as f64]
}

#[test]
fn broken_trajectories_are_errors_not_panics() {
    // seq_len 0, with points: every method that needs whole trajectories refuses.
    let zero = Trajectories { sources: vec![point(0), point(1)], targets: vec![point(2)], seq_len: 0, pred_len: 1 };
    let e = zero.check().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::check: ") && e.contains("Trajectories.seq_len must be at least 1"), "{e}");
    for (name, r) in [
        ("Trajectories::sources_tensor", zero.sources_tensor().map(|_| ())),
        ("Trajectories::targets_tensor", zero.targets_tensor().map(|_| ())),
        ("Trajectories::full_tensor", zero.full_tensor().map(|_| ())),
        ("Trajectories::scaled", zero.scaled(&MinMaxScaler::default()).map(|_| ())),
    ] {
        let e = r.unwrap_err().to_string();
        assert!(e.starts_with(&format!("{name}: ")) && e.contains("seq_len"), "{name}: {e}");
    }
    let e = zero.repeat_last().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::repeat_last: ") && e.contains("Trajectories.seq_len must be at least 1"), "{e}");
    let e = lat_lon_mse(&[], &zero.targets).unwrap_err().to_string();
    assert!(e.contains("lat_lon_mse"), "{e}");
    let _ = (zero.len(), zero.is_empty());

    let e = Trajectories::new(vec![point(0)], vec![point(1)], 1, 0).unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::new: ") && e.contains("Trajectories.pred_len") && e.contains("pred_len = 0"), "{e}");

    // Lengths that do not match seq_len and pred_len.
    let e = Trajectories::new(vec![point(0); 7], vec![point(1); 3], 5, 3).unwrap_err().to_string();
    assert!(e.contains("Trajectories.sources holds 7 points") && e.contains("seq_len = 5"), "{e}");
    let e = Trajectories::new(vec![point(0); 10], vec![point(1); 3], 5, 3).unwrap_err().to_string();
    assert!(e.contains("Trajectories.targets holds 3 points") && e.contains("pred_len = 3"), "{e}");
    // The same, made through the public fields after generating.
    let mut t = generate_gps_trajectories(&mut PyRandom::new(0), 2, &cfg()).unwrap();
    t.targets.pop();
    let e = t.full_tensor().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::full_tensor: ") && e.contains("Trajectories.targets holds 5 points"), "{e}");
    let e = t.repeat_last().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::repeat_last: ") && e.contains("Trajectories.targets holds 5 points"), "{e}");
    t.seq_len = 3; // 10 sources in trajectories of 3
    let e = t.sources_tensor().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::sources_tensor: ") && e.contains("Trajectories.sources holds 10 points"), "{e}");
}

#[test]
fn non_finite_points_are_errors_in_tensors() {
    let mut t = generate_gps_trajectories(&mut PyRandom::new(0), 2, &cfg()).unwrap();
    t.sources[3][1] = f64::NAN;
    let e = t.sources_tensor().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::sources_tensor: ") && e.contains("Trajectories.sources[3]") && e.contains("not finite"), "{e}");
    t.sources[3][1] = FLORENCE.1;
    t.targets[0][2] = 1e39; // finite in f64, infinite in f32
    let e = t.full_tensor().unwrap_err().to_string();
    assert!(e.starts_with("Trajectories::full_tensor: ") && e.contains("Trajectories.targets[0]") && e.contains("float32"), "{e}");
}

#[test]
fn the_smallest_request_still_works() {
    // One trajectory of one observed and one future point, no noise: the centre, then the centre
    // again one interval later.
    let c = GpsConfig { seq_len: 1, pred_len: 1, max_offset: 0.0, step: 0.0, interval_minutes: 1.0, ..cfg() };
    let t = generate_gps_trajectories(&mut PyRandom::new(3), 1, &c).unwrap();
    assert_eq!(t.check().unwrap(), 1);
    assert_eq!(t.sources, vec![[FLORENCE.0, FLORENCE.1, c.start]]);
    assert_eq!(t.targets, vec![[FLORENCE.0, FLORENCE.1, c.start + 60.0]]);
    assert_eq!(t.full_tensor().unwrap().dims(), &[1, 2, 3]);
    assert_eq!(t.repeat_last().unwrap(), t.sources);
    assert_eq!(lat_lon_mse(&t.repeat_last().unwrap(), &t.targets).unwrap(), 0.0);
    // No trajectories at all is a valid (empty) value, if not something to generate.
    let empty = Trajectories::new(vec![], vec![], 5, 3).unwrap();
    assert_eq!((empty.len(), empty.is_empty()), (0, true));
    assert_eq!(empty.sources_tensor().unwrap().dims(), &[0, 5, 3]);
    assert_eq!(empty.full_tensor().unwrap().dims(), &[0, 8, 3]);
    assert!(empty.repeat_last().unwrap().is_empty());
}

/// `plot_trajectories` checks the public fields before slicing them (a `seq_len` edited to
/// something the points do not hold panicked there).
#[test]
fn plotting_edited_trajectories_is_an_error_not_a_panic() {
    let mut t = attention_zoo::data::Trajectories::new(vec![[43.77, 11.25, 0.0]; 2], vec![[43.78, 11.26, 900.0]; 2], 2, 2).unwrap();
    t.seq_len = 5;
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| attention_zoo::notebook::plot_trajectories(&t, None, 1, "edited")));
    let e = outcome.expect("no panic").unwrap_err().to_string();
    assert!(e.contains("plot_trajectories") && e.contains("seq_len"), "{e}");
}
