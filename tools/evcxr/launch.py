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

Usage: launch.py SLOTS_DIR EVCXR_JUPYTER [ARGS...]"""
import fcntl
import os
import shutil
import sys

MAX_SLOTS = 16


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
    os.execv(binary, [binary, *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
