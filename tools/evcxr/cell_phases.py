#!/usr/bin/env python3
"""Where a notebook cell's time goes: runs a notebook under the `rust` kernel while `perf` records
when every process on the machine starts and ends (the scheduler's exec and exit tracepoints, which
cost the traced processes nothing, unlike strace), and splits each cell's time into phases:

  before cargo   evcxr reads the cell, infers the types of new variables, writes the crate
  cargo          cargo itself: starting, checking every dependency's fingerprint
  rustc          compiling the cell's crate (`ctx`): front end and code generation
  link           the linker (cc and lld) making the cell's shared object
  after cargo    evcxr loads the shared object and runs the cell, and the reply reaches Jupyter

Needs perf and root (system-wide tracepoints). Prints one line a cell and the medians, in
wall-clock seconds; run it on an idle machine.

Usage: cell_phases.py NOTEBOOK [--kernel rust] [--processes]
  --processes   also list, under each cell, the processes that ran in it (10 ms or longer)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import nbformat
from jupyter_client import KernelManager

EXEC = re.compile(r"^\s*\S.*?\s+(\d+) \[\d+\]\s+([\d.]+): sched:sched_process_exec: filename=(\S+) pid=(\d+)")
EXIT = re.compile(r"^\s*\S.*?\s+(\d+) \[\d+\]\s+([\d.]+): sched:sched_process_exit: .* pid=(\d+) ")


def trace_events(lines):
    """Each process that exec'd: (start, end, program), from `perf script` lines. A process ends
    when its main thread does (the thread whose id is the process id)."""
    starts, procs = {}, []
    for line in lines:
        m = EXEC.match(line)
        if m:
            t, prog, pid = float(m.group(2)), os.path.basename(m.group(3)), m.group(4)
            first = starts.get(pid, (t, prog))[0]  # an exec in the same process keeps its start
            starts[pid] = (first, prog if prog not in ("rust-lld", "ld.lld") or pid not in starts else starts[pid][1])
            continue
        m = EXIT.match(line)
        if m and m.group(3) in starts:
            start, prog = starts.pop(m.group(3))
            procs.append((start, float(m.group(2)), prog))
    return procs


def phases(window, procs):
    """Splits one cell's window (start, end) by the processes that ran in it."""
    start, end = window
    inside = [p for p in procs if start <= p[0] <= end]
    cargo = [p for p in inside if p[2] == "cargo"]
    # evcxr stands in for rustc (to add its own flags) and starts the real one: count the real one.
    rustc = [p for p in inside if p[2] == "rustc" and p[1] - p[0] > 0.05]  # not cargo's `rustc -vV`
    link = [p for p in inside if p[2] == "cc"]
    out = {"total": end - start}
    if not cargo:
        out.update({"before cargo": end - start, "cargo": 0.0, "rustc": 0.0, "link": 0.0, "after cargo": 0.0})
        return out
    c0, c1 = min(p[0] for p in cargo), max(p[1] for p in cargo)
    r, l = sum(p[1] - p[0] for p in rustc), sum(p[1] - p[0] for p in link)
    out.update({"before cargo": c0 - start, "cargo": (c1 - c0) - r, "rustc": r - l, "link": l, "after cargo": end - c1})
    return out
    c0, c1 = min(p[0] for p in cargo), max(p[1] for p in cargo)
    r = sum(p[1] - p[0] for p in rustc)
    l = sum(p[1] - p[0] for p in link if not any(q[0] <= p[0] <= q[1] for q in link if q is not p and q[2] == "cc"))
    out.update({"before cargo": c0 - start, "cargo": (c1 - c0) - r, "rustc": r - l, "link": l, "after cargo": end - c1})
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[0]
    kernel = argv[argv.index("--kernel") + 1] if "--kernel" in argv else "rust"
    data = tempfile.NamedTemporaryFile(prefix="cell-phases-", suffix=".perf", delete=False).name
    events = ["-e", "sched:sched_process_exec", "-e", "sched:sched_process_exit"]
    perf = subprocess.Popen(["perf", "record", "-q", "-k", "CLOCK_MONOTONIC", "-a", *events, "-o", data], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    km = KernelManager(kernel_name=kernel)
    km.start_kernel(cwd=os.path.dirname(os.path.abspath(path)))
    client = km.client()
    client.start_channels()
    client.wait_for_ready(timeout=600)
    nb = nbformat.read(path, as_version=4)
    windows = []
    try:
        for cell in (c for c in nb.cells if c.cell_type == "code"):
            t0 = time.monotonic()
            reply = client.execute_interactive(cell.source, timeout=900, output_hook=lambda msg: None)
            windows.append((cell.source.splitlines()[0][:50], (t0, time.monotonic()), reply["content"]["status"]))
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)
        perf.send_signal(subprocess.signal.SIGINT)
        perf.wait()
    script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True).stdout.splitlines()
    procs = trace_events(script)
    keys = ["total", "before cargo", "cargo", "rustc", "link", "after cargo"]
    print(f"{'cell':<52} " + " ".join(f"{k:>12}" for k in keys))
    rows = []
    for first, window, status in windows:
        p = phases(window, procs)
        rows.append(p)
        print(f"{first:<52} " + " ".join(f"{p[k]:12.3f}" for k in keys) + ("" if status == "ok" else f"  ({status})"))
        if "--processes" in argv:
            for start, end, prog in sorted(q for q in procs if window[0] <= q[0] <= window[1] and q[1] - q[0] >= 0.01):
                print(f"    {start - window[0]:8.3f} s  {end - start:7.3f} s  {prog}")
    quick = rows[2:]  # after the :dep cell and the first link
    if quick:
        print(f"{'median (after the :dep cell and the first cell)':<52} " + " ".join(f"{statistics.median(r[k] for r in quick):12.3f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
