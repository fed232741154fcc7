//! The positional-encoding motivation tables of lecture part 3 (001's version) against the
//! numbers the lecture prints: each row, cell by cell, and the four distances.

use PositionCode::*;
use attention_zoo::prelude::*;

fn row(codes: &[PositionCode], positions: usize) -> Vec<String> {
    let t = position_codes(codes, positions).unwrap();
    t.rows.iter().map(|r| r.join(" ")).collect()
}

#[test]
fn the_tables_print_the_lectures_rows() {
    assert_eq!(row(&[Divided(4)], 4), ["Pos/4 0.00 0.25 0.50 0.75"]);
    assert_eq!(row(&[Divided(4)], 8), ["Pos/4 0.00 0.25 0.50 0.75 1.00 1.25 1.50 1.75"]);
    // Each sequence divided by its own length: 0.13 and 0.63 are 1/8 and 5/8 rounded half up,
    // as the lecture prints them.
    assert_eq!(row(&[OwnLength(4), OwnLength(8)], 8), ["Pos/4 0.00 0.25 0.50 0.75    ", "Pos/8 0.00 0.13 0.25 0.38 0.50 0.63 0.75 0.88"]);
    assert_eq!(
        row(&modulo_codes(&[4, 5, 7]), 8),
        [
            "(Pos mod 4)/4 0.00 0.25 0.50 0.75 0.00 0.25 0.50 0.75",
            "(Pos mod 5)/5 0.00 0.20 0.40 0.60 0.80 0.00 0.20 0.40",
            "(Pos mod 7)/7 0.00 0.14 0.29 0.43 0.57 0.71 0.86 0.00",
        ]
    );
    assert_eq!(
        row(&[Degrees(4), Degrees(5), Degrees(7)], 8),
        ["Base 4 0 90 180 270 0 90 180 270", "Base 5 0 72 144 216 288 0 72 144", "Base 7 0 51 103 154 206 257 309 0"]
    );
    assert_eq!(
        row(&sine_cosine_codes(&[4, 5, 7]), 8),
        [
            "sine (base 4) 0.00 1.00 0.00 -1.00 0.00 1.00 0.00 -1.00",
            "cosine (base 4) 1.00 0.00 -1.00 0.00 1.00 0.00 -1.00 0.00",
            "sine (base 5) 0.00 0.95 0.59 -0.59 -0.95 0.00 0.95 0.59",
            "cosine (base 5) 1.00 0.31 -0.81 -0.81 0.31 1.00 0.31 -0.81",
            "sine (base 7) 0.00 0.78 0.97 0.43 -0.43 -0.97 -0.78 0.00",
            "cosine (base 7) 1.00 0.62 -0.22 -0.90 -0.90 -0.22 0.62 1.00",
        ]
    );
}

#[test]
fn modulo_codes_stretch_distances_and_sines_keep_them() {
    let round2 = |v: f64| (v * 100.0).round() / 100.0;
    let modulo = modulo_codes(&[4, 5, 7]);
    let (diff, near) = code_difference(&modulo, 3, 2).unwrap();
    assert_eq!(diff.iter().map(|&d| round2(d)).collect::<Vec<_>>(), [0.25, 0.2, 0.14]);
    let (diff, far) = code_difference(&modulo, 4, 3).unwrap();
    assert_eq!(diff.iter().map(|&d| round2(d)).collect::<Vec<_>>(), [-0.75, 0.2, 0.14]);
    assert_eq!((round2(near), round2(far)), (0.35, 0.79));

    let sines = sine_cosine_codes(&[4, 5, 7]);
    let (diff, a) = code_difference(&sines, 3, 2).unwrap();
    assert_eq!(diff.iter().map(|&d| round2(d)).collect::<Vec<_>>(), [-1.0, 1.0, -1.18, 0.0, -0.54, -0.68]);
    let (diff, b) = code_difference(&sines, 4, 3).unwrap();
    assert_eq!(diff.iter().map(|&d| round2(d)).collect::<Vec<_>>(), [1.0, 1.0, -0.36, 1.12, -0.87, 0.0]);
    assert_eq!((round2(a), round2(b)), (2.03, 2.03));
    // Not a coincidence of rounding: a rotation keeps lengths, so every step of one position is
    // the same distance.
    for p in 0..20 {
        assert!((code_difference(&sines, p + 1, p).unwrap().1 - a).abs() < 1e-12);
    }
    let t = code_difference_table(&sines, 3, 2).unwrap();
    assert_eq!(t.title.as_deref(), Some("Distance = 2.03"));
    assert_eq!(t.rows[2].join(" "), "sine (base 5) -0.59 0.59 -1.18");
}

#[test]
fn bad_codes_are_errors_naming_the_function() {
    let err = position_codes(&[], 4).unwrap_err().to_string();
    assert!(err.contains("position_codes") && err.contains("at least one code"), "{err}");
    let err = position_codes(&[Modulo(0)], 4).unwrap_err().to_string();
    assert!(err.contains("Modulo(0)"), "{err}");
    assert!(position_codes(&[Modulo(3)], 0).is_err());
    let err = code_difference(&[OwnLength(4)], 5, 2).unwrap_err().to_string();
    assert!(err.contains("code_difference") && err.contains("Pos/4 has no value for position 5"), "{err}");
}
