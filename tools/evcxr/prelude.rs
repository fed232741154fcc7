// The kernel's prelude, run at start after the `:dep` that tools/install_kernel.py writes into the
// generated init.evcxr (the clone's own path): what every notebook's cells may use. It defines no
// variable, so it does not wait for rust-analyzer, which warm_up.rs starts in the background.
use attention_zoo::prelude::*;
// The one process-wide setting the kernel opts into (attention_zoo::tuning): freed tensors'
// memory stays in the process for the next ones.
attention_zoo::tuning::keep_freed_memory();
