// The kernel's warm-up, run at start after the `:dep` that tools/install_kernel.py writes into
// the generated init.evcxr (the clone's own path). evcxr's rust-analyzer loads the crate and its
// dependencies for the first variable it types, and the first link against them happens, before
// the student runs a cell: the notebook's `:dep` cell and its first cell then answer like any
// other (tools/evcxr/README.md). The variable is moved at the end, so evcxr does not keep it.
Ok::<(), std::fmt::Error>(())?;
use attention_zoo::prelude::*;
// The one process-wide setting the kernel opts into (attention_zoo::tuning): freed tensors'
// memory stays in the process for the next ones.
attention_zoo::tuning::keep_freed_memory();
let zoo_warm_up = Tensor::new(&[[[0f32, 1.0]]], &Device::Cpu)?;
// rust-analyzer answers a trait's first use slowly (up to 0.7 s for the first iterator chain,
// 0.3 s for the first `D::Minus1`): the usual ones once here, where nobody waits for them.
{
    let first: Option<Tensor> = Some(zoo_warm_up.clone());
    let t = first.clone().unwrap().permute((1, 0, 2))?.i((.., ..1))?;
    let n = t.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.broadcast_div(&t)?.dim(D::Minus1)?;
    let names: Vec<String> = (0..n).map(|k| format!("{k:02}")).chain(std::iter::once(String::new())).collect();
    let _ = (show(&t).text(), names.iter().enumerate().count(), i64::from(n as u8 <= 2));
}
drop(zoo_warm_up);
