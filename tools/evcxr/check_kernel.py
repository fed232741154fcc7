#!/usr/bin/env python3
"""`make kernel-check`: what the project's patches to evcxr (tools/evcxr/patches/) promise, tried
through the real kernel `rust` as a student's notebooks meet it. Each part names its patch.

1. One copy of every dependency (03-shared-deps): tests/own_training_loop.ipynb (a model of one's
   own, its data, an Adam and a loop of one's own, in every arrangement over cells, each loop cell
   run twice; `arrangements.py` writes it) gives exactly the one-cell run's losses; so does
   tests/statics.ipynb (a logger and the log level set in one cell are there in the next; candle's
   tensor ids keep counting across cells). Both run again in a kernel whose init.evcxr says
   `:shared_deps 0`, which links the dependencies into every cell as evcxr as published does:
   there they must fail, and the report says how (which arrangements failed, with what).
   tests/step_by_step.ipynb (`StepByStep::train` across cells) must pass both ways, and so must
   tests/published_loop.ipynb (a loop of one's own with the two lines the README asks for under
   evcxr as published: `model.rehome()?` and the data copied in the loop's cell).
2. Failures as Jupyter errors, at the student's line (04-failures-as-errors): plain
   `jupyter nbconvert --execute` on a notebook whose second cell's `?` returns an error exits
   non-zero and names that cell; a panic shows at most 3 lines, its message and "line N of this
   cell"; a panic inside candle names the cell's line that called into it; a `?` error names the
   line of its `?`; the variables of earlier cells survive; a cell that passes writes nothing on
   stderr.
3. Derives (06-proc-macros): `let n = mlp.count_parameters();` on a struct with `#[derive(Walk)]`
   needs no written type; with no proc-macro server (EVCXR_PROC_MACRO_SRV naming none) the same
   cell fails as before, with evcxr's message, and the kernel says why once in its log.
4. Peers that come and go (08-no-stranded-task): jupyter_server's nudge (a socket of its own that
   asks kernel_info and closes at the reply) at full speed from STORM_PEERS threads for
   STORM_SECONDS, while one steady client asks kernel_info on the shell socket every 50 ms: each of
   its requests must be answered within STORM_REPLY seconds, and a cell must run after the storm.

Writes target/kernel-check/report.json. Exits 1 when anything fails.

    python tools/evcxr/check_kernel.py   (with the environment `make` sets)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import nbformat
import zmq
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session
from nbclient import NotebookClient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "target", "kernel-check")
TESTS = os.path.join(HERE, "tests")
TIMEOUT = 900
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def kernel(config_dir=None, extra_env=None):
    """A started kernel `rust` (the registered spec, its launcher and build slots), with another
    evcxr config folder or more environment if asked."""
    km = KernelManager(kernel_name="rust")
    if config_dir:
        km.kernel_spec.env["EVCXR_CONFIG_DIR"] = config_dir
    km.kernel_spec.env.update(extra_env or {})
    km.start_kernel(cwd=TESTS)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT)
    return km, kc


def static_config():
    """A copy of the kernel's config folder whose init.evcxr links every dependency into each cell
    (`:shared_deps 0`), as evcxr as published does."""
    spec = KernelManager(kernel_name="rust").kernel_spec.env["EVCXR_CONFIG_DIR"]
    folder = tempfile.mkdtemp(prefix="kernel-check-static-")
    for name in os.listdir(spec):
        shutil.copyfile(os.path.join(spec, name), os.path.join(folder, name))
    path = os.path.join(folder, "init.evcxr")
    text = open(path).read()
    if ":shared_deps 1" not in text:
        sys.exit(f"check_kernel: {path} has no `:shared_deps 1` to turn off")
    with open(path, "w") as f:
        f.write(text.replace(":shared_deps 1", ":shared_deps 0"))
    return folder


def run_notebook(path, config_dir=None):
    """Runs every cell of a notebook, going on after errors: the executed notebook, and for each
    code cell (its id, its error's text or None, its text outputs)."""
    nb = nbformat.read(path, as_version=4)
    km = KernelManager(kernel_name="rust")
    if config_dir:
        km.kernel_spec.env["EVCXR_CONFIG_DIR"] = config_dir
    client = NotebookClient(nb, km=km, timeout=TIMEOUT, startup_timeout=TIMEOUT, allow_errors=True,
                            resources={"metadata": {"path": TESTS}})
    try:
        client.execute()
    finally:
        # nbclient shuts down only the kernels it made itself.
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        error = next((ANSI.sub("", "\n".join(o.get("traceback", [])) or o.get("evalue", ""))
                      for o in cell.outputs if o.output_type == "error"), None)
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        text += "".join("".join(o.get("data", {}).get("text/plain", "")) for o in cell.outputs
                        if o.output_type in ("execute_result", "display_data"))
        cells.append({"id": cell.get("id"), "error": error, "text": text})
    return nb, cells


def shared_deps(report, static):
    """Part 1: the three notebooks under our kernel, and under static linking."""
    problems = []
    for name, must_fail_static in (("own_training_loop", True), ("statics", True), ("step_by_step", False), ("published_loop", False)):
        path = os.path.join(TESTS, f"{name}.ipynb")
        for mode, config in (("shared", None), ("static", static)):
            started = time.monotonic()
            nb, cells = run_notebook(path, config)
            seconds = time.monotonic() - started
            nbformat.write(nb, os.path.join(OUT, f"{name}.{mode}.ipynb"))
            failed = [c for c in cells if c["error"]]
            entry = {"notebook": name, "mode": mode, "seconds": round(seconds, 1), "cells": len(cells),
                     "failed_cells": [{"id": c["id"], "error": c["error"].splitlines()[0][:200]} for c in failed]}
            if name == "own_training_loop":
                entry["arrangements"] = arrangement_outcomes(cells)
            report["shared_deps"].append(entry)
            summary = f"{name} ({mode} linking, {seconds:.0f} s): {len(failed)} of {len(cells)} cells failed"
            if name == "own_training_loop":
                bad = [k for k, v in entry["arrangements"].items() if v != "equal"]
                summary += f"; arrangements not equal to the one-cell run: {len(bad)} of {len(entry['arrangements'])}"
            print(summary, flush=True)
            if mode == "shared" and failed:
                problems.append(f"{name} under the kernel's shared dependencies: cell {failed[0]['id']} failed: {failed[0]['error'][:300]}")
            if mode == "static" and must_fail_static and not failed:
                problems.append(f"{name} passed with the dependencies linked into every cell: it does not show what shared deps fix")
            if mode == "static" and not must_fail_static and failed:
                problems.append(f"{name} with the dependencies linked into every cell (evcxr as published): cell {failed[0]['id']} failed: {failed[0]['error'][:300]}")
    return problems


def arrangement_outcomes(cells):
    """Each arrangement of own_training_loop: "equal" when its loop cells printed the one-cell
    run's last losses and did not fail, else what went wrong first."""
    printed, outcome = {}, {}
    for c in cells:
        m = re.match(r"a(\d+)-", c["id"] or "")
        if not m:
            continue
        k = int(m.group(1))
        if c["error"] and k not in outcome:
            outcome[k] = "error: " + c["error"].splitlines()[0][:160]
        for line in c["text"].splitlines():
            found = re.match(rf"arrangement {k}: (\d+) runs, last loss (.*)", line)
            if found:
                printed.setdefault(k, []).append(found.group(2))
    reference = printed.get(0, [])
    for k in sorted(set(printed) | set(outcome)):
        if k not in outcome:
            outcome[k] = "equal" if printed.get(k) == reference and len(reference) == 2 else f"losses {printed.get(k)} against {reference}"
    return {str(k): outcome[k] for k in sorted(outcome)}


def cell(kc, code):
    """Runs one cell: its reply's status, its error (ename, evalue, traceback lines without
    colour) or None, its stderr text and its results' text."""
    messages = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=messages.append)
    error = next(((m["content"]["ename"], m["content"]["evalue"], [ANSI.sub("", t) for t in m["content"]["traceback"]])
                  for m in messages if m["msg_type"] == "error"), None)
    stderr = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream" and m["content"]["name"] == "stderr")
    results = [m["content"]["data"].get("text/plain", "") for m in messages if m["msg_type"] in ("execute_result", "display_data")]
    return reply["content"]["status"], error, stderr, results


