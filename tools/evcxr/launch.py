#!/usr/bin/env python3
"""Starts evcxr_jupyter in a kept build folder, so a kernel does not rebuild the crate it
`:dep`s at every start.

evcxr builds each session in a fresh temporary folder unless EVCXR_TMPDIR names a kept one; in a
kept folder cargo's own change tracking skips what has not changed. Only one kernel may build in a
folder at a time, so the launcher takes the first free slot (`slot-0`, `slot-1`, ...) under
SLOTS_DIR: it locks `slot-K.lock` with flock and keeps the lock for the kernel's whole life (the
locked descriptor is inherited by evcxr when this process becomes it). JupyterLab with several
notebooks open gets one slot per kernel. It also puts cargo-config.toml beside the slots, so that
the dependencies are built at opt-level 3 whatever opt-level the cells use.

The kernel's start-up runs a warm-up (the `:dep` of this clone and a first use of the crate, from
the config folder tools/install_kernel.py writes). evcxr dies before it serves anything when its
start-up fails (a crate that does not build, a clone that moved), which a student would see as a
kernel that keeps dying. So the launcher runs evcxr as its child; if the child fails within
WARM_UP_SECONDS, it starts evcxr again with the `plain` config (no warm-up), and the notebook's own
`:dep` cell then shows the error where the student can read it.

Usage: launch.py SLOTS_DIR EVCXR_JUPYTER [ARGS...]"""
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time

MAX_SLOTS = 16
WARM_UP_SECONDS = 600


def take_slot(slots_dir):
    """The first slot whose lock is free, locked; its folder and the descriptor holding the lock."""
    os.makedirs(slots_dir, exist_ok=True)
    for k in range(MAX_SLOTS):
        fd = os.open(os.path.join(slots_dir, f"slot-{k}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        folder = os.path.join(slots_dir, f"slot-{k}")
        os.makedirs(folder, exist_ok=True)
        return folder, fd
    return None, None


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    slots_dir, binary, args = argv[0], argv[1], argv[2:]
    folder, fd = take_slot(slots_dir)
    # Dependencies at opt-level 3 whatever the cells' level (see cargo-config.toml).
    os.makedirs(os.path.join(slots_dir, ".cargo"), exist_ok=True)
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cargo-config.toml")
    shutil.copyfile(config, os.path.join(slots_dir, ".cargo", "config.toml"))
    if folder is None:
        # Every slot busy: fall back to evcxr's own fresh temporary folder.
        print(f"launch.py: all {MAX_SLOTS} build slots under {slots_dir} are in use; building in a fresh folder", file=sys.stderr)
    else:
        os.set_inheritable(fd, True)
        os.environ["EVCXR_TMPDIR"] = folder
    run(binary, args, fd)


def run(binary, args, fd):
    """Runs evcxr with the warm-up, and again without it if the warm-up fails."""
    config = os.environ.get("EVCXR_CONFIG_DIR", "")
    plain = os.path.join(config, "plain")
    if not config or not os.path.isdir(plain):
        os.execv(binary, [binary, *args])
    started = time.monotonic()
    child = subprocess.Popen([binary, *args], pass_fds=() if fd is None else (fd,))
    # Jupyter signals the whole process group; a signal to the launcher alone is passed on.
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda n, _frame: child.send_signal(n))
    code = child.wait()
    if code != 0 and time.monotonic() - started < WARM_UP_SECONDS:
        print(f"launch.py: the kernel's warm-up failed (exit {code}, its error above); starting the kernel without it",
              file=sys.stderr, flush=True)
        os.environ["EVCXR_CONFIG_DIR"] = plain
        os.execv(binary, [binary, *args])
    sys.exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
