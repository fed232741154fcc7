// The kernel's warm-up, run at start after the `:dep` that tools/install_kernel.py writes into
// the generated init.evcxr (the clone's own path). evcxr's rust-analyzer loads the crate and its
// dependencies for the first variable it types, and the first link against them happens, before
// the student runs a cell: the notebook's `:dep` cell and its first cell then answer like any
// other (tools/evcxr/README.md). The variable is moved at the end, so evcxr does not keep it.
Ok::<(), std::fmt::Error>(())?;
use attention_zoo::prelude::*;
let zoo_warm_up = Tensor::new(&[0f32, 1.0], &Device::Cpu)?;
let _ = show(&zoo_warm_up).text();
drop(zoo_warm_up);
