//! The two-sample Kolmogorov-Smirnov test, as scipy's `ks_2samp` computes it (two-sided, exact
//! p-value): how the final losses of many seeds are compared with PyTorch's.

use candle_core::{Error, Result};

/// The largest sample the exact p-value is computed for (scipy's `ks_2samp` switches to an
/// asymptotic formula beyond it; we stop with an error instead).
pub const KS_MAX_EXACT: usize = 10_000;

/// The outcome of [`ks_2samp`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KsTest {
    /// The largest distance between the two empirical distribution functions.
    pub statistic: f64,
    /// The probability of a distance at least this large when both samples come from one
    /// distribution.
    pub pvalue: f64,
}

impl KsTest {
    /// Whether the test keeps "same distribution" at significance level `alpha` (p >= alpha).
    pub fn same_distribution(&self, alpha: f64) -> bool {
        self.pvalue >= alpha
    }
}

/// scipy's `ks_2samp(a, b)` (two-sided, `method='auto'`, which is exact for these sizes): the
/// statistic, with ties between and within the samples handled as scipy does, and its exact
/// p-value.
///
/// Errors on an empty sample, a NaN, or a sample larger than [`KS_MAX_EXACT`].
pub fn ks_2samp(a: &[f64], b: &[f64]) -> Result<KsTest> {
    for (name, s) in [("first", a), ("second", b)] {
        if s.is_empty() {
            return Err(Error::Msg(format!("ks_2samp: the {name} sample is empty")));
        }
        if s.len() > KS_MAX_EXACT {
            return Err(Error::Msg(format!("ks_2samp: the {name} sample has {} values, at most {KS_MAX_EXACT} allowed", s.len())));
        }
        if s.iter().any(|v| v.is_nan()) {
            return Err(Error::Msg(format!("ks_2samp: the {name} sample holds a NaN")));
        }
    }
    let d = ecdf_distance(a, b);
    let (n1, n2) = (a.len(), b.len());
    let g = gcd(n1, n2);
    let lcm = (n1 / g) * n2;
    let h = (d * lcm as f64).round() as usize;
    let statistic = h as f64 / lcm as f64;
    let pvalue = if h == 0 {
        1.0
    } else if n1 == n2 {
        prob_outside_square(n1, h)
    } else {
        prob_outside_band(n1, n2, g, h)
    };
    Ok(KsTest { statistic, pvalue: pvalue.clamp(0.0, 1.0) })
}

/// max over every value x of both samples of |F_a(x) - F_b(x)|, the empirical distribution
/// functions taken right-continuous (so tied values count together).
fn ecdf_distance(a: &[f64], b: &[f64]) -> f64 {
    let sorted = |s: &[f64]| {
        let mut v = s.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (a, b) = (sorted(a), sorted(b));
    let at_most = |s: &[f64], x: f64| s.partition_point(|&v| v <= x) as f64 / s.len() as f64;
    a.iter().chain(&b).map(|&x| (at_most(&a, x) - at_most(&b, x)).abs()).fold(0.0, f64::max)
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// P(D >= h/n) for two samples of n: 2 (C(2n, n-h) - C(2n, n-2h) + ...) / C(2n, n), evaluated
/// in scipy's nested form, which avoids the cancellation of the alternating sum.
fn prob_outside_square(n: usize, h: usize) -> f64 {
    let mut p = 0.0;
    for k in (0..=n / h).rev() {
        let mut a = 1.0;
        for j in 0..h {
            a = (n as f64 - (k * h + j) as f64) * a / (n + k * h + j + 1) as f64;
        }
        p = a * (1.0 - p);
    }
    2.0 * p
}

/// P(D >= h/lcm) for samples of n1 != n2: the share of the lattice paths from (0, 0) to (m, n)
/// that touch |x n/g - y m/g| >= h, built column by column; q(x, y) is the share of the paths
/// to (x, y) that touched it, q = 1 on the touched points and
/// q(x, y) = (x q(x-1, y) + y q(x, y-1)) / (x + y) elsewhere.
fn prob_outside_band(n1: usize, n2: usize, g: usize, h: usize) -> f64 {
    let (m, n) = if n1 >= n2 { (n1, n2) } else { (n2, n1) };
    let (mg, ng) = ((m / g) as i64, (n / g) as i64);
    let outside = |x: usize, y: usize| (x as i64 * ng - y as i64 * mg).abs() >= h as i64;
    // column[y] = q(x, y) for the current x.
    let mut column: Vec<f64> = (0..=n).map(|y| if outside(0, y) { 1.0 } else { 0.0 }).collect();
    for y in 1..=n {
        column[y] = column[y].max(column[y - 1]);
    }
    for x in 1..=m {
        for y in 0..=n {
            column[y] = if outside(x, y) {
                1.0
            } else if y == 0 {
                column[0]
            } else {
                (x as f64 * column[y] + y as f64 * column[y - 1]) / (x + y) as f64
            };
        }
    }
    column[n]
}

/// The median (the mean of the middle two for an even count); errors on an empty slice or a NaN.
pub fn median(values: &[f64]) -> Result<f64> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return Err(Error::Msg(format!("median: needs at least one value and no NaN, got {} values", values.len())));
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Ok(if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 })
}