def failures(report):
    """Part 2: failures as errors."""
    problems = []
    # Plain nbconvert, as a student or a grader runs it.
    folder = tempfile.mkdtemp(prefix="kernel-check-nbconvert-")
    path = os.path.join(folder, "broken.ipynb")
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "rust", "display_name": "Rust", "language": "rust"}})
    nb.cells = [nbformat.v4.new_code_cell("let n = 3;\nn"),
                nbformat.v4.new_code_cell("let zero = Tensor::zeros((1, 2, 3), DType::F32, &Device::Cpu)?;\n"
                                          "let wrong = zero.matmul(&zero)?;"),
                nbformat.v4.new_code_cell("n + 1")]
    nbformat.write(nb, path)
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    done = subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute", "--output", os.path.join(folder, "out.ipynb"), path],
                          capture_output=True, text=True, timeout=TIMEOUT)
    said = ANSI.sub("", done.stderr)
    report["nbconvert"] = {"exit": done.returncode, "names_cell": "zero.matmul(&zero)?" in said,
                           "last_lines": said.strip().splitlines()[-6:]}
    print(f"nbconvert --execute on a failing `?` cell: exit {done.returncode}"
          + (", naming the cell" if "zero.matmul(&zero)?" in said else ", not naming the cell"), flush=True)
    if done.returncode == 0 or "zero.matmul(&zero)?" not in said or "shape mismatch in matmul" not in said:
        problems.append(f"nbconvert --execute on a failing `?` cell: exit {done.returncode}, said {said[-600:]!r}")
    shutil.rmtree(folder, ignore_errors=True)

    km, kc = kernel()
    try:
        cases = [
            # (what, code, the status wanted, the ename, a pattern the traceback must match, at most lines)
            ("a cell that passes", "let kept = Tensor::new(&[1f32, 2.], &Device::Cpu)?;\nkept.dims().len()", "ok", None, None, None),
            ("a panic in the cell", "let v: Vec<i32> = vec![];\nlet i = 3;\nv[i]", "error", "Panic",
             r"^panicked: index out of bounds: the len is 0 but the index is 3\n  --> line 3 of this cell: v\[i\]$", 3),
            ("a panic inside candle", "let w = Tensor::new(&[1f32, 2., 3.], &Device::Cpu)?;\nlet parts = w.chunk(0, 0)?;", "error", "Panic",
             r"^panicked at candle-core-[\d.]+/src/tensor\.rs:\d+:\d+: attempt to divide by zero\n  --> line 2 of this cell, which called into it: let parts = w\.chunk\(0, 0\)\?;$", 3),
            ("a `?` error", "let a = Tensor::zeros((2, 3), DType::F32, &Device::Cpu)?;\n\nlet b = a.matmul(&a)?;", "error", "Error",
             r"^Error: shape mismatch in matmul, lhs: \[2, 3\], rhs: \[2, 3\]\n  --> line 3 of this cell: let b = a\.matmul\(&a\)\?;$", 3),
            ("an earlier cell's variable after the failures", "kept.dims()[0]", "ok", None, None, None),
            ("a student's own panic hook", "std::panic::set_hook(Box::new(|_| {}));\npanic!(\"hidden\")", "error", "Panic", None, 3),
            ("a panic after that hook, in the next cell", "let empty: Vec<u8> = Vec::new();\nempty[1]", "error", "Panic",
             r"line 2 of this cell", 3),
        ]
        report["failures"] = []
        for what, code, status, ename, pattern, max_lines in cases:
            got, error, stderr, results = cell(kc, code)
            lines = error[2] if error else []
            entry = {"case": what, "status": got, "ename": error[0] if error else None, "traceback": lines, "stderr": stderr, "results": results}
            report["failures"].append(entry)
            print(f"{what}: {got}" + (f", {error[0]}: " + " / ".join(lines) if error else f", {results}"), flush=True)
            if got != status:
                problems.append(f"{what}: status {got}, not {status}")
            if ename and (not error or error[0] != ename):
                problems.append(f"{what}: error named {error[0] if error else None}, not {ename}")
            if pattern and not re.search(pattern, "\n".join(lines)):
                problems.append(f"{what}: the error said {lines}, which does not match {pattern!r}")
            if max_lines and len(lines) > max_lines:
                problems.append(f"{what}: {len(lines)} lines of error, more than {max_lines}")
            if stderr.strip():
                problems.append(f"{what}: wrote on stderr {stderr[:300]!r}")
        if report["failures"][4]["results"] != ["2"]:
            problems.append(f"the variable of an earlier cell did not survive the failures: {report['failures'][4]['results']}")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return problems


