//! Shape and dtype checks, and the one place the crate's error messages are built. A check raises
//! an unlabelled [`invalid`] error (what it expected, what it got); the public function that
//! called it labels it once with its own name (`#[errors_as]`, which calls [`in_function`]), so
//! the user reads the module they called first.

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
/// (`#[errors_as]`) makes it read `Encoder: {message}`.
pub fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Cuda(Box::new(Refused(message.to_string())))
}

/// [`invalid`] for a tensor of the wrong shape: `expected {expected}, got [..]`.
pub fn invalid_shape(expected: impl std::fmt::Display, actual: &[usize]) -> Error {
    invalid(format!("expected {expected}, got {actual:?}"))
}

/// The typed hand-over from a check to its door: a refused input's message, waiting for the
/// public function's name. It travels in the one variant of candle's `Error` that boxes any
/// `std::error::Error` and prints it as it is (candle names it `Cuda` after its first use), so
/// the door finds it by its type, and a message nobody labelled still reads as it is.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Puts the public item `module` on top of an error from beneath it (an inner layer's, or
/// candle's), with candle's [`Error::context`]: the error then reads `module:` on its first line
/// and the inner error, unchanged, beneath it. An input refused at the door ([`invalid`]) becomes
/// `module: {message}`. An error `module` itself raised (`error`), or one already under
/// `module`, is left as it is; the names are compared whole, so `Transformer` never passes for
/// `TransformerEncoder`. This is what `#[errors_as(..)]` calls.
pub fn in_module<T>(module: &str, result: Result<T>) -> Result<T> {
    result.map_err(|e| match e {
        Error::Cuda(b) if b.is::<Refused>() => error(module, b),
        e if raised_by(&e, module) => e,
        e => e.context(ModuleLabel(module.to_string())),
    })
}

/// [`in_module`] under the name of the function `here` is defined in (the path of a function
/// item nested in it, `std::any::type_name_of_val(&here)`), as `#[errors_as]` without an
/// argument calls it: see [`label_of`].
pub fn in_function<T>(here: &str, result: Result<T>) -> Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => in_module(&label_of(here), Err(e)),
    }
}

/// The label of the function whose nested item has the path `here`
/// (`attention_zoo::models::seq2seq::Decoder::hidden::here`): a method's type and name
/// (`Decoder::hidden`), the type alone for `new` and `forward` (as the lecture writes
/// `Decoder(..)` for both, making one and calling it), a free function's name. Module paths go,
/// inside a type's parameters too; a generic impl's `<_>` goes.
pub fn label_of(here: &str) -> String {
    // the path's segments, split at `::` outside `<..>`
    let (mut segments, mut depth, mut start) = (vec![], 0usize, 0);
    let bytes = here.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                segments.push(&here[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    segments.push(&here[start..]);
    segments.pop(); // the nested item itself
    let function = segments.pop().unwrap_or(here);
    // an impl elsewhere than its type reads `<impl path::Type>` (`<impl Trait for Type>`), a
    // trait's method in its type's module `<Type as Trait>`
    let ty = segments.pop().map(|s| match s.strip_prefix("<impl ").and_then(|s| s.strip_suffix('>')) {
        Some(inner) => inner.rsplit_once(" for ").map_or(inner, |(_, ty)| ty),
        None => s.strip_prefix('<').and_then(|s| s.split_once(" as ")).map_or(s, |(t, _)| t),
    });
    let ty = ty
        .filter(|s| s.split('<').next().unwrap_or(s).rsplit("::").next().is_some_and(|t| t.starts_with(|c: char| c.is_ascii_uppercase())));
    let Some(ty) = ty else { return function.to_string() };
    let mut short = String::new();
    for word in ty.split_inclusive(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
        let (path, tail) = word.split_at(word.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).len());
        short.push_str(path.rsplit("::").next().unwrap_or(path));
        short.push_str(tail);
    }
    let ty = short.replace("<_>", "").replace("<_, _>", "");
    if function == "new" || function == "forward" { ty } else { format!("{ty}::{function}") }
}

/// `result.within(M::NAME)` is [`in_module`]`(M::NAME, result)` written after the call: the
/// label of a function whose name is known only at run time (a generic translator's model).
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
    use super::{error, in_function, in_module, invalid, label_of, same_tensor};
    use candle_core::{Device, Error, Tensor};

    #[test]
    fn a_label_is_the_type_and_method_the_item_is_nested_in() {
        let at = |p: &str| label_of(&format!("attention_zoo::models::seq2seq::{p}::here"));
        assert_eq!(at("Decoder::hidden"), "Decoder::hidden");
        assert_eq!(at("Decoder::new"), "Decoder");
        assert_eq!(at("Decoder::forward"), "Decoder");
        assert_eq!(at("create_mask"), "create_mask");
        assert_eq!(at("Translator<_>::fit"), "Translator::fit");
        assert_eq!(
            at("WithPe<attention_zoo::models::self_attention::layers::DecoderSelfAttn>::init_keys"),
            "WithPe<DecoderSelfAttn>::init_keys"
        );
        assert_eq!(label_of("create_mask::here"), "create_mask");
        // an impl in another module than its type, a trait's impl
        assert_eq!(at("terms::<impl attention_zoo::models::transformer::model::Transformer>::score_terms"), "Transformer::score_terms");
        assert_eq!(at("<impl attention_zoo::train::Translator<_>>::fit"), "Translator::fit");
        assert_eq!(at("<attention_zoo::nn::Linear as attention_zoo::nn::Module>::forward"), "Linear");
        assert_eq!(
            at("transformer::translate::<impl attention_zoo::models::Translate for attention_zoo::models::Transformer>::select_rows"),
            "Transformer::select_rows"
        );
    }

    #[test]
    fn a_refused_input_is_handed_over_by_its_type() {
        fn here() {}
        let refused: candle_core::Result<()> = Err(invalid("expected (N, L, 2), got [3]"));
        assert_eq!(refused.as_ref().unwrap_err().to_string(), "expected (N, L, 2), got [3]", "unlabelled, it reads as it is");
        assert_eq!(
            in_function(std::any::type_name_of_val(&here), refused).unwrap_err().to_string(),
            "a_refused_input_is_handed_over_by_its_type: expected (N, L, 2), got [3]"
        );
        // one label: an inner module's error keeps its own and gets the caller's above it
        let inner: candle_core::Result<()> = Err(error("Linear", "in_features must be positive"));
        assert_eq!(in_module("Encoder", inner).unwrap_err().to_string(), "Encoder:\nLinear: in_features must be positive");
        let twice = in_module("Encoder", in_module::<()>("Encoder", Err(invalid("bad"))));
        assert_eq!(twice.unwrap_err().to_string(), "Encoder: bad");
        // a message that merely looks unlabelled is not taken for a refused input
        let msg: candle_core::Result<()> = Err(Error::Msg("bad".into()));
        assert_eq!(in_module("Encoder", msg).unwrap_err().to_string(), "Encoder:\nbad");
    }

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
