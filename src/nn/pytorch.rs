//! Weights from PyTorch: a `state_dict` written by `torch.save(model.state_dict(), path)`, loaded
//! into any of our modules by name with [`Walk::load_pytorch`](super::Walk::load_pytorch):
//!
//! ```no_run
//! # use attention_zoo::prelude::*;
//! # fn main() -> Result<()> {
//! let enc = Encoder::new(2, 2)?;
//! enc.load_pytorch("encoder.pt")?; // saved by `torch.save(encoder.state_dict(), "encoder.pt")`
//! # Ok(())
//! # }
//! ```
//!
//! Our modules name their parameters as PyTorch's `state_dict` does, so a file written from the
//! lecture's PyTorch class loads into the same class here. The rules:
//!
//! - **Parameters**: every parameter of the module must be in the file, under its name, with its
//!   shape. float64, float16 and bfloat16 tensors are converted to float32; integer and bool
//!   tensors are refused.
//! - **Buffers** ([`Walk::named_buffers`](super::Walk::named_buffers)): tensors PyTorch keeps
//!   in the `state_dict` beside the parameters (`register_buffer`), such as a positional
//!   encoding's `pe`. Ours are computed, not learned, so a buffer in the file is checked, not
//!   loaded: it must have our shape and our values within [`BUFFER_TOLERANCE`]. A buffer missing
//!   from the file is fine (PyTorch leaves out buffers registered with `persistent=False`).
//! - **Nothing else**: a tensor in the file that is neither is unexpected.
//! - **All or nothing**: every problem (missing, unexpected, wrongly shaped, not floating-point,
//!   a buffer that differs) is listed in one error that names the file, and the module is left
//!   as it was. It is changed only when all checks pass.
//!
//! The file must be in PyTorch's zip format (what `torch.save` writes since PyTorch 1.6); the
//! tensors are read by candle (`candle_core::pickle`). Each tensor's entry in the pickle and the
//! size of its data are checked before candle reads it: a malformed entry, or a shape larger than
//! the data stored for it, is an error naming the file and the tensor, never a panic or an
//! allocation of the declared size.

use super::param::Param;
use super::pickle_entry::malformed;
use super::pickle_scan::check_copies;
use super::shape::error;
use candle_core::pickle::{Object, PthTensors, Stack, TensorInfo};
use candle_core::{DType, Error, Result, Tensor};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const MODULE: &str = "load_pytorch";

/// The largest difference allowed between a buffer in the file and ours: both sides compute it
/// in float32, with sines and cosines that may differ in the last bit.
pub const BUFFER_TOLERANCE: f64 = 1e-5;

/// What the file holds under one name.
enum Entry {
    /// A tensor candle can read: dtype, shape and where its data is.
    Tensor(TensorInfo),
    /// A tensor candle cannot read (int32, int16, int8, bool, complex): its dtype, in words.
    Unreadable(String),
}

/// The file's tensors, in the file's order, and the names of its other entries (a checkpoint
/// dict holds dicts and numbers rather than tensors).
struct Contents {
    tensors: Vec<(String, Entry)>,
    others: Vec<String>,
}

/// The dtype of a tensor in the file, as PyTorch names it.
fn torch_dtype(dtype: DType) -> String {
    match dtype {
        DType::U8 => "uint8".into(),
        DType::I64 => "int64".into(),
        DType::F32 => "float32".into(),
        DType::F64 => "float64".into(),
        DType::F16 => "float16".into(),
        DType::BF16 => "bfloat16".into(),
        d => d.as_str().into(),
    }
}

/// An error's message without the backtrace candle attaches when `RUST_BACKTRACE` is set.
fn message(e: Error) -> String {
    match e {
        Error::WithBacktrace { inner, .. } => inner.to_string(),
        e => e.to_string(),
    }
}

/// Names PyTorch's storage class (candle's error says `unsupported storage type IntStorage`).
fn storage_dtype(e: Error) -> String {
    let message = message(e);
    let class = message.rsplit(' ').next().unwrap_or("");
    let known = [
        ("IntStorage", "int32"),
        ("ShortStorage", "int16"),
        ("CharStorage", "int8"),
        ("BoolStorage", "bool"),
        ("ComplexFloatStorage", "complex64"),
        ("ComplexDoubleStorage", "complex128"),
    ];
    match known.iter().find(|(c, _)| *c == class) {
        Some((_, dtype)) => dtype.to_string(),
        None => format!("unreadable ({message})"),
    }
}

