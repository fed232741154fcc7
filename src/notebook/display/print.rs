//! Tensors as text, exactly as PyTorch prints them: one number style and width for the whole
//! tensor, rows wrapped at 80 columns, large tensors summarised.

use crate::notebook::display::read::read_values;
use candle_core::{DType, Result, Tensor};

/// PyTorch's defaults: 4 decimals, summarise above 1000 elements keeping 3 at each edge.
pub const PRECISION: usize = 4;

/// PyTorch summarises tensors of more elements than this.
pub const THRESHOLD: usize = 1000;

/// How many items a summarised dimension keeps at each edge.
pub const EDGE_ITEMS: usize = 3;

/// How the numbers of one tensor are written: chosen once for the whole tensor, as PyTorch does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberStyle {
    /// Whole numbers: `1.`, `-3.`
    Int,
    /// Fixed point with [`PRECISION`] decimals.
    Fixed,
    /// Scientific notation, `1.2340e-05`.
    Sci,
}

/// Picks the style PyTorch's formatter would pick for these values.
pub fn number_style(values: &[f64], is_float: bool) -> NumberStyle {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && *v != 0.0).map(f64::abs).collect();
    if finite.is_empty() {
        // Nothing but zeros, NaNs and infinities: PyTorch keeps its integer style.
        return NumberStyle::Int;
    }
    let max = finite.iter().cloned().fold(f64::MIN, f64::max);
    let min = finite.iter().cloned().fold(f64::MAX, f64::min);
    let whole = values.iter().filter(|v| v.is_finite()).all(|v| v.fract() == 0.0);
    if whole || !is_float {
        if is_float && (max / min > 1000.0 || max > 1e8) { NumberStyle::Sci } else { NumberStyle::Int }
    } else if max / min > 1000.0 || max > 1e8 || min < 1e-4 {
        NumberStyle::Sci
    } else {
        NumberStyle::Fixed
    }
}

/// One number in a style; integers of an integer tensor have no trailing dot.
pub fn format_number(v: f64, style: NumberStyle, is_float: bool) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    match style {
        NumberStyle::Int if is_float => format!("{v:.0}."),
        NumberStyle::Int => format!("{v:.0}"),
        NumberStyle::Fixed => format!("{v:.PRECISION$}"),
        NumberStyle::Sci => {
            let s = format!("{v:.PRECISION$e}");
            // Rust writes 1.2340e-5; Python writes 1.2340e-05.
            match s.split_once('e') {
                Some((m, e)) => {
                    let (sign, digits) = if let Some(d) = e.strip_prefix('-') { ('-', d) } else { ('+', e) };
                    format!("{m}e{sign}{digits:0>2}")
                }
                None => s,
            }
        }
    }
}

pub(crate) fn is_float(t: &Tensor) -> bool {
    t.dtype().is_float()
}

/// Indices kept along a dimension of size `n`: all of them, or the edges with `None` for the gap.
pub(crate) fn kept(n: usize, summarise: bool) -> Vec<Option<usize>> {
    if summarise && n > 2 * EDGE_ITEMS {
        let mut v: Vec<Option<usize>> = (0..EDGE_ITEMS).map(Some).collect();
        v.push(None);
        v.extend((n - EDGE_ITEMS..n).map(Some));
        v
    } else {
        (0..n).map(Some).collect()
    }
}

/// The values PyTorch would print (the kept edges only, when summarising), for choosing a style.
pub(crate) fn shown_values(dims: &[usize], flat: &[f64], summarise: bool) -> Vec<f64> {
    if !summarise {
        return flat.to_vec();
    }
    let mut out = vec![];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((d, off)) = stack.pop() {
        if d == dims.len() {
            out.push(flat[off]);
            continue;
        }
        let stride: usize = dims[d + 1..].iter().product();
        for i in kept(dims[d], true).into_iter().flatten() {
            stack.push((d + 1, off + i * stride));
        }
    }
    out
}

/// How the numbers of a shown tensor are written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ValueFormat {
    /// PyTorch's own choice for the dtype and values.
    #[default]
    Auto,
    /// A mask as PyTorch prints a `bool` tensor: `True`/`False` (the tensor must hold only 0 and 1).
    Bool,
    /// Fixed point with this many decimals, never scientific: PyTorch's
    /// `torch.set_printoptions(precision=n, sci_mode=False)`.
    Decimals(usize),
}

/// Writes one value as text.
pub(crate) type ValueWriter = Box<dyn Fn(f64) -> String>;

