#!/usr/bin/env python3
"""Starts evcxr_jupyter in a kept build folder, so that a kernel does not rebuild the crate it
`:dep`s at every start, and so that a second open notebook does not build it again either.

evcxr builds each session in a fresh temporary folder unless EVCXR_TMPDIR names a kept one; in a
kept folder cargo's own change tracking skips what has not changed. Only one kernel may build in a
folder at a time, so the launcher takes the first free slot (`slot-0`, `slot-1`, ...) under
SLOTS_DIR: it locks `slot-K.lock` with flock and keeps the lock for the kernel's whole life (the
locked descriptor is inherited by evcxr, which this process becomes). JupyterLab with several
notebooks open gets one slot per kernel.

A slot with no build, or one older than another slot's, is first given the newest slot's build
(`seed`): every compiled dependency as a hard link (no copy, no disk), the path crates (this clone,
and evcxr's own `ctx` crate) as copies, since cargo rewrites their files in place when their sources
change. cargo then finds every dependency up to date and only compiles the cell. The copy waits
for cargo's lock on the source slot's build folder, so it never sees a half-written build.

Each kernel also removes the shared objects its slot's last kernel left (one per cell, which
evcxr never deletes). It also puts cargo-config.toml beside the slots, so that the dependencies are built at opt-level 3
whatever opt-level the cells use.

Usage: launch.py SLOTS_DIR EVCXR_JUPYTER [ARGS...]"""
import fcntl
import glob
import os
import re
import shutil
import sys

# Each open notebook's kernel takes one, and in `make lab` each folder's warm spare kernel one more.
MAX_SLOTS = 32
# Files a seeded slot never needs: the shared objects of earlier cells (evcxr's `libcode_N.so`)
# and of the cell crate itself, which evcxr rebuilds for every cell.
SKIP = re.compile(r"^lib(code_\d+|ctx)\.so$")


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


def layouts(folder):
    """cargo's build folders in a slot: target/debug (build scripts, procedural macros) and
    target/<triple>/debug (what the cells link), each with deps/, build/, .fingerprint/."""
    return sorted(glob.glob(os.path.join(folder, "target", "debug")) + glob.glob(os.path.join(folder, "target", "*", "debug")))


def build_time(folder):
    """When a library was last compiled in this slot (its newest .rlib), or None. Cells compile no
    .rlib, and a hard-linked .rlib keeps its time, so a seeded slot has its source's time."""
    times = [os.stat(path).st_mtime for layout in layouts(folder) for path in glob.glob(os.path.join(layout, "deps", "*.rlib"))]
    return max(times) if times else None


def path_packages(folder):
    """The names of the packages cargo builds from paths in this slot (no `source` in
    Cargo.lock): evcxr's `ctx`, this clone's crate, any path crate a notebook added. Cargo writes
    their files in place when their sources change, so a seeded slot gets copies of them."""
    names, current, has_source = set(), None, False
    try:
        lines = open(os.path.join(folder, "Cargo.lock"), encoding="utf-8").read().splitlines()
    except OSError:
        return None
    for line in lines + ["[[package]]"]:
        if line.strip() == "[[package]]":
            if current is not None and not has_source:
                names.add(current)
            current, has_source = None, False
        elif line.startswith("name = "):
            current = line.split("=", 1)[1].strip().strip('"')
        elif line.startswith("source = "):
            has_source = True
    return names


def owner(rel, names):
    """The path package a file under a build folder belongs to (its `.fingerprint/NAME-HASH`,
    `build/NAME-HASH` or `incremental/NAME-HASH` folder, or its `deps/[lib]NAME-HASH.*` outputs,
    NAME with `-` or `_`), "" for the files directly in the build folder (the cell crate's), or
    None for a dependency's file."""
    parts = rel.split(os.sep)
    if len(parts) == 1:
        return ""
    first = parts[-1] if parts[0] == "deps" else parts[1]
    stem = first[3:] if parts[0] == "deps" and first.startswith("lib") else first
    for name in names:
        for spelling in {name, name.replace("-", "_")}:
            if stem.startswith(spelling + "-") or stem.startswith(spelling + "."):
                return name
    return None