DERIVE_CELL = """#[derive(Clone, Debug, Walk)]
struct Mlp {
    hidden: Linear,
    out: Linear,
}
manual_seed(42)?;
let mlp = Mlp { hidden: Linear::new(2, 4)?, out: Linear::new(4, 1)? };
let n = mlp.count_parameters();
let names = mlp.named_parameters().into_iter().map(|(name, _)| name).collect::<Vec<_>>();
format!("{n} {names:?}")"""


def derives(report):
    """Part 3: derives expanded for the types of variables, and without a proc-macro server."""
    problems = []
    want = '"17 [\\"hidden.weight\\", \\"hidden.bias\\", \\"out.weight\\", \\"out.bias\\"]"'
    report["derives"] = {}
    for mode, env in (("server", {}), ("no server", {"EVCXR_PROC_MACRO_SRV": "/nonexistent/rust-analyzer-proc-macro-srv"})):
        log = tempfile.NamedTemporaryFile(prefix="kernel-check-log-", delete=False)
        km = KernelManager(kernel_name="rust")
        km.kernel_spec.env.update(env)
        km.start_kernel(cwd=TESTS, stderr=log)
        try:
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=TIMEOUT)
            status, error, _, results = cell(kc, DERIVE_CELL)
            kc.stop_channels()
        finally:
            km.shutdown_kernel(now=True)
        said = open(log.name, errors="replace").read()
        os.remove(log.name)
        says = said.count("proc-macro server could not be started")
        report["derives"][mode] = {"status": status, "results": results, "error": error[1] if error else None, "log_lines": says}
        print(f"derive with {mode}: {status}, {results or (error[1][:120] if error else '')}; the log says so {says} time(s)", flush=True)
        if mode == "server" and (status != "ok" or results != [want]):
            problems.append(f"a derived struct's count_parameters() without a written type: {status}, {results}, {error}")
        if mode == "no server":
            if status != "error" or "Couldn't automatically determine type of variable" not in (error[1] if error else ""):
                problems.append(f"without a proc-macro server the cell should fail as before: {status}, {results}, {error}")
            if says != 1:
                problems.append(f"without a proc-macro server the kernel's log says so {says} times, not once")
    return problems