/// Writes one value of a tensor in a format chosen once for the whole tensor from the values
/// it shows: `(text of a value, width of the widest)`.
pub(crate) fn value_writer(who: &str, shown: &[f64], float: bool, format: ValueFormat) -> Result<(ValueWriter, usize)> {
    match format {
        ValueFormat::Auto => {
            let style = number_style(shown, float);
            let width = shown
                .iter()
                .filter(|v| !float || (v.is_finite() && **v != 0.0))
                .map(|v| format_number(*v, style, float).len())
                .max()
                .unwrap_or(1);
            Ok((Box::new(move |v| format_number(v, style, float)), width))
        }
        ValueFormat::Bool => {
            if let Some(v) = shown.iter().find(|v| **v != 0.0 && **v != 1.0) {
                candle_core::bail!("{who}: a boolean display needs a mask of 0s and 1s, and the tensor holds {v}")
            }
            let width = if shown.contains(&0.0) { 5 } else { 4 };
            Ok((Box::new(|v| if v == 1.0 { "True".into() } else { "False".into() }), width))
        }
        ValueFormat::Decimals(n) => {
            if n > 16 {
                candle_core::bail!("{who}: {n} decimals asked for; f32 and f64 values hold at most 16")
            }
            // PyTorch's `set_printoptions(precision=n, sci_mode=False)`: fixed point, whole numbers
            // of a float tensor still written `1.`
            let style = match number_style(shown, float) {
                NumberStyle::Sci if !shown.iter().filter(|v| v.is_finite()).all(|v| v.fract() == 0.0) => NumberStyle::Fixed,
                NumberStyle::Sci => NumberStyle::Int,
                other => other,
            };
            let text = move |v: f64| match style {
                NumberStyle::Fixed if v.is_finite() => format!("{v:.n$}"),
                _ => format_number(v, style, float),
            };
            let width = shown.iter().filter(|v| !float || (v.is_finite() && **v != 0.0)).map(|v| text(*v).len()).max().unwrap_or(1);
            Ok((Box::new(text), width))
        }
    }
}

/// PyTorch's line width for printing.
pub const LINE_WIDTH: usize = 80;

/// The text PyTorch prints for a tensor, `tensor([[ 0.3105, -0.5263]])`: one number style and
/// one width for the whole tensor, rows wrapped at 80 columns, large tensors summarised.
/// Dtypes candle cannot convert (float and integer dtypes are read; others are refused) are an error.
pub fn tensor_to_text(t: &Tensor) -> Result<String> {
    tensor_to_text_as(t, ValueFormat::Auto)
}

/// [`tensor_to_text`] with the numbers written in `format`: `tensor([[ True, False]])` for
/// [`ValueFormat::Bool`], as PyTorch prints a boolean mask.
pub fn tensor_to_text_as(t: &Tensor, format: ValueFormat) -> Result<String> {
    let (dims, flat) = read_values("tensor_to_text", t)?;
    let float = is_float(t);
    let summarise = flat.len() > THRESHOLD;
    let shown = shown_values(&dims, &flat, summarise);
    let (write, width) = value_writer("tensor_to_text", &shown, float, format)?;
    let fmt = |v: f64| {
        let s = write(v);
        format!("{s:>width$}")
    };
    let body = if dims.is_empty() {
        fmt(flat.first().copied().unwrap_or(f64::NAN))
    } else {
        text_block(&dims, &flat, 0, 0, 7, summarise, width, &fmt)
    };
    let suffix = match (format, t.dtype()) {
        (ValueFormat::Bool, _) | (_, DType::F32 | DType::I64) => String::new(),
        (_, DType::U8) => ", dtype=torch.uint8".into(),
        (_, DType::U32) => ", dtype=torch.uint32".into(),
        (_, DType::F64) => ", dtype=torch.float64".into(),
        (_, DType::F16) => ", dtype=torch.float16".into(),
        (_, DType::BF16) => ", dtype=torch.bfloat16".into(),
        (_, DType::I16) => ", dtype=torch.int16".into(),
        (_, DType::I32) => ", dtype=torch.int32".into(),
        (_, DType::F8E4M3) => ", dtype=torch.float8_e4m3fn".into(),
        (_, d) => format!(", dtype={d:?}"),
    };
    Ok(format!("tensor({body}{suffix})"))
}

/// One bracketed block: a vector wrapped at the line width, or sub-blocks one per line
/// (blank lines between blocks of rank 3 and up), with `...` where values are left out.
#[allow(clippy::too_many_arguments)]
fn text_block(
    dims: &[usize],
    flat: &[f64],
    d: usize,
    off: usize,
    indent: usize,
    summarise: bool,
    width: usize,
    fmt: &dyn Fn(f64) -> String,
) -> String {
    let stride: usize = dims[d + 1..].iter().product();
    let items = kept(dims[d], summarise);
    if d + 1 == dims.len() {
        let data: Vec<String> = items.iter().map(|i| i.map_or(" ...".to_string(), |i| fmt(flat[off + i * stride]))).collect();
        let per_line = ((LINE_WIDTH.saturating_sub(indent)) / (width + 2)).max(1);
        let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
        return format!("[{}]", lines.join(&format!(",\n{}", " ".repeat(indent + 1))));
    }
    let parts: Vec<String> = items
        .iter()
        .map(|i| match i {
            None => "...".to_string(),
            Some(i) => text_block(dims, flat, d + 1, off + i * stride, indent + 1, summarise, width, fmt),
        })
        .collect();
    let sep = format!(",{}{}", "\n".repeat(dims.len() - d - 1), " ".repeat(indent + 1));
    format!("[{}]", parts.join(&sep))
}
