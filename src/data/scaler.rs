//! scikit-learn's `MinMaxScaler`, per feature, in `f64` with its arithmetic.

use crate::nn::errors_as;
use crate::nn::shape::invalid;
use candle_core::Result;

/// `MinMaxScaler(feature_range=(lo, hi))`: learns each feature's minimum and maximum in
/// [`MinMaxScaler::fit`], then maps `x` to `x * scale + min` with
/// `scale = (hi - lo) / (max - min)` and `min = lo - data_min * scale`, as scikit-learn computes
/// them. A feature with zero range, or one below 10 machine epsilons (constant in the fitted data),
/// gets `scale = hi - lo`, as in
/// scikit-learn: its fitted value maps to `lo`, nothing divides by zero.
#[derive(Clone, Debug, PartialEq)]
pub struct MinMaxScaler {
    pub feature_range: (f64, f64),
    /// Per feature, after `fit`.
    pub data_min: Vec<f64>,
    pub data_max: Vec<f64>,
    pub scale: Vec<f64>,
    pub min: Vec<f64>,
}

impl Default for MinMaxScaler {
    fn default() -> Self {
        MinMaxScaler::new((0.0, 1.0))
    }
}

impl MinMaxScaler {
    /// An unfitted scaler onto `feature_range` (scikit-learn's default is `(0, 1)`).
    pub fn new(feature_range: (f64, f64)) -> Self {
        MinMaxScaler { feature_range, data_min: vec![], data_max: vec![], scale: vec![], min: vec![] }
    }

    /// Number of features once fitted (0 before).
    pub fn n_features(&self) -> usize {
        self.scale.len()
    }

    /// Learns each feature's minimum and maximum from `rows` (samples of `F` features each).
    #[errors_as("MinMaxScaler")]
    pub fn fit<const F: usize>(&mut self, rows: &[[f64; F]]) -> Result<&mut Self> {
        let (lo, hi) = check_fit(self.feature_range, rows)?;
        let column = |j: usize| rows.iter().map(move |r| r[j]);
        self.data_min = (0..F).map(|j| column(j).fold(f64::INFINITY, f64::min)).collect();
        self.data_max = (0..F).map(|j| column(j).fold(f64::NEG_INFINITY, f64::max)).collect();
        self.scale = (0..F)
            .map(|j| {
                let range = self.data_max[j] - self.data_min[j];
                // scikit-learn's `_handle_zeros_in_scale`: a range below 10 machine epsilons counts
                // as constant
                (hi - lo) / if range < 10.0 * f64::EPSILON { 1.0 } else { range }
            })
            .collect();
        self.min = (0..F).map(|j| lo - self.data_min[j] * self.scale[j]).collect();
        Ok(self)
    }

    /// Checks that the scaler is fitted, on samples of `F` features; `what` names the method.
    fn check_fitted<const F: usize>(&self, what: &str) -> Result<()> {
        if self.scale.is_empty() {
            return Err(invalid(format!("{what} before fit: call fit on the training data first")));
        }
        if self.scale.len() != F {
            return Err(invalid(format!("{what}: fitted on {} features, got samples of {F}", self.scale.len())));
        }
        Ok(())
    }

    /// `x * scale + min`, feature by feature.
    #[errors_as("MinMaxScaler")]
    pub fn transform<const F: usize>(&self, rows: &[[f64; F]]) -> Result<Vec<[f64; F]>> {
        self.check_fitted::<F>("transform")?;
        Ok(rows.iter().map(|r| std::array::from_fn(|j| r[j] * self.scale[j] + self.min[j])).collect())
    }

    /// `(x - min) / scale`, feature by feature: the inverse of [`MinMaxScaler::transform`].
    #[errors_as("MinMaxScaler")]
    pub fn inverse_transform<const F: usize>(&self, rows: &[[f64; F]]) -> Result<Vec<[f64; F]>> {
        self.check_fitted::<F>("inverse_transform")?;
        Ok(rows.iter().map(|r| std::array::from_fn(|j| (r[j] - self.min[j]) / self.scale[j])).collect())
    }
}

/// Checks what [`MinMaxScaler::fit`] is given: a `feature_range` with min < max, at least one
/// sample and one feature, every value finite. Returns the range.
fn check_fit<const F: usize>((lo, hi): (f64, f64), rows: &[[f64; F]]) -> Result<(f64, f64)> {
    if lo >= hi || lo.is_nan() || hi.is_nan() {
        return Err(invalid(format!("feature_range must have min < max, got ({lo}, {hi})")));
    }
    if rows.is_empty() || F == 0 {
        return Err(invalid(format!("fit needs at least one sample and one feature, got {} samples of {F}", rows.len())));
    }
    if let Some(k) = rows.iter().position(|r| r.iter().any(|v| !v.is_finite())) {
        return Err(invalid(format!("sample {k} has a non-finite value: {:?}", rows[k])));
    }
    Ok((lo, hi))
}