/// Lists what the file holds, without reading any tensor's data.
fn contents(path: &Path) -> Result<Contents> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| error(MODULE, format!("cannot read {shown}: {e}")))?;
    let not_torch = |why: String| error(MODULE, format!("{shown} is not a file written by torch.save (PyTorch's zip format): {why}"));
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| not_torch(e.to_string()))?;
    let pkls: Vec<String> = zip.file_names().filter_map(|n| n.ok()).filter(|n| n.ends_with("data.pkl")).map(|n| n.into_owned()).collect();
    // candle reads the tensors of every data.pkl in the archive; torch.save writes one. A second
    // would hold tensors none of the checks below has seen.
    let pkl = match pkls.as_slice() {
        [] => return Err(not_torch("the archive has no data.pkl".into())),
        [pkl] => pkl.clone(),
        more => return Err(not_torch(format!("the archive has {} data.pkl, torch.save writes one", more.len()))),
    };
    let mut stack = Stack::empty();
    let entry = zip.by_name(&pkl).map_err(|e| not_torch(e.to_string()))?;
    let pickle = checked_bytes(entry).map_err(|e| error(MODULE, format!("{shown} is damaged: `{pkl}` {e}")))?;
    check_copies(&pickle).map_err(|why| error(MODULE, format!("{shown}: its pickle `{pkl}` is refused: {why}")))?;
    stack.read_loop(&mut pickle.as_slice()).map_err(|e| not_torch(message(e)))?;
    let Object::Dict(mut items) = stack.finalize().map_err(|e| not_torch(message(e)))? else {
        return Err(error(MODULE, format!("{shown} does not hold a state_dict (tensors by name): save `model.state_dict()`")));
    };
    // Python pickles a dict's items in batches of 1000 (SETITEMS); candle 0.11 pushes each batch
    // in reverse. Reversing each run of 1000 restores the file's order (entries added after the
    // items, such as `_metadata`, are skipped below).
    items.chunks_mut(1000).for_each(|batch| batch.reverse());
    let dir = PathBuf::from(pkl.strip_suffix(".pkl").unwrap_or(&pkl));
    let mut out = Contents { tensors: vec![], others: vec![] };
    let file_len = zip_len(path)?;
    for (key, value) in items {
        let Object::Unicode(name) = &key else { continue };
        let name = name.clone();
        let bad = |why: String| error(MODULE, format!("{shown}: `{name}` is not a tensor as torch.save writes it: {why}"));
        malformed(&value).map_err(bad)?;
        match guarded(|| value.into_tensor_info(key, &dir)).map_err(|e| bad(message(e)))? {
            Ok(Some(info)) => {
                fits(&info, &mut zip, file_len).map_err(bad)?;
                out.tensors.push((name, Entry::Tensor(info)))
            }
            Ok(None) if name == "_metadata" => {} // PyTorch's version record of each sub-module
            Ok(None) => out.others.push(name),
            Err(e) => out.tensors.push((name, Entry::Unreadable(storage_dtype(e)))),
        }
    }
    Ok(out)
}

/// The file's length in bytes: no entry of the archive can hold more.
fn zip_len(path: &Path) -> Result<u64> {
    let len = std::fs::metadata(path).map_err(|e| error(MODULE, format!("cannot read {}: {e}", path.display())))?;
    Ok(len.len())
}

/// Checks that a tensor's data, as its shape and dtype declare it, is in the archive: candle
/// allocates the whole tensor from the declared shape before it reads a byte, so a shape far
/// larger than the data would have it ask for any amount of memory.
fn fits<R: std::io::Read + std::io::Seek>(
    info: &TensorInfo,
    zip: &mut zip::ZipArchive<R>,
    file_len: u64,
) -> std::result::Result<(), String> {
    let dims = info.layout.dims();
    let bytes = dims.iter().try_fold(info.dtype.size_in_bytes() as u64, |n, &d| n.checked_mul(d as u64));
    let need = bytes.and_then(|b| b.checked_add(info.layout.start_offset() as u64));
    let need = need.ok_or_else(|| format!("its shape {dims:?} is too large to be stored"))?;
    let data = zip.by_name(&info.path).map_err(|e| format!("its data `{}` is not in the archive ({e})", info.path))?;
    // The sizes in the archive's index are declared too: an entry cannot hold more than the file.
    let stored = if data.compressed_size() > file_len { 0 } else { data.size() };
    if need > stored {
        return Err(format!(
            "its shape {dims:?} and dtype {} take {need} bytes (with its offset), its data `{}` holds {stored}",
            torch_dtype(info.dtype),
            info.path
        ));
    }
    checked_bytes(data).map(|_| ()).map_err(|e| format!("its data `{}` is damaged: {e}", info.path))
}

