#!/usr/bin/env python3
"""Registers the evcxr kernel as 'rust' in the repo's own Jupyter data folder.

Usage: install_kernel.py KERNEL_DIR EVCXR_BINARY EVCXR_CONFIG_DIR CACHE_DIR LINKER_DIR SLOTS_DIR
The kernel starts through tools/evcxr/launch.py, which gives it a kept build folder under
SLOTS_DIR (so the crate is not rebuilt at every start). It gets its config folder, written here:
init.evcxr is tools/evcxr/init.evcxr (:cache, :opt, :shared_deps, :allow_question_mark) followed
by a `:dep` of this clone by its absolute path; prelude.rs is tools/evcxr/prelude.rs (the imports
every cell may use, built and linked while the kernel starts: if that fails, say a crate that does
not build, our patched evcxr starts without it and says why as the first cell's error); warm_up.rs
is tools/evcxr/warm_up.rs, which our patched evcxr only analyses, in the background, to warm
rust-analyzer up behind the first cells.
It also gets the user's cache folder for evcxr's compile cache, one compute thread (tiny matrices
are much faster on one thread), `RUST_LIB_BACKTRACE=0` (evcxr sets `RUST_BACKTRACE=1` in the
kernel, which gave every error of candle's a backtrace of twenty `<unknown>` frames; errors are
then one message again, while panics keep their backtraces), and, when the Rust toolchain ships
rust-lld, a folder on its PATH where `lld` and `ld.lld` name it: evcxr then links each cell with
lld, which is several times faster than the system linker (evcxr falls back to the system linker
by itself if lld fails)."""
import json
import os
import shutil
import subprocess
import sys

kernel_dir, binary, config_dir, cache_dir, linker_dir, slots_dir = (os.path.abspath(p) for p in sys.argv[1:7])
launcher = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evcxr", "launch.py")
os.makedirs(kernel_dir, exist_ok=True)
env = {"EVCXR_CONFIG_DIR": config_dir, "XDG_CACHE_HOME": cache_dir, "RAYON_NUM_THREADS": "1", "RUST_LIB_BACKTRACE": "0"}


def rust_lld():
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
        host = next(l.split()[1] for l in subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines() if l.startswith("host:"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        return None
    path = os.path.join(sysroot, "lib", "rustlib", host, "bin", "rust-lld")
    return path if os.path.exists(path) else None


lld = rust_lld()
if lld:
    os.makedirs(linker_dir, exist_ok=True)
    for name in ("lld", "ld.lld"):
        link = os.path.join(linker_dir, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(lld, link)
    env["PATH"] = linker_dir + os.pathsep + os.environ.get("PATH", "")

# evcxr_jupyter rewrites kernel.json with its own bare command line (no launcher, no settings) at
# its first start whenever the kernel folder lacks its resource files of its own version. Let it
# install them first, then write our spec over its kernel.json: later starts leave it alone.
# The kernel's config folder: the committed commands, then this clone's `:dep` (evcxr resolves a
# notebook's relative `path = ".."` to the same absolute path, so the notebook's own `:dep` finds
# the crate already there), then the warm-up.
templates = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evcxr")
root = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
commands = open(os.path.join(templates, "init.evcxr")).read().rstrip("\n") + "\n"
dep = ':dep attention_zoo = { path = "%s", package = "attention-zoo" }\n' % root.replace("\\", "\\\\").replace('"', '\\"')
os.makedirs(config_dir, exist_ok=True)
with open(os.path.join(config_dir, "init.evcxr"), "w") as f:
    f.write(commands + dep)
for name in ("prelude.rs", "warm_up.rs"):
    with open(os.path.join(config_dir, name), "w") as f:
        f.write(open(os.path.join(templates, name)).read())
# The launcher's fallback folder of earlier versions, if a clone still has it.
shutil.rmtree(os.path.join(config_dir, "plain"), ignore_errors=True)

data_dir = os.path.dirname(os.path.dirname(kernel_dir))
subprocess.run([binary, "--install"], check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, JUPYTER_PATH=data_dir))

spec = {
    "argv": [sys.executable, launcher, slots_dir, binary, "--control_file", "{connection_file}"],
    "display_name": "Rust (attention-zoo)",
    "language": "rust",
    "interrupt_mode": "message",
    "env": env,
}
with open(os.path.join(kernel_dir, "kernel.json"), "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
print(f"registered kernel 'rust' in {kernel_dir}" + (f" (linking with {lld})" if lld else ""))
