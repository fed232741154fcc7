//! Parameters' gradients handed past candle's store, inside the crate's training steps.
//!
//! candle's backward pass starts the gradient of every tensor a node feeds with a zeros tensor of
//! its size and adds the node's gradient to it (`GradStore::or_insert`, then `add`): for a weight
//! that is a fill, an add and two new buffers of its size, each step, and at the base size of
//! `make bench-scale` the fills alone were a third of the step's `memset`. Inside
//! [`with_grad_sink`], the input-weight-bias nodes (the linear maps, layer norm) hand the
//! gradients of their weight and bias, where those are parameters (candle's variables), to this
//! thread's sink instead: the first one is kept as it is, a later one for the same parameter
//! added to it, and candle is given none for them. [`Sunk::merge_into`] then puts each into the
//! pass's store, added to what candle gathered there for the same parameter.
//!
//! A parameter's gradient is then the same sum as candle's: a single contribution exactly, two
//! in either order alike (a float sum of two terms does not depend on their order); with three
//! or more, from nodes of both kinds, the order of the sums may differ from candle's.

use super::scoped::with_scoped;
use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor, TensorId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

thread_local! {
    static SINK: RefCell<Option<HashMap<TensorId, (Tensor, Tensor)>>> = const { RefCell::new(None) };
}

/// The gradients the nodes handed to the sink during a pass: each parameter's, by its id.
pub(crate) struct Sunk(HashMap<TensorId, (Tensor, Tensor)>);

impl Sunk {
    /// Puts every gradient of the sink into `store`, added to the one candle gathered there for
    /// the same parameter, if any.
    pub(crate) fn merge_into(self, store: &mut GradStore) -> Result<()> {
        for (param, g) in self.0.into_values() {
            let g = match store.remove(&param) {
                Some(other) => (other + g)?,
                None => g,
            };
            store.insert(&param, g);
        }
        Ok(())
    }
}

/// Runs `pass` (a backward pass) with a sink open on this thread, and returns its result and
/// the gradients sunk. The sink closes when `pass` returns or panics, restoring an outer one.
pub(crate) fn with_grad_sink<T>(pass: impl FnOnce() -> T) -> (T, Sunk) {
    let (out, sunk) = with_scoped(&SINK, HashMap::new(), pass);
    (out, Sunk(sunk.unwrap_or_default()))
}

/// Hands the gradient `g` of `param` to this thread's sink when one is open and `param` is a
/// parameter (a variable of candle's): `None` then, for candle; else `Some(g)` back.
pub(crate) fn sink(param: &Tensor, g: Tensor) -> Result<Option<Tensor>> {
    if !param.is_variable() {
        return Ok(Some(g));
    }
    SINK.with(|s| {
        let mut s = s.borrow_mut();
        let Some(sink) = s.as_mut() else { return Ok(Some(g)) };
        match sink.entry(param.id()) {
            Entry::Occupied(mut kept) => {
                let sum = (&kept.get().1 + g)?;
                kept.get_mut().1 = sum;
            }
            Entry::Vacant(place) => {
                place.insert((param.clone(), g));
            }
        }
        Ok(None)
    })
}

#[cfg(test)]
mod tests {
    use super::{sink, with_grad_sink};
    use candle_core::backprop::GradStore;
    use candle_core::{Device, Tensor, Var};

    fn values(t: &Tensor) -> Vec<f32> {
        t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
    }

    /// Outside a sink, and for a weight that is not a variable, gradients go to candle; the sink
    /// closes on a panic and restores an outer one.
    #[test]
    fn only_inside_and_only_parameters() {
        let dev = Device::Cpu;
        let w = Var::from_tensor(&Tensor::ones((2, 2), candle_core::DType::F32, &dev).unwrap()).unwrap();
        let g = || Tensor::ones((2, 2), candle_core::DType::F32, &dev).unwrap();
        assert!(sink(&w, g()).unwrap().is_some(), "no sink open");
        let ((), outer) = with_grad_sink(|| {
            assert!(sink(&w, g()).unwrap().is_none());
            assert!(sink(&w.as_tensor().affine(1.0, 0.0).unwrap(), g()).unwrap().is_some(), "not a variable");
            let inner = std::panic::catch_unwind(|| with_grad_sink(|| panic!("inside")));
            assert!(inner.is_err());
            assert!(sink(&w, g()).unwrap().is_none(), "the outer sink is open again");
        });
        let mut store = GradStore::default();
        outer.merge_into(&mut store).unwrap();
        assert_eq!(values(store.get(&w).unwrap()), [2.0; 4], "two gradients of one parameter, added");
        assert!(sink(&w, g()).unwrap().is_some(), "closed");
    }
}