/// An entry's bytes, read to its end so that the zip reader compares them with the CRC-32 the
/// archive recorded: candle reads only the bytes a tensor needs, which skips that check, and a
/// changed byte would load as another value. A CRC of 0 means none was recorded
/// (`torch.serialization.set_crc32_options(False)`): those entries are read unchecked.
fn checked_bytes<R: std::io::Read>(mut entry: zip::read::ZipFile<'_, R>) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read;
    let mut bytes = vec![];
    let read = if entry.crc32() == 0 {
        let size = entry.size();
        (&mut entry).take(size).read_to_end(&mut bytes)
    } else {
        entry.read_to_end(&mut bytes)
    };
    read.map_err(|e| format!("does not match the checksum the archive recorded for it ({e})"))?;
    Ok(bytes)
}

/// Runs a call into candle's pickle reader and turns a panic into an error. [`malformed`] and
/// [`fits`] check what candle 0.11 would panic or abort on before any call; this is the net
/// under them for a malformed pickle that reaches candle by another way (the default panic
/// hook still prints the panic's message on stderr).
fn guarded<T>(call: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).map_err(|panic| {
        let why = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
        Error::Msg(format!("candle's pickle reader panicked: {}", why.unwrap_or_else(|| "no message".into())))
    })
}

/// Opens the file's tensors for reading (after [`contents`] has listed them).
fn open(path: &Path) -> Result<PthTensors> {
    let what = |e: Error| error(MODULE, format!("cannot read {}: {}", path.display(), message(e)));
    guarded(|| PthTensors::new(path, None)).map_err(what)?.map_err(what)
}

/// Reads one tensor the listing found, in its own dtype.
fn get(pth: &PthTensors, path: &Path, name: &str) -> Result<Tensor> {
    let what = |e: Error| error(MODULE, format!("{}: cannot read `{name}`: {}", path.display(), message(e)));
    guarded(|| pth.get(name)).map_err(what)?.map_err(what)?.ok_or_else(|| what(Error::Msg("not in the file".into())))
}

/// Every tensor of a `.pt` state_dict, in the file's order and its own dtype (to look at what a
/// file holds before loading it).
///
/// # Loading into a module
///
///  Weights from PyTorch: a `state_dict` written by `torch.save(model.state_dict(), path)`, loaded
///  into any of our modules by name with [`Walk::load_pytorch`](super::Walk::load_pytorch):
///
///  ```no_run
///  # use attention_zoo::prelude::*;
///  # fn main() -> Result<()> {
///  let enc = Encoder::new(2, 2)?;
///  enc.load_pytorch("encoder.pt")?; // saved by `torch.save(encoder.state_dict(), "encoder.pt")`
///  # Ok(())
///  # }
///  ```
///
///  Our modules name their parameters as PyTorch's `state_dict` does, so a file written from the
///  lecture's PyTorch class loads into the same class here. The rules:
///
///  - **Parameters**: every parameter of the module must be in the file, under its name, with its
///    shape. float64, float16 and bfloat16 tensors are converted to float32; integer and bool
///    tensors are refused.
///  - **Buffers** ([`Walk::named_buffers`](super::Walk::named_buffers)): tensors PyTorch keeps
///    in the `state_dict` beside the parameters (`register_buffer`), such as a positional
///    encoding's `pe`. Ours are computed, not learned, so a buffer in the file is checked, not
///    loaded: it must have our shape and our values within [`BUFFER_TOLERANCE`]. A buffer missing
///    from the file is fine (PyTorch leaves out buffers registered with `persistent=False`).
///  - **Nothing else**: a tensor in the file that is neither is unexpected.
///  - **All or nothing**: every problem (missing, unexpected, wrongly shaped, not floating-point,
///    a buffer that differs) is listed in one error that names the file, and the module is left
///    as it was. It is changed only when all checks pass.
///
///  The file must be in PyTorch's zip format (what `torch.save` writes since PyTorch 1.6); the
///  tensors are read by candle (`candle_core::pickle`).
pub fn read_pytorch<P: AsRef<Path>>(path: P) -> Result<Vec<(String, Tensor)>> {
    let listed = check_readable(path.as_ref())?;
    let path = path.as_ref();
    let pth = open(path)?;
    listed.tensors.iter().map(|(name, _)| Ok((name.clone(), get(&pth, path, name)?))).collect()
}

