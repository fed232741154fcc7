//! What a student's code returns, held against the reference's: the first difference, in words.

use candle_core::{DType, Result, Tensor};

/// How close a value must be to the reference's: `|yours - reference| <= atol + rtol * |reference|`,
/// the parity tests' rule. Infinities must match exactly, and NaN matches NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub atol: f64,
    /// Relative part.
    pub rtol: f64,
}

impl Tolerance {
    /// The parity tests' float32 tolerance for a few operations: 1e-5 both ways.
    pub const F32: Tolerance = Tolerance { atol: 1e-5, rtol: 1e-5 };
    /// For a module's output after a few layers: 1e-4 both ways.
    pub const LAYERS: Tolerance = Tolerance { atol: 1e-4, rtol: 1e-4 };

    /// Whether `got` is close enough to `want`.
    pub fn close(&self, got: f64, want: f64) -> bool {
        if got.is_nan() || want.is_nan() {
            return got.is_nan() && want.is_nan();
        }
        if got.is_infinite() || want.is_infinite() {
            return got == want;
        }
        (got - want).abs() <= self.atol + self.rtol * want.abs()
    }
}

/// A value a check compares with the reference's.
pub trait Answer {
    /// The first difference from `want` in words, or `None` when `self` is within `tol` of it.
    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>>;

    /// Whether `self` is `other` within `tol` (a failed comparison is no match).
    fn matches(&self, other: &Self, tol: Tolerance) -> bool {
        matches!(self.difference(other, tol), Ok(None))
    }

    /// The tensors the answer holds, in order: what the diagnosis relates to the reference's.
    fn tensors(&self) -> Vec<Tensor> {
        vec![]
    }
}

/// `[0, 1, 2]`: the index of element `flat` of a tensor of shape `dims`.
fn index(dims: &[usize], mut flat: usize) -> String {
    let mut at = vec![0; dims.len()];
    for (k, d) in dims.iter().enumerate().rev() {
        if *d > 0 {
            at[k] = flat % d;
            flat /= d;
        }
    }
    format!("{at:?}")
}

impl Answer for Tensor {
    fn tensors(&self) -> Vec<Tensor> {
        vec![self.clone()]
    }

    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        if !self.device().same_device(want.device()) {
            return Ok(Some(format!("your tensor is on {:?}; the reference's on {:?}", self.device(), want.device())));
        }
        if self.dims() != want.dims() {
            return Ok(Some(format!("your tensor has shape {:?}; the reference's has shape {:?}", self.dims(), want.dims())));
        }
        let (integer, reference_integer) = (!self.dtype().is_float(), !want.dtype().is_float());
        if integer != reference_integer || (self.dtype() == DType::U8) != (want.dtype() == DType::U8) {
            let convert = if want.dtype() == DType::U8 { " (a mask of 0s and 1s: `.to_dtype(DType::U8)?`)" } else { "" };
            return Ok(Some(format!("your tensor's dtype is {:?}; the reference's is {:?}{convert}", self.dtype(), want.dtype())));
        }
        if self.dtype() != want.dtype() {
            // float64 where the lecture's tensor is float32 fails in the next cell's product or sum
            return Ok(Some(format!(
                "your tensor's dtype is {:?}; the reference's is {:?}, as the lecture's (`.to_dtype(DType::{:?})?`)",
                self.dtype(),
                want.dtype(),
                want.dtype()
            )));
        }
        let got = self.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()?;
        let exp = want.flatten_all()?.to_dtype(DType::F64)?.to_vec1::<f64>()?;
        // each value as its own dtype prints it: float32's shortest digits, not a float64's noise
        let show = |t: &Tensor, v: f64| if t.dtype() == DType::F64 { v.to_string() } else { (v as f32).to_string() };
        Ok(got.iter().zip(&exp).position(|(g, w)| !tol.close(*g, *w)).map(|k| {
            let bad = got.iter().zip(&exp).filter(|(g, w)| !tol.close(**g, **w)).count();
            format!(
                "at {} yours is {} and the reference's is {} (tolerance {:e} + {:e} × |reference|); {bad} of {} values differ",
                index(self.dims(), k),
                show(self, got[k]),
                show(want, exp[k]),
                tol.atol,
                tol.rtol,
                got.len()
            )
        }))
    }
}

impl<A: Answer, B: Answer> Answer for (A, B) {
    fn tensors(&self) -> Vec<Tensor> {
        [self.0.tensors(), self.1.tensors()].concat()
    }

    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        if let Some(d) = self.0.difference(&want.0, tol)? {
            return Ok(Some(format!("first value returned: {d}")));
        }
        Ok(self.1.difference(&want.1, tol)?.map(|d| format!("second value returned: {d}")))
    }
}

impl<A: Answer, B: Answer, C: Answer> Answer for (A, B, C) {
    fn tensors(&self) -> Vec<Tensor> {
        [self.0.tensors(), self.1.tensors(), self.2.tensors()].concat()
    }

    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        if let Some(d) = self.0.difference(&want.0, tol)? {
            return Ok(Some(format!("first value: {d}")));
        }
        if let Some(d) = self.1.difference(&want.1, tol)? {
            return Ok(Some(format!("second value: {d}")));
        }
        Ok(self.2.difference(&want.2, tol)?.map(|d| format!("third value: {d}")))
    }
}

impl<A: Answer> Answer for Vec<A> {
    fn tensors(&self) -> Vec<Tensor> {
        self.iter().flat_map(Answer::tensors).collect()
    }

    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        if self.len() != want.len() {
            return Ok(Some(format!("you returned {} items; the reference returns {}", self.len(), want.len())));
        }
        for (k, (g, w)) in self.iter().zip(want).enumerate() {
            if let Some(d) = g.difference(w, tol)? {
                return Ok(Some(format!("item {k}: {d}")));
            }
        }
        Ok(None)
    }
}

impl Answer for f64 {
    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        Ok((!tol.close(*self, *want)).then(|| format!("yours is {self} and the reference's is {want}")))
    }
}

impl Answer for f32 {
    fn difference(&self, want: &Self, tol: Tolerance) -> Result<Option<String>> {
        (*self as f64).difference(&(*want as f64), tol)
    }
}

impl Answer for u32 {
    fn difference(&self, want: &Self, _tol: Tolerance) -> Result<Option<String>> {
        Ok((self != want).then(|| format!("yours is {self} and the reference's is {want}")))
    }
}

impl Answer for usize {
    fn difference(&self, want: &Self, _tol: Tolerance) -> Result<Option<String>> {
        Ok((self != want).then(|| format!("yours is {self} and the reference's is {want}")))
    }
}

impl Answer for bool {
    fn difference(&self, want: &Self, _tol: Tolerance) -> Result<Option<String>> {
        Ok((self != want).then(|| format!("yours is {self} and the reference's is {want}")))
    }
}
