//! Shape and dtype checks, and the one place the crate's error messages are built: every error
//! names the public module the user called, what it expected and what it got.

use candle_core::{DType, Error, Result, Tensor};

/// An error naming the module the user called: `"{module}: {message}"`.
pub fn error(module: &str, message: impl std::fmt::Display) -> Error {
    Error::Msg(format!("{module}: {message}"))
}

/// An error for a tensor of the wrong shape: `"{module}: expected {expected}, got [..]"`.
pub fn shape_error(module: &str, expected: impl std::fmt::Display, actual: &[usize]) -> Error {
    error(module, format!("expected {expected}, got {actual:?}"))
}

/// Re-labels an error from an inner layer or from candle with the public module's name (once:
/// an error that already starts with it is left as it is).
pub fn in_module<T>(module: &str, result: Result<T>) -> Result<T> {
    result.map_err(|e| {
        let message = e.to_string();
        if message.starts_with(module) { e } else { error(module, message) }
    })
}

/// The most elements one tensor the crate makes may hold (2^31, 8 GiB of float32): larger sizes
/// are an error rather than an allocation that overflows or aborts the process.
pub const MAX_ELEMENTS: usize = 1 << 31;

/// Checks that a tensor of these dims can be made: the product does not overflow and stays within
/// [`MAX_ELEMENTS`]. Returns the number of elements.
pub fn check_size(module: &str, dims: &[usize]) -> Result<usize> {
    let n = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(error(module, format!("a tensor of shape {dims:?} is too large (at most {MAX_ELEMENTS} elements)"))),
    }
}

/// Checks that `x` is a floating-point tensor ending in a dimension of `expected` (`what` names
/// it, e.g. `in_features`).
pub fn check_last_dim(module: &str, x: &Tensor, expected: usize, what: &str) -> Result<()> {
    check_float(module, x)?;
    match x.dims().last() {
        Some(&d) if d == expected => Ok(()),
        _ => Err(shape_error(module, format!("input of shape (..., {expected}) ({what})"), x.dims())),
    }
}

/// Checks a floating-point batch-first batch `(N, L, n_features)` and returns `(N, L)`.
pub fn check_batch(module: &str, x: &Tensor, n_features: usize) -> Result<(usize, usize)> {
    check_float(module, x)?;
    match x.dims() {
        &[n, l, f] if f == n_features => Ok((n, l)),
        d => Err(shape_error(module, format!("a batch of shape (N, L, {n_features})"), d)),
    }
}

/// Checks that `x` is a floating-point tensor (candle's integer kernels miss some ops).
pub fn check_float(module: &str, x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Ok(()),
        d => Err(error(module, format!("expected a floating-point tensor, got dtype {d:?}"))),
    }
}