/// Lists the file's tensors (see [`contents`]) and checks that candle can read each one.
fn check_readable(path: &Path) -> Result<Contents> {
    let listed = contents(path)?;
    if let Some((name, Entry::Unreadable(d))) = listed.tensors.iter().find(|(_, e)| matches!(e, Entry::Unreadable(_))) {
        return Err(error(MODULE, format!("{}: `{name}` is {d}, which candle cannot read", path.display())));
    }
    Ok(listed)
}

/// The checks of one named tensor against what the module expects: dtype and shape.
fn check(problems: &mut Vec<String>, name: &str, entry: &Entry, expected: &[usize]) {
    match entry {
        Entry::Unreadable(d) => problems.push(format!("not floating-point: `{name}` is {d}")),
        Entry::Tensor(info) => {
            if !info.dtype.is_float() {
                problems.push(format!("not floating-point: `{name}` is {}", torch_dtype(info.dtype)));
            }
            if info.layout.dims() != expected {
                problems.push(format!("wrong shape: `{name}` expected {expected:?}, found {:?}", info.layout.dims()));
            }
        }
    }
}

/// Loads a `.pt` state_dict into `params` by name after checking it against them and against
/// `buffers` (the module's [`named_parameters`](super::Walk::named_parameters) and
/// [`named_buffers`](super::Walk::named_buffers)); see the rules above.
pub fn load_pytorch_into(path: &Path, params: &[(String, Param)], buffers: &[(String, Tensor)]) -> Result<()> {
    for (p, t) in check_state_dict(path, params, buffers)? {
        p.set(&t)?;
    }
    Ok(())
}

/// Checks a `.pt` state_dict against `params` and `buffers` and reads it: each parameter with
/// its value in float32, or every problem in one error.
fn check_state_dict<'a>(path: &Path, params: &'a [(String, Param)], buffers: &[(String, Tensor)]) -> Result<Vec<(&'a Param, Tensor)>> {
    let listed = contents(path)?;
    let in_file: HashMap<&str, &Entry> = listed.tensors.iter().map(|(n, e)| (n.as_str(), e)).collect();
    let mut problems = vec![];
    for (name, p) in params {
        match in_file.get(name.as_str()) {
            None => problems.push(format!("missing: `{name}`, expected shape {:?}", p.dims())),
            Some(entry) => check(&mut problems, name, entry, &p.dims()),
        }
    }
    for (name, b) in buffers {
        if let Some(entry) = in_file.get(name.as_str()) {
            check(&mut problems, name, entry, b.dims());
        }
    }
    let known: HashSet<&str> = params.iter().map(|(n, _)| n.as_str()).chain(buffers.iter().map(|(n, _)| n.as_str())).collect();
    for (name, entry) in &listed.tensors {
        if !known.contains(name.as_str()) {
            let what = match entry {
                Entry::Tensor(info) => format!("shape {:?}, {}", info.layout.dims(), torch_dtype(info.dtype)),
                Entry::Unreadable(d) => d.clone(),
            };
            problems.push(format!("unexpected: `{name}` ({what})"));
        }
    }
    let pth = if problems.is_empty() { Some(open(path)?) } else { None };
    let mut values = Vec::with_capacity(params.len());
    if let Some(pth) = &pth {
        for (name, p) in params {
            values.push((p, get(pth, path, name)?.to_dtype(DType::F32)?));
        }
        for (name, ours) in buffers.iter().filter(|(n, _)| in_file.contains_key(n.as_str())) {
            let theirs = get(pth, path, name)?.to_dtype(DType::F32)?;
            let diff = match ours.elem_count() {
                0 => 0.0,
                _ => (&theirs - ours.to_dtype(DType::F32)?)?.abs()?.flatten_all()?.max(0)?.to_scalar::<f32>()? as f64,
            };
            if diff.is_nan() || diff > BUFFER_TOLERANCE {
                problems.push(format!("buffer differs: `{name}` is computed here and differs from the file's by {diff:e}"));
            }
        }
    }
    if !problems.is_empty() {
        let mut message = format!("{} does not fit the model, nothing was loaded:\n  {}", path.display(), problems.join("\n  "));
        if listed.tensors.is_empty() && !listed.others.is_empty() {
            let others = listed.others.join(", ");
            message += &format!(
                "\n  (the file holds no tensors but {others}: save the state_dict itself, `torch.save(model.state_dict(), path)`)"
            );
        }
        return Err(error(MODULE, message));
    }
    Ok(values)
}
