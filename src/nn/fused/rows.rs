//! Picking rows of a tensor along its first dimension: what a decoder does to its state when
//! sentences finish or beams are reordered, at every step.

use super::in_place::{is_f32_in_place, with_f32};
use candle_core::{DType, Result, Tensor};

/// `t.index_select(rows, 0)` outside the graph: the rows of `t` along its first dimension that
/// `rows` names, in that order, repeats allowed, as a tensor with no backward pass.
///
/// For decoders' states: a search does not back-propagate, and a state that kept its graph would
/// keep every earlier step's state alive with it. A contiguous float32 CPU tensor is gathered
/// with one copy per row into a fresh buffer; candle's `index_select` first fills its output with
/// zeros, then copies (for a beam search's encoder states, the zero fill alone was a twelfth of a
/// step). Other tensors (a strided view made contiguous first), and ids out of range (candle's
/// error), go through `index_select`.
///
/// # Shapes
/// - `t`: `(N, ...)`; `rows`: `(K,)` ids below `N`; returns `(K, ...)`
pub(crate) fn index_rows(t: &Tensor, rows: &Tensor) -> Result<Tensor> {
    let selected = || Ok(t.contiguous()?.index_select(rows, 0)?.detach());
    let n = match t.dims().first() {
        Some(&n) if rows.dtype() == DType::U32 && rows.rank() == 1 && is_f32_in_place(t) => n,
        _ => return selected(),
    };
    let ids = rows.to_vec1::<u32>()?;
    if ids.iter().any(|&i| i as usize >= n) {
        return selected();
    }
    let width = t.elem_count().checked_div(n).unwrap_or(0);
    let gathered = with_f32(t, |values| {
        let mut out = Vec::with_capacity(ids.len() * width);
        for &i in &ids {
            let start = i as usize * width;
            out.extend_from_slice(&values[start..start + width]);
        }
        out
    });
    match gathered {
        Some(out) => {
            let mut dims = t.dims().to_vec();
            dims[0] = ids.len();
            Tensor::from_vec(out, dims, t.device())
        }
        None => selected(),
    }
}

#[cfg(test)]
mod tests {
    use super::index_rows;
    use candle_core::{DType, Device, Tensor, Var};

    fn same(a: &Tensor, b: &Tensor) {
        assert_eq!(a.dims(), b.dims());
        assert_eq!(a.dtype(), b.dtype());
        let flat = |t: &Tensor| t.to_dtype(DType::F64).unwrap().flatten_all().unwrap().to_vec1::<f64>().unwrap();
        assert_eq!(flat(a), flat(b));
    }

    #[test]
    fn equals_index_select_for_every_kind_of_tensor() {
        let dev = Device::Cpu;
        let t = Tensor::arange(0f32, 24.0, &dev).unwrap().reshape((4, 3, 2)).unwrap();
        let rows = Tensor::new(&[3u32, 0, 0, 2], &dev).unwrap();
        for x in [
            t.clone(),
            t.narrow(0, 1, 3).unwrap().narrow(1, 0, 3).unwrap(),
            t.transpose(1, 2).unwrap(),
            t.to_dtype(DType::U8).unwrap(),
            Var::from_tensor(&t).unwrap().as_tensor().clone(),
        ] {
            let r = if x.dim(0).unwrap() == 4 { rows.clone() } else { Tensor::new(&[2u32, 0], &dev).unwrap() };
            same(&index_rows(&x, &r).unwrap(), &x.contiguous().unwrap().index_select(&r, 0).unwrap());
        }
        let none = Tensor::zeros(0, DType::U32, &dev).unwrap();
        same(&index_rows(&t, &none).unwrap(), &t.index_select(&none, 0).unwrap());
        let empty = Tensor::zeros((0, 5), DType::F32, &dev).unwrap();
        assert_eq!(index_rows(&empty, &none).unwrap().dims(), [0, 5]);
    }

    #[test]
    fn ids_out_of_range_are_candles_error_and_the_rows_leave_the_graph() {
        let dev = Device::Cpu;
        let t = Tensor::arange(0f32, 6.0, &dev).unwrap().reshape((3, 2)).unwrap();
        assert!(index_rows(&t, &Tensor::new(&[3u32], &dev).unwrap()).is_err());
        let v = Var::from_tensor(&t).unwrap();
        for x in [v.as_tensor().clone(), (v.as_tensor() * 2.0).unwrap(), v.as_tensor().to_dtype(DType::F64).unwrap()] {
            let picked = index_rows(&x, &Tensor::new(&[2u32, 2], &dev).unwrap()).unwrap();
            assert!(!picked.track_op());
            assert_eq!(picked.dims(), [2, 2]);
        }
    }
}
