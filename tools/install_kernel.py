#!/usr/bin/env python3
"""Registers the evcxr kernel as 'rust' in the repo's own Jupyter data folder.

Usage: install_kernel.py KERNEL_DIR EVCXR_BINARY EVCXR_CONFIG_DIR CACHE_DIR
The kernel gets its config folder (init.evcxr turns on :cache), a cache folder inside the repo and
one compute thread (tiny matrices are much faster on one thread)."""
import json
import os
import sys

kernel_dir, binary, config_dir, cache_dir = (os.path.abspath(p) for p in sys.argv[1:5])
os.makedirs(kernel_dir, exist_ok=True)
spec = {
    "argv": [binary, "--control_file", "{connection_file}"],
    "display_name": "Rust (attention-zoo)",
    "language": "rust",
    "interrupt_mode": "message",
    "env": {"EVCXR_CONFIG_DIR": config_dir, "XDG_CACHE_HOME": cache_dir, "RAYON_NUM_THREADS": "1"},
}
with open(os.path.join(kernel_dir, "kernel.json"), "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
print(f"registered kernel 'rust' in {kernel_dir}")
