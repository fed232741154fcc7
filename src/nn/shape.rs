//! Shape and dtype checks, and the one place the crate's error messages are built. A check raises
//! an unlabelled [`invalid`] error (what it expected, what it got); the public function that
//! called it labels it once with its own name (`#[errors_as("Encoder")]`, which calls
//! [`in_module`]), so the user reads the module they called first.

use candle_core::{DType, Error, Result, Tensor};

/// An error naming the module the user called: `"{module}: {message}"`.
pub fn error(module: &str, message: impl std::fmt::Display) -> Error {
    Error::Msg(format!("{module}: {message}"))
}

/// An error for a tensor of the wrong shape: `"{module}: expected {expected}, got [..]"`.
pub fn shape_error(module: &str, expected: impl std::fmt::Display, actual: &[usize]) -> Error {
    error(module, format!("expected {expected}, got {actual:?}"))
}

/// An input refused at a public function's door, before the function's name is put on it: the
/// checks below (`check_batch(x, d)?`) raise it, and the label the function puts on its errors
/// (`#[errors_as("Encoder")]`, or `.within("Encoder")`) makes it read `Encoder: {message}`.
pub fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Msg(format!("{UNLABELLED}{message}"))
}

/// [`invalid`] for a tensor of the wrong shape: `expected {expected}, got [..]`.
pub fn invalid_shape(expected: impl std::fmt::Display, actual: &[usize]) -> Error {
    invalid(format!("expected {expected}, got {actual:?}"))
}

/// What marks an [`invalid`] message as waiting for its module's name (an invisible word joiner,
/// so that a message nobody labelled still reads as it is).
const UNLABELLED: char = '\u{2060}';

/// Puts the public item `module` on top of an error from beneath it (an inner layer's, or
/// candle's), with candle's [`Error::context`]: the error then reads `module:` on its first line
/// and the inner error, unchanged, beneath it. An input refused at the door ([`invalid`]) becomes
/// `module: {message}`. An error `module` itself raised (`error`), or one already under
/// `module`, is left as it is; the names are compared whole, so `Transformer` never passes for
/// `TransformerEncoder`. This is what `#[errors_as(..)]` calls.
pub fn in_module<T>(module: &str, result: Result<T>) -> Result<T> {
    result.map_err(|e| match e {
        Error::Msg(m) if m.starts_with(UNLABELLED) => error(module, &m[UNLABELLED.len_utf8()..]),
        e if raised_by(&e, module) => e,
        e => e.context(ModuleLabel(module.to_string())),
    })
}

/// `result.within("Encoder")` is [`in_module`]`("Encoder", result)` written after the call: the
/// label of a function that cannot take `#[errors_as(..)]`, whose name is known only at run time
/// (a generic translator's `M::NAME`).
pub trait Within<T> {
    /// Puts `module` on top of this result's error, as [`in_module`] does.
    fn within(self, module: &str) -> Result<T>;
}

impl<T> Within<T> for Result<T> {
    fn within(self, module: &str) -> Result<T> {
        in_module(module, self)
    }
}

/// The context [`in_module`] adds: the public item's name.
struct ModuleLabel(String);

impl std::fmt::Display for ModuleLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:", self.0)
    }
}

/// Whether `e` is already labelled with `module` at its top: raised by it, or put under it.
fn raised_by(e: &Error, module: &str) -> bool {
    match e {
        Error::Msg(m) => m.strip_prefix(module).is_some_and(|rest| rest.starts_with(": ")),
        Error::Context { context, .. } => context.to_string().strip_prefix(module) == Some(":"),
        Error::WithBacktrace { inner, .. } => raised_by(inner, module),
        _ => false,
    }
}

/// The most elements one tensor the crate makes may hold (2^31, 8 GiB of float32): larger sizes
/// are an error rather than an allocation that overflows or aborts the process.
pub const MAX_ELEMENTS: usize = 1 << 31;