STORM_SECONDS, STORM_PEERS, STORM_REPLY = 20, 8, 15


def peer_storm(report):
    """Part 4: the shell socket while peers connect and leave by the thousand. Without patch 08
    its reading stopped for good within a second or two of such a storm (after 65 to 484 peers in
    five tries): the shell's task waited synchronously for its peer map's lock, which had been
    handed to a task that no other worker would run (tools/evcxr/README.md). An iopub subscriber
    reads all the while, as jupyter_server's does (the kernel's PUB socket waits for a subscriber
    that stops reading, where libzmq's would drop the messages)."""
    km = KernelManager(kernel_name="rust")
    km.start_kernel(cwd=TESTS)
    session = Session(key=km.session.key, signature_scheme=km.session.signature_scheme)
    address = f"{km.transport}://{km.ip}:"
    # Each nudging thread counts its own peers (a shared `+=` could lose some between threads).
    context, stop, peers = zmq.Context.instance(), threading.Event(), [0] * STORM_PEERS

    def socket(kind, port):
        s = context.socket(kind)
        s.linger = 0
        s.connect(address + str(port))
        return s

    def nudge(k):
        while not stop.is_set():
            s = socket(zmq.DEALER, km.shell_port)
            session.send(s, "kernel_info_request")
            s.poll(2000)
            s.close()
            peers[k] += 1

    def read_iopub():
        sub = socket(zmq.SUB, km.iopub_port)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        while not stop.is_set():
            if sub.poll(100):
                sub.recv_multipart()
        sub.close()

    steady = socket(zmq.DEALER, km.shell_port)
    threads = [threading.Thread(target=read_iopub, daemon=True)]
    threads += [threading.Thread(target=nudge, args=(k,), daemon=True) for k in range(STORM_PEERS)]
    answered, problems = 0, []
    try:
        session.send(steady, "kernel_info_request")
        if not steady.poll(TIMEOUT * 1000):
            problems.append(f"peers coming and going: the kernel never answered kernel_info within {TIMEOUT} s of its start")
        else:
            session.recv(steady)
            for t in threads:
                t.start()
            end = time.monotonic() + STORM_SECONDS
            while time.monotonic() < end:
                session.send(steady, "kernel_info_request")
                if not steady.poll(STORM_REPLY * 1000):
                    problems.append(f"peers coming and going: the shell socket stopped answering after {answered} requests "
                                    f"and {sum(peers)} peers (no reply within {STORM_REPLY} s)")
                    break
                session.recv(steady)
                answered += 1
                time.sleep(0.05)
            stop.set()
            for t in threads:
                t.join()
        if not problems:
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=TIMEOUT)
            status, error, _, results = cell(kc, "40 + 2")
            kc.stop_channels()
            if status != "ok" or results != ["42"]:
                problems.append(f"peers coming and going: the cell after the storm gave {status}, {results}, {error}")
    finally:
        stop.set()
        steady.close()
        km.shutdown_kernel(now=True)
    report["peer_storm"] = {"seconds": STORM_SECONDS, "threads": STORM_PEERS, "peers": sum(peers), "steady_requests_answered": answered,
                            "problems": problems}
    print(f"peers coming and going: {sum(peers)} peers in {STORM_SECONDS} s, {answered} steady requests answered"
          + (": " + "; ".join(problems) if problems else ", then a cell ran"), flush=True)
    return problems


def main():
    os.makedirs(OUT, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "arrangements.py"), "--check"], check=True)
    report = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "shared_deps": []}
    static = static_config()
    problems = []
    try:
        for part in (lambda: shared_deps(report, static), lambda: failures(report), lambda: derives(report),
                     lambda: peer_storm(report)):
            problems += part()
    finally:
        shutil.rmtree(static, ignore_errors=True)
        report["problems"] = problems
        with open(os.path.join(OUT, "report.json"), "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    for p in problems:
        print("FAIL " + p, file=sys.stderr)
    print("kernel-check: " + ("ok" if not problems else f"{len(problems)} problems") + f" (report: {OUT}/report.json)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
