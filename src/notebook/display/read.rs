//! Reading a tensor's values for display, only through conversions candle does reliably.
//!
//! candle 0.11.1 converts the float types, `U8`, `U32`, `I16`, `I32` and `I64` to `F64` with one
//! plain cast each. `F8E4M3` to `F64` never returns (its `to_f64` calls itself), so it is read
//! through `F32` (exact). The dummy types (`F6E2M3`, `F6E3M2`, `F4`, `F8E8M0`) hold raw bytes that
//! no conversion reads: those are an error naming the display.

use crate::nn::in_module;
use crate::nn::shape::{error, invalid};
use candle_core::{DType, Result, Tensor};

/// Whether the notebook can read values of this dtype.
pub fn is_readable(dtype: DType) -> bool {
    use DType::*;
    matches!(dtype, F16 | BF16 | F32 | F64 | F8E4M3 | U8 | U32 | I16 | I32 | I64)
}

/// Checks that the notebook can read `t`'s values: an error naming the dtype otherwise.
pub fn check_readable(t: &Tensor) -> Result<()> {
    if is_readable(t.dtype()) {
        Ok(())
    } else {
        Err(invalid(format!(
            "cannot read a tensor of dtype {:?} (candle cannot convert it to f64); expected F16, BF16, F32, F64, F8E4M3, U8, U32, I16, I32 or I64",
            t.dtype()
        )))
    }
}

/// `t` as an `F64` tensor, converted only the reliable way (see the module documentation); its
/// errors name `module`, the public function reading it.
pub(crate) fn to_f64(module: &str, t: &Tensor) -> Result<Tensor> {
    in_module(module, check_readable(t))?;
    let converted = match t.dtype() {
        DType::F64 => Ok(t.clone()),
        DType::F8E4M3 => t.to_dtype(DType::F32).and_then(|t| t.to_dtype(DType::F64)),
        _ => t.to_dtype(DType::F64),
    };
    converted.map_err(|e| error(module, format!("could not read a tensor of dtype {:?}: {e}", t.dtype())))
}

/// A tensor's dims and its values as f64 in row-major order, read by `module`.
pub(crate) fn read_values(module: &str, t: &Tensor) -> Result<(Vec<usize>, Vec<f64>)> {
    let dims = t.dims().to_vec();
    let flat = to_f64(module, t)?
        .flatten_all()
        .and_then(|t| t.to_vec1::<f64>())
        .map_err(|e| error(module, format!("could not read a tensor of shape {dims:?}: {e}")))?;
    Ok((dims, flat))
}

/// The rows of a 2-D tensor as f64, read by `module` (an error naming it for any other rank).
pub(crate) fn read_matrix(module: &str, t: &Tensor, what: &str) -> Result<Vec<Vec<f64>>> {
    match t.dims() {
        &[rows, cols] => {
            let (_, flat) = read_values(module, t)?;
            Ok((0..rows).map(|r| flat[r * cols..(r + 1) * cols].to_vec()).collect())
        }
        d => Err(crate::nn::shape::shape_error(module, format!("{what} of rank 2"), d)),
    }
}