/// Checks that a tensor of these dims can be made: the product does not overflow and stays within
/// [`MAX_ELEMENTS`]. Returns the number of elements.
pub fn check_size(dims: &[usize]) -> Result<usize> {
    let n = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(invalid(format!("a tensor of shape {dims:?} is too large (at most {MAX_ELEMENTS} elements)"))),
    }
}

/// Checks that `x` is a floating-point tensor ending in a dimension of `expected` (`what` names
/// it, e.g. `in_features`).
pub fn check_last_dim(x: &Tensor, expected: usize, what: &str) -> Result<()> {
    check_float(x)?;
    match x.dims().last() {
        Some(&d) if d == expected => Ok(()),
        _ => Err(invalid_shape(format!("input of shape (..., {expected}) ({what})"), x.dims())),
    }
}

/// Checks a floating-point batch-first batch `(N, L, n_features)` and returns `(N, L)`.
pub fn check_batch(x: &Tensor, n_features: usize) -> Result<(usize, usize)> {
    check_float(x)?;
    match x.dims() {
        &[n, l, f] if f == n_features => Ok((n, l)),
        d => Err(invalid_shape(format!("a batch of shape (N, L, {n_features})"), d)),
    }
}

/// Checks that `x` is a floating-point tensor (candle's integer kernels miss some ops).
pub fn check_float(x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Ok(()),
        d => Err(invalid(format!("expected a floating-point tensor, got dtype {d:?}"))),
    }
}

/// Checks that an input has its module's weights' dtype: candle would say only "dtype mismatch
/// in matmul", naming neither the module nor the remedy.
pub fn check_input_dtype(x: &Tensor, weights: DType) -> Result<()> {
    if x.dtype() == weights {
        return Ok(());
    }
    Err(invalid(format!(
        "the input is {:?} and the weights are {weights:?}: convert the input with .to_dtype(DType::{weights:?})",
        x.dtype()
    )))
}

/// Checks that the tensors one operation combines share a dtype, naming each.
pub fn check_same_dtype(named: &[(&str, &Tensor)]) -> Result<()> {
    let Some((_, first)) = named.first() else { return Ok(()) };
    if named.iter().all(|(_, t)| t.dtype() == first.dtype()) {
        return Ok(());
    }
    let list: Vec<String> = named.iter().map(|(what, t)| format!("{what} {:?}", t.dtype())).collect();
    Err(invalid(format!("expected one dtype, got {}: convert them with .to_dtype", list.join(", "))))
}

/// Whether `a` and `b` are the same tensor: the same storage (by address, which stays unique
/// while both are alive) seen through the same layout. Unlike candle's tensor ids, which count
/// from one in every copy of candle (evcxr as published links one into each notebook cell), this cannot match
/// two different tensors.
pub(crate) fn same_tensor(a: &Tensor, b: &Tensor) -> bool {
    let (la, lb) = (a.layout(), b.layout());
    storage_address(a) == storage_address(b)
        && la.start_offset() == lb.start_offset()
        && la.dims() == lb.dims()
        && la.stride() == lb.stride()
}

/// The address of `t`'s storage, read under its lock and compared after it is released (two
/// read locks of one storage held at once can wait on each other behind a queued writer).
pub(crate) fn storage_address(t: &Tensor) -> usize {
    let (storage, _) = t.storage_and_layout();
    std::ptr::from_ref(&*storage).addr()
}

#[cfg(test)]
mod tests {
    use super::same_tensor;
    use candle_core::{Device, Tensor};

    #[test]
    fn same_tensor_is_the_same_storage_and_layout() {
        let a = Tensor::arange(0f32, 6.0, &Device::Cpu).unwrap().reshape((2, 3)).unwrap();
        let b = Tensor::arange(0f32, 6.0, &Device::Cpu).unwrap().reshape((2, 3)).unwrap();
        assert!(same_tensor(&a, &a.clone()));
        assert!(!same_tensor(&a, &b), "equal values, another storage");
        assert!(!same_tensor(&a, &a.narrow(0, 0, 1).unwrap()), "the same storage, another layout");
        assert!(!same_tensor(&a, &a.t().unwrap()), "transposed");
    }
}
