//! Lecture part 3, the road to the sinusoidal encoding as tables: positions divided by a length,
//! taken modulo a few bases, turned into angles, then into sines and cosines; and the distances
//! between the codes of neighbouring positions, which only the last step keeps equal.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use crate::notebook::display::text_table::Table;
use candle_core::Result;

/// The most positions a table of codes shows.
pub const MAX_CODE_POSITIONS: usize = 64;

/// One way of turning a position into a number, one row of a table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PositionCode {
    /// `pos / n` for every position (it passes 1 once the sequence is longer than `n`).
    Divided(usize),
    /// `pos / n` for the positions of a sequence of length `n` only, blank after it: each
    /// sequence divided by its own length.
    OwnLength(usize),
    /// `(pos mod b) / b`: a fraction of a turn.
    Modulo(usize),
    /// `(pos mod b) / b * 360`: that fraction of a turn in degrees.
    Degrees(usize),
    /// The sine of that angle.
    Sine(usize),
    /// The cosine of that angle.
    Cosine(usize),
}

impl PositionCode {
    fn base(&self) -> usize {
        match *self {
            Self::Divided(n) | Self::OwnLength(n) | Self::Modulo(n) | Self::Degrees(n) | Self::Sine(n) | Self::Cosine(n) => n,
        }
    }

    /// The row's label, as the lecture names it.
    pub fn label(&self) -> String {
        match *self {
            Self::Divided(n) | Self::OwnLength(n) => format!("Pos/{n}"),
            Self::Modulo(b) => format!("(Pos mod {b})/{b}"),
            Self::Degrees(b) => format!("Base {b}"),
            Self::Sine(b) => format!("sine (base {b})"),
            Self::Cosine(b) => format!("cosine (base {b})"),
        }
    }

    /// The code of `pos`; `None` past the end of an [`PositionCode::OwnLength`] sequence.
    pub fn value(&self, pos: usize) -> Option<f64> {
        let turn = |b: usize| (pos % b) as f64 / b as f64;
        let radians = |b: usize| turn(b) * std::f64::consts::TAU;
        match *self {
            Self::Divided(n) => Some(pos as f64 / n as f64),
            Self::OwnLength(n) => (pos < n).then(|| pos as f64 / n as f64),
            Self::Modulo(b) => Some(turn(b)),
            Self::Degrees(b) => Some(turn(b) * 360.0),
            Self::Sine(b) => Some(radians(b).sin()),
            Self::Cosine(b) => Some(radians(b).cos()),
        }
    }

    /// The code of `pos` as the table prints it: degrees without decimals, the rest with two, a
    /// blank where there is no value.
    pub fn cell(&self, pos: usize) -> String {
        match (self, self.value(pos)) {
            (_, None) => String::new(),
            (Self::Degrees(_), Some(v)) => format!("{}", v.round()),
            (_, Some(v)) => two_decimals(v),
        }
    }
}

/// Two decimals, halves rounded away from zero as the lecture's tables round them (1/8 is 0.13;
/// Rust's `{:.2}` would print 0.12), and no minus sign on a zero.
fn two_decimals(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    format!("{:.2}", if r == 0.0 { 0.0 } else { r })
}

/// Checks that there is at least one code, each of a positive length or base.
fn check_codes(codes: &[PositionCode]) -> Result<()> {
    if codes.is_empty() {
        return Err(invalid("expected at least one code"));
    }
    if let Some(c) = codes.iter().find(|c| c.base() == 0) {
        return Err(invalid(format!("expected positive lengths and bases, got {c:?}")));
    }
    Ok(())
}

/// A table with a column per position `0..positions` and a row per code.
///
/// ```
/// use attention_zoo::notebook::{PositionCode, position_codes};
/// let t = position_codes(&[PositionCode::Modulo(4)], 8)?;
/// assert_eq!(t.rows[0][1..].join(" "), "0.00 0.25 0.50 0.75 0.00 0.25 0.50 0.75");
/// # Ok::<(), candle_core::Error>(())
/// ```
#[errors_as]
pub fn position_codes(codes: &[PositionCode], positions: usize) -> Result<Table> {
    check_codes(codes)?;
    if positions == 0 || positions > MAX_CODE_POSITIONS {
        return Err(invalid(format!("expected 1 to {MAX_CODE_POSITIONS} positions, got {positions}")));
    }
    let headers: Vec<String> = std::iter::once("Position".to_string()).chain((0..positions).map(|p| p.to_string())).collect();
    let mut table = Table::new(&headers.iter().map(String::as_str).collect::<Vec<_>>());
    for code in codes {
        let cells: Vec<String> = std::iter::once(code.label()).chain((0..positions).map(|p| code.cell(p))).collect();
        table.push(&cells);
    }
    Ok(table)
}

/// The code vector of position `a` minus that of `b` (one entry per code), and its length.
/// Errors where a code has no value for one of the positions.
#[errors_as]
pub fn code_difference(codes: &[PositionCode], a: usize, b: usize) -> Result<(Vec<f64>, f64)> {
    check_codes(codes)?;
    let values = check_values(codes, a, b)?;
    let diff: Vec<f64> = values.iter().map(|(x, y)| x - y).collect();
    let distance = diff.iter().map(|d| d * d).sum::<f64>().sqrt();
    Ok((diff, distance))
}

/// Checks that every code has a value for positions `a` and `b`; returns the pairs of values.
fn check_values(codes: &[PositionCode], a: usize, b: usize) -> Result<Vec<(f64, f64)>> {
    codes
        .iter()
        .map(|c| match (c.value(a), c.value(b)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(invalid(format!("{} has no value for position {a} or {b}", c.label()))),
        })
        .collect()
}

/// The lecture's boxed subtraction as a table: the codes of positions `a` and `b`, their
/// difference, and the distance (the difference's length) in the title.
pub fn code_difference_table(codes: &[PositionCode], a: usize, b: usize) -> Result<Table> {
    let (diff, distance) = code_difference(codes, a, b)?;
    let (ha, hb) = (format!("position {a}"), format!("position {b}"));
    let mut table = Table::new(&["code", &ha, &hb, "difference"]).titled(&format!("Distance = {distance:.2}"));
    for (code, d) in codes.iter().zip(diff) {
        table.push(&[code.label(), code.cell(a), code.cell(b), two_decimals(d)]);
    }
    Ok(table)
}

/// One modulo row per base.
pub fn modulo_codes(bases: &[usize]) -> Vec<PositionCode> {
    bases.iter().map(|&b| PositionCode::Modulo(b)).collect()
}

/// For each base, its sine and cosine rows (two dimensions a base).
pub fn sine_cosine_codes(bases: &[usize]) -> Vec<PositionCode> {
    bases.iter().flat_map(|&b| [PositionCode::Sine(b), PositionCode::Cosine(b)]).collect()
}