def seed(folder, slots_dir):
    """Gives `folder` the build of the slot that compiled a library last, if that is not this one.
    Returns the slot it was seeded from, or None."""
    own = build_time(folder)
    others = []
    for name in os.listdir(slots_dir):
        other = os.path.join(slots_dir, name)
        if re.fullmatch(r"slot-\d+", name) and other != folder:
            time = build_time(other)
            if time is not None:
                others.append((time, other))
    if not others:
        return None
    newest_time, source = max(others)
    if own is not None and own >= newest_time:
        return None
    names = path_packages(source)
    if names is None:
        return None
    # cargo holds these locks while it builds in the slot: wait for them, so the copy is whole.
    locks, source_layouts = [], layouts(source)
    try:
        for layout in source_layouts:
            locks.append(os.open(os.path.join(layout, ".cargo-lock"), os.O_RDWR | os.O_CREAT, 0o644))
            fcntl.flock(locks[-1], fcntl.LOCK_EX)
        target = os.path.join(folder, "target")
        if os.path.exists(target):
            shutil.rmtree(target)
        for base, _, files in os.walk(os.path.join(source, "target")):
            rel_base = os.path.relpath(base, os.path.join(source, "target"))
            os.makedirs(os.path.join(target, rel_base), exist_ok=True)
            layout = next((l for l in source_layouts if base == l or base.startswith(l + os.sep)), None)
            for name in files:
                src, dst = os.path.join(base, name), os.path.join(target, rel_base, name)
                if SKIP.match(name) or name == ".cargo-lock":
                    continue
                package = owner(os.path.relpath(src, layout), names) if layout else ""
                if package is None and not os.path.islink(src):
                    os.link(src, dst)
                elif package == "ctx" or "incremental" not in src[len(layout or ""):].split(os.sep):
                    # The path crates' own files are copied; their incremental state is left
                    # behind (cargo then compiles this clone's crate in full if it changes),
                    # except the cell crate's, which makes the next cells compile faster.
                    shutil.copy2(src, dst, follow_symlinks=False)
        # The lock file keeps the same versions, so every dependency keeps its hash.
        shutil.copy2(os.path.join(source, "Cargo.lock"), os.path.join(folder, "Cargo.lock"))
    finally:
        for lock in locks:
            os.close(lock)
    return source


def forget_cells(folder):
    """Removes the shared objects of an earlier kernel's cells (evcxr's `libcode_N.so`): evcxr
    never deletes them, and a new kernel numbers its cells from 1 again. Also removes every shared
    library of dependencies (`libevcxr_shared_deps_HASH.so`, about 24 MB, one per set of `:dep`s
    a kernel used) but the newest: cargo builds one again if a kernel needs it."""
    for layout in layouts(folder):
        for path in glob.glob(os.path.join(layout, "libcode_*.so")) + glob.glob(os.path.join(layout, "deps", "libcode_*.so")):
            os.remove(path)
        shared = glob.glob(os.path.join(layout, "deps", "libevcxr_shared_deps_*.so"))
        newest = max(shared, key=os.path.getmtime, default=None)
        for path in shared:
            if path != newest:
                for copy in (path, os.path.join(layout, os.path.basename(path))):
                    if os.path.exists(copy):
                        os.remove(copy)


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
        try:
            forget_cells(folder)
            source = seed(folder, slots_dir)
            if source:
                print(f"launch.py: {os.path.basename(folder)} starts from the build of {os.path.basename(source)}", file=sys.stderr)
        except OSError as e:
            # A slot that could not be seeded still works: cargo builds what it lacks.
            print(f"launch.py: could not seed {folder} ({e}); cargo builds what it needs there", file=sys.stderr)
        os.set_inheritable(fd, True)
        os.environ["EVCXR_TMPDIR"] = folder
    os.execv(binary, [binary, *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
