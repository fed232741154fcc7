//! The shape of a tensor's entry in a `.pt` file's pickle, checked before candle 0.11 takes it
//! apart by position (`Vec::remove`, which panics past the end).

use candle_core::pickle::Object;

/// The arguments of a call in the pickle (`REDUCE`), when they are a tuple.
fn call_args<'a>(args: &'a Object, call: &str, at_least: usize, expected: &str) -> std::result::Result<&'a [Object], String> {
    match args {
        Object::Tuple(args) if args.len() >= at_least => Ok(args),
        Object::Tuple(args) => Err(format!("{call} has {} arguments, expected {expected}", args.len())),
        _ => Err(format!("the arguments of {call} are not a tuple")),
    }
}

fn is_class(o: &Object, module: &str, class: &str) -> bool {
    matches!(o, Object::Class { module_name, class_name } if module_name == module && class_name == class)
}

/// Checks what candle 0.11's `Object::into_tensor_info` and `rebuild_args` take apart by
/// position (`Vec::remove`, which panics past the end) before they do: each call the value goes
/// through must have enough arguments, and the storage its tuple of five. A value that is no
/// tensor at all is left to candle, which skips it. Mirrors `into_tensor_info`'s order.
pub(crate) fn malformed(value: &Object) -> std::result::Result<(), String> {
    let Object::Reduce { callable, args } = value else { return Ok(()) };
    let (callable, args) = if is_class(callable, "torch._tensor", "_rebuild_from_type_v2") {
        let args = call_args(args, "_rebuild_from_type_v2", 3, "(function, type, args, state)")?;
        (&args[0], &args[2])
    } else if is_class(callable, "torch._utils", "_rebuild_parameter") {
        let args = call_args(args, "_rebuild_parameter", 1, "(data, requires_grad, backward_hooks)")?;
        match &args[0] {
            Object::Reduce { callable, args } => (&**callable, &**args),
            _ => return Err("the data of _rebuild_parameter is not a tensor".into()),
        }
    } else {
        (&**callable, &**args)
    };
    if !is_class(callable, "torch._utils", "_rebuild_tensor_v2") {
        return Ok(());
    }
    let expected = "(storage, storage_offset, size, stride, requires_grad, backward_hooks)";
    let args = call_args(args, "_rebuild_tensor_v2", 4, expected)?;
    let Object::PersistentLoad(storage) = &args[0] else {
        return Err("the storage of _rebuild_tensor_v2 is not a persistent id".into());
    };
    match &**storage {
        Object::Tuple(s) if s.len() >= 5 => {}
        Object::Tuple(s) => {
            return Err(format!("its storage is a tuple of {}, expected 5 ('storage', class, key, location, size)", s.len()));
        }
        _ => return Err("its storage is not a tuple ('storage', class, key, location, size)".into()),
    }
    match &args[1] {
        Object::Int(o) if *o >= 0 => {}
        Object::Long(o) if (0..=i64::from(i32::MAX)).contains(o) => {}
        o => return Err(format!("its storage offset is {o:?}, expected a count of elements")),
    }
    if let (Object::Tuple(size), Object::Tuple(stride)) = (&args[2], &args[3])
        && size.len() != stride.len()
    {
        return Err(format!("its size has {} dimensions and its stride {}", size.len(), stride.len()));
    }
    Ok(())
}
