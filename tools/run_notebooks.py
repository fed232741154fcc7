#!/usr/bin/env python3
"""Executes notebooks under the real evcxr kernel and writes the executed copy and an HTML page of
each into an output folder. Exits non-zero, naming the notebook and the code cell, when a cell
does not compile, returns an error or panics (each a Jupyter error under the project's kernel), or
when a notebook is not valid JSON.

Also reports how long the kernel took to start and each cell took to run (from the execution
timestamps Jupyter records), prints the slowest cells and a table per notebook, and writes it all
to OUT_DIR/timings.json. With --floor FLOOR.ipynb (`make notebooks` passes tools/evcxr/floor.ipynb)
that notebook of trivial cells runs first with the same kernel, and every notebook's median and
p90 cell are also given as a ratio to the floor's median cell, measured in the same minutes.

With --skip-unchanged, a notebook whose source, the crate (Cargo.toml, Cargo.lock, src/) and the
kernel set-up (tools/evcxr/, the kernel spec, this runner) are unchanged since its last successful
run is not run again (its stamp is OUT_DIR/NAME.stamp).

Every number in a course notebook's markdown must be one its cells printed in this run or one written in
its code (tools/check_prose.py); a notebook whose prose quotes another fails.

An exercise notebook (notebooks/exercises/) runs twice, into OUT_DIR/exercises/: the students'
version as committed, where every check cell must say Not attempted, and as NAME.source its
source (notebooks/exercises-source/NAME.ipynb: the crate's solutions in the answer cells, each
check cell ending with its grading line, as nbgrader runs it), where every check cell's result
must be its points with a Correct box. Both keep their progress files (.zoo-progress.json) there:
the kernel inherits ZOO_PROGRESS. Nothing is written in notebooks/.

With --own (`make notebooks NB=...`, for a student's own notebooks, from any folder), a value
evcxr shows as plain text is fine; a cell that does not compile, returns an error or panics still
stops the run (under the project's kernel each is a Jupyter error, as plain `jupyter nbconvert
--execute` sees it too).

Usage: run_notebooks.py [--skip-unchanged | --own] [--floor FLOOR.ipynb] OUT_DIR NOTEBOOK...
"""
import glob
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import time
import warnings
from datetime import datetime

import jupyter_server_mathjax
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, DeadKernelError
from nbconvert import HTMLExporter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_prose  # noqa: E402 (beside this file)
from lecture_map import first_line  # noqa: E402

# A course notebook's code cell opens with its lecture reference (tools/notebook_tidy.py): a cell is
# named by its first line of code after it.
REFERENCE = ("// lecture ", "// ours, ",
             # and in an exercise's source, the hidden lines before the students' check
             "// BEGIN HIDDEN TESTS", "// END HIDDEN TESTS", "if false { // graded")

KERNEL = "rust"
# The runner's own first cell, which runs nothing: the kernel's start is timed to it, and a
# start-up that failed is its error (tools/evcxr/README.md). A cell that does not compile, whose
# `?` returns an error or that panics ends in a Jupyter error under the project's kernel, as in
# any kernel that keeps to Jupyter's protocol: nbclient stops there, and so does the runner.
SETUP = "// the notebook runner's first cell: the kernel's start-up reports here"
CELL_TIMEOUT = int(os.environ.get("NOTEBOOK_CELL_TIMEOUT", "900"))


# The HTML pages load MathJax from a folder beside them (copied from the jupyter-server-mathjax
# package), not from a CDN: a page opened without internet still renders its formulas. That
# package ships MathJax's STIX web fonts, not its TeX ones, which MathJax asks for first: without
# them it drew the formulas in the system's fonts (upright variables, a square root's bar apart
# from its d_k). Our config, local/zoo.js, makes it use the STIX web fonts and never the system's.
MATHJAX_DIR = "mathjax"
MATHJAX_URL = f"{MATHJAX_DIR}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe,local/zoo"
# The hidden MathML copy MathJax keeps for screen readers gets MathJax's TeX web fonts from its
# MathML styles (a double-struck R asked for MathJax_AMS-Regular.otf, which is not there either):
# it inherits the page's fonts instead, being invisible anyway.
MATHJAX_FONTS = """MathJax.Hub.Config({
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null},
  styles: {".MJX_Assistive_MathML [mathvariant]": {"font-family": "inherit !important"}}
});
MathJax.Ajax.loadComplete("[MathJax]/config/local/zoo.js");
"""


def local_mathjax(out_dir):
    source = os.path.join(os.path.dirname(jupyter_server_mathjax.__file__), "static")
    target = os.path.join(out_dir, MATHJAX_DIR)
    if not os.path.exists(os.path.join(target, "MathJax.js")):
        shutil.copytree(source, target, dirs_exist_ok=True)
    os.makedirs(os.path.join(target, "config", "local"), exist_ok=True)
    with open(os.path.join(target, "config", "local", "zoo.js"), "w") as f:
        f.write(MATHJAX_FONTS)


def page_of(nb):
    """The notebook as an HTML page that needs nothing from the network: nbconvert's lab template
    loads require.js from a CDN, which none of our outputs use, so that script tag is left out."""
    exporter = HTMLExporter(template_name="lab", mathjax_url=MATHJAX_URL)
    html, _ = exporter.from_notebook_node(nb)
    tag = f'<script src="{exporter.require_js_url}"></script>'
    if tag not in html:
        raise NotebookFailure(f"nbconvert's page no longer has the require.js tag this runner removes ({tag})")
    # a link from one notebook to another (`[the primer](00_tour.ipynb#...)`) goes to its page
    return re.sub(r'href="([\w.-]+)\.ipynb(#[^"]*)?"', r'href="\1.html\2"', html.replace(tag, ""))


class NotebookFailure(Exception):
    pass


def load(path, strict=True):
    try:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
    except (OSError, ValueError) as e:
        raise NotebookFailure(f"{path}: not a readable notebook (invalid JSON): {e}")
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise NotebookFailure(f"{path}: not a notebook: the top level has no 'cells' list")
    for i, cell in enumerate(raw["cells"], 1):
        if not isinstance(cell, dict) or "cell_type" not in cell or "source" not in cell:
            raise NotebookFailure(f"{path}: cell {i} lacks 'cell_type' or 'source'")
    # nbformat only warns about what its next version will refuse (a cell without an id, say):
    # the runner treats every warning as a failure, so the notebooks stay valid for that version.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            nb = nbformat.reads(json.dumps(raw), as_version=4)
            nbformat.validate(nb)
        except Exception as e:  # nbformat's own validation
            raise NotebookFailure(f"{path}: not a valid notebook: {e}")
    if caught and strict:
        found = "; ".join(sorted({str(w.message).strip() for w in caught}))
        raise NotebookFailure(f"{path}: nbformat warns: {found} (.venv/bin/python tools/notebook_tidy.py fixes ids and the format)")
    if strict and (raw.get("nbformat"), raw.get("nbformat_minor")) < (4, 5):
        raise NotebookFailure(f"{path}: nbformat {raw.get('nbformat')}.{raw.get('nbformat_minor')}, not 4.5: cells need ids (.venv/bin/python tools/notebook_tidy.py)")
    return nb


def output_text(output):
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return "\n".join([output.get("ename", ""), output.get("evalue", "")] + output.get("traceback", []))
    return ""


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def setup_files():
    """The files besides a notebook that decide what it prints: the crate and the kernel set-up."""
    files = [os.path.join(ROOT, "Cargo.toml"), os.path.join(ROOT, "Cargo.lock"), os.path.abspath(__file__),
             os.path.join(ROOT, "tools", "check_prose.py")]
    for folder in ("src", "macros", os.path.join("tools", "evcxr")):
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            files.extend(os.path.join(base, n) for n in names if not n.endswith(".pyc"))
    spec = os.path.join(os.environ.get("JUPYTER_DATA_DIR", ""), "kernels", KERNEL, "kernel.json")
    if os.path.exists(spec):
        files.append(spec)
    return sorted(files)


def stamp_of(path):
    """A digest of the notebook and of everything else that decides its run."""
    h = hashlib.sha256()
    source = [source_of(path)] if is_exercise(path) and os.path.exists(source_of(path)) else []
    for f in [os.path.abspath(path)] + source + setup_files():
        h.update(os.path.relpath(f, ROOT).encode())
        with open(f, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def stamp_path(out_dir, path):
    folder = os.path.join(out_dir, "exercises") if is_exercise(path) else out_dir
    return os.path.join(folder, os.path.splitext(os.path.basename(path))[0] + ".stamp")


TRAINS = re.compile(r"\.train\(")


def stamp(cell, key):
    value = cell.get("metadata", {}).get("execution", {}).get(key)
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def cell_seconds(cell):
    """Seconds from the kernel taking the cell to its reply, from Jupyter's own timestamps."""
    start = stamp(cell, "iopub.execute_input") or stamp(cell, "iopub.status.busy")
    end = stamp(cell, "shell.execute_reply") or stamp(cell, "iopub.status.idle")
    return None if start is None or end is None else max(0.0, end - start)


def check_ms(cell):
    """What a Correct check says it took, `(1.2 ms)`, in milliseconds (the check alone, no kernel):
    in its plain text, or in its box where the plain text is the points (the grading form)."""
    for o in cell.get("outputs", []):
        for mime in ("text/plain", "text/html"):
            m = re.search(r"agrees? with the reference \(([\d.]+) ms\)", "".join(o.get("data", {}).get(mime, "")))
            if m:
                return float(m.group(1))
    return None


def timings_of(name, code_cells, setup, launched, elapsed):
    """The kernel start and every cell's time of one executed notebook."""
    # The kernel has started when it answers the runner's first cell: our patched evcxr takes
    # cells (and says it is busy) while its start-up still runs, and answers them after it.
    first = stamp(setup, "shell.execute_reply") or stamp(setup, "iopub.status.idle") or stamp(setup, "iopub.status.busy")
    cells = []
    for number, cell in enumerate(code_cells, 1):
        cells.append({
            "cell": number,
            "first_line": first_line(cell.source.splitlines(), REFERENCE),
            "seconds": cell_seconds(cell),
            "trains": bool(TRAINS.search(cell.source)),
            "shows": "show(" in cell.source,
            "check": cell.get("metadata", {}).get("check"),
            "check_ms": check_ms(cell),
        })
    return {
        "notebook": name,
        "kernel_launch_seconds": None if first is None else max(0.0, first - launched),
        "dep_cell_seconds": cells[0]["seconds"] if cells else None,
        "total_seconds": elapsed,
        "cells": cells,
    }


def summary(t, floor=None, floor_show=None):
    """Median and 90th percentile of the cells that do not train (the first cell after the :dep
    cell included), the training time, the time from kernel start to the first cell's reply, and
    the median and p90 as ratios to `floor` (the floor notebook's median cell) when given, the
    median also to `floor_show` (the floor's cells that show one tensor)."""
    quick = sorted(c["seconds"] for c in t["cells"][1:] if c["seconds"] is not None and not c["trains"])
    training = sum(c["seconds"] or 0.0 for c in t["cells"] if c["trains"])
    p90 = quick[min(len(quick) - 1, int(round(0.9 * (len(quick) - 1))))] if quick else None
    median = statistics.median(quick) if quick else None
    parts = [t["kernel_launch_seconds"]] + [c["seconds"] for c in t["cells"][:2]]
    first_output = sum(parts) if len(parts) == 3 and None not in parts else None
    ratio = lambda v: None if v is None or not floor else v / floor
    return {"median": median, "p90": p90, "training": training, "first_cell": t["cells"][1]["seconds"] if len(t["cells"]) > 1 else None,
            "start_to_first_output": first_output, "median_ratio": ratio(median), "p90_ratio": ratio(p90),
            "median_to_show": None if median is None or not floor_show else median / floor_show}


def show_cells_median(floor):
    """The floor's cells that show a tensor (most notebook cells show something): their median."""
    shows = [c["seconds"] for c in floor["cells"][2:] if c["seconds"] is not None and c.get("shows")]
    return statistics.median(shows) if shows else None


def report(timings, out_dir, floor=None):
    """Prints the table (the floor's row first) and the slowest cells, and writes
    OUT_DIR/timings.json."""
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    floor_median = summary(floor)["median"] if floor else None
    floor_show = show_cells_median(floor) if floor else None
    print("\nnotebook timings (seconds; median and p90 over cells that do not train, after the :dep cell;"
          " x: a ratio to the floor's median cell; x show: to the floor's cells that show a tensor"
          f"{'' if floor_show is None else f' ({floor_show:.2f} s)'}; first out: from kernel start to the first cell's reply)")
    print(f"{'notebook':<40} {'launch':>7} {':dep':>7} {'first':>7} {'first out':>9} {'median':>7} {'p90':>7} {'median x':>8} "
          f"{'p90 x':>7} {'x show':>7} {'training':>9} {'total':>8}")
    for t in ([floor] if floor else []) + timings:
        s = summary(t, floor_median, floor_show)
        t["summary"] = s
        print(f"{t['notebook']:<40} {fmt(t['kernel_launch_seconds']):>7} {fmt(t['dep_cell_seconds']):>7} {fmt(s['first_cell']):>7} "
              f"{fmt(s['start_to_first_output']):>9} {fmt(s['median']):>7} {fmt(s['p90']):>7} {fmt(s['median_ratio']):>8} "
              f"{fmt(s['p90_ratio']):>7} {fmt(s['median_to_show']):>7} {fmt(s['training']):>9} {fmt(t['total_seconds']):>8}")
    every = [(c["seconds"], t["notebook"], c) for t in timings for c in t["cells"] if c["seconds"] is not None]
    every.sort(key=lambda x: -x[0])
    print("slowest cells:")
    for seconds, name, c in every[:8]:
        print(f"  {seconds:7.2f} s  {name} cell {c['cell']}{' (trains)' if c['trains'] else ''}: {c['first_line'][:60]}")
    checks = [(c["seconds"], t["notebook"], c) for t in timings for c in t["cells"] if c.get("check") and c["seconds"] is not None]
    if checks:
        cell_times = sorted(x[0] for x in checks)
        alone = sorted(c["check_ms"] for _, _, c in checks if c.get("check_ms") is not None)
        slowest = max(checks, key=lambda x: x[0])
        print(f"exercise checks: {len(checks)} check cells, median {statistics.median(cell_times):.2f} s, slowest {slowest[0]:.2f} s "
              f"({slowest[1]}: {slowest[2]['first_line'][:40]}), each cell's compile and run by the kernel included"
              + (f"; the Correct checks alone: median {statistics.median(alone):.1f} ms, slowest {alone[-1]:.1f} ms" if alone else ""))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "timings.json"), "w") as f:
        json.dump({"floor": floor, "notebooks": timings}, f, indent=1)
        f.write("\n")


# What every check cell of each run of an exercise notebook must show.
VERDICTS = {"students": "Not attempted", "source": "Correct, graded its points"}


def is_exercise(path):
    return os.path.basename(os.path.dirname(os.path.abspath(path))) == "exercises"


def source_of(path):
    """The source of an exercise notebook (nbgrader's form): notebooks/exercises-source/NAME."""
    return os.path.join(os.path.dirname(os.path.abspath(path)) + "-source", os.path.basename(path))


def verdicts(nb, variant):
    """The check cells that do not show what `variant`'s run asks: (cell number, what they showed).
    The students' version: a box whose plain text's first line ends with Not attempted. The source:
    the grading form's result, the cell's points (nbgrader's metadata) as plain text and a box that
    says Correct."""
    wrong = []
    for number, cell in enumerate([c for c in nb.cells if c.cell_type == "code"], 1):
        if not cell.get("metadata", {}).get("check"):
            continue
        results = [o.get("data", {}) for o in cell.get("outputs", []) if o.get("output_type") == "execute_result"]
        said = "".join("".join(d.get("text/plain", "")) for d in results)
        html = "".join("".join(d.get("text/html", "")) for d in results)
        if variant == "students":
            ok = said.split("\n", 1)[0].endswith(": Not attempted")
        else:
            points = cell.metadata.get("nbgrader", {}).get("points")
            try:
                ok = points is not None and float(said) == float(points) and 'data-verdict="Correct"' in html
            except ValueError:
                ok = False
        if not ok:
            wrong.append((number, said.strip()[:600] or "(no outcome shown)"))
    return wrong


def strip_ansi(s):
    return re.sub(r"\x1b\[[0-9;]*m", "", s)


def run(path, out_dir, own=False, variant=None):
    name = os.path.splitext(os.path.basename(path))[0]
    if variant == "source":
        path = os.path.relpath(source_of(path))
        name += ".source"
    if variant is not None:
        # pages of the runs before the exercises had one source (NAME.solutions.*): gone
        for old in glob.glob(os.path.join(out_dir, glob.escape(name) + ".solutions.*")):
            os.remove(old)
    # The course's notebooks keep to nbformat 4.5 with cell ids; a student's may be older.
    nb = load(path, strict=not own)
    # An exercise notebook's run (`variant`: "students" or "source") keeps its progress in the
    # output folder (the kernel inherits ZOO_PROGRESS), not beside the committed notebook.
    if variant is not None:
        os.makedirs(out_dir, exist_ok=True)
        progress = os.path.join(os.path.abspath(out_dir), f"{name}.progress.json")
        if os.path.exists(progress):
            os.remove(progress)
        os.environ["ZOO_PROGRESS"] = progress
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    setup = nbformat.v4.new_code_cell(SETUP)
    nb.cells.insert(0, setup)
    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=CELL_TIMEOUT,
        # The kernel's start-up runs the warm-up (tools/evcxr/prelude.rs), which builds the crate
        # when its build folder is new: minutes, not nbclient's default 60 s.
        startup_timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
    )
    started = time.time()
    launched = started
    failure = None
    try:
        client.execute()
    except (CellExecutionError, DeadKernelError, TimeoutError, RuntimeError) as e:
        failure = e
    finally:
        os.environ.pop("ZOO_PROGRESS", None)
        elapsed_run = time.time() - started
        # an exercise notebook shares its name with a course notebook: its rows say which they are
        timing = timings_of(("exercises/" if variant else "") + name, code_cells, setup, launched, elapsed_run)
        nb.cells.remove(setup)
        # Number the notebook's own cells from 1, as a reader running it would see them.
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.get("execution_count"):
                cell.execution_count -= 1
                for o in cell.get("outputs", []):
                    if o.get("execution_count"):
                        o["execution_count"] -= 1
    # Find the failing cell: the first code cell with an error output.
    bad = None
    # The runner's own first cell gets the kernel's start-up error (our patched evcxr reports a
    # failed start-up as the first cell's error): a notebook run after one fails.
    if any(o.get("output_type") == "error" for o in setup.get("outputs", [])):
        bad = (0, setup, "the kernel's start-up failed: " + strip_ansi("".join(output_text(o) for o in setup.get("outputs", []))))
    for number, cell in enumerate(code_cells if bad is None else [], 1):
        text = strip_ansi("".join(output_text(o) for o in cell.get("outputs", [])))
        outputs = cell.get("outputs", [])
        if any(o.get("output_type") == "error" for o in outputs):
            bad = (number, cell, text)
            break
        # Every value a notebook shows has an `evcxr_display` (text and HTML or SVG); a result with
        # plain text alone is evcxr falling back to Debug because it could not call that method.
        plain = [o for o in outputs if o.get("output_type") == "execute_result" and set(o.get("data", {})) == {"text/plain"}]
        if own:
            continue
        if any("".join(o["data"]["text/plain"]).strip() == "()" for o in plain):
            bad = (number, cell, "the cell ends in a loop or another expression of type (), which evcxr shows as `()`: end it with `;`")
            break
        if plain:
            bad = (number, cell, "the cell's value was shown with Debug, not through its evcxr_display: evcxr keeps every "
                   "variable a cell defines, and when the last expression moves one of them it cannot call the method "
                   "(seen with evcxr 0.22); clone that variable there, or put the cell in a block:\n" + text)
            break
    os.makedirs(out_dir, exist_ok=True)
    nbformat.write(nb, os.path.join(out_dir, f"{name}.ipynb"))
    html = page_of(nb)
    local_mathjax(out_dir)
    with open(os.path.join(out_dir, f"{name}.html"), "w", encoding="utf-8") as f:
        f.write(html)
    elapsed = time.time() - started
    if bad is not None:
        number, cell, text = bad
        raise NotebookFailure(f"{path}: code cell {number} (`{first_line(cell.source.splitlines(), REFERENCE)}`) failed:\n{text.strip()[-4000:]}")
    if failure is not None:
        raise NotebookFailure(f"{path}: the kernel failed before any cell reported an error: {strip_ansi(str(failure))[-4000:]}")
    if variant is not None:
        wrong = verdicts(nb, variant)
        if wrong:
            lines = "\n".join(f"  code cell {n}: {said}" for n, said in wrong)
            raise NotebookFailure(f"{path} ({variant}): these checks did not say {VERDICTS[variant]}:\n{lines}")
    # The prose is held to what the cells printed in this run (tools/check_prose.py).
    quoted = [] if own else check_prose.problems(json.loads(nbformat.writes(nb)))
    if quoted:
        lines = "\n".join(f"  markdown cell {c} quotes {w}: ...{ctx}..." for c, w, ctx in quoted)
        raise NotebookFailure(f"{path}: its prose quotes numbers that no cell printed in this run:\n{lines}")
    how = f" ({variant}: every check {VERDICTS[variant]})" if variant else ""
    print(f"ok  {path}{how}: {len(code_cells)} code cells in {elapsed:.1f} s -> {out_dir}/{name}.html", flush=True)
    return timing


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    skip_unchanged = argv[0] == "--skip-unchanged"
    own = argv[0] == "--own"
    if skip_unchanged or own:
        argv = argv[1:]
    floor_path = None
    if argv[:1] == ["--floor"] and len(argv) > 1:
        floor_path, argv = argv[1], argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, paths = argv[0], argv[1:]
    failures = []
    timings = []
    skipped = []
    floor = None
    for path in paths:
        stamp = stamp_of(path)
        previous = stamp_path(out_dir, path)
        if skip_unchanged and os.path.exists(previous) and open(previous).read().strip() == stamp:
            print(f"skip {path}: unchanged since its last good run (FORCE=1 runs it anyway)", flush=True)
            skipped.append(path)
            continue
        if floor_path and floor is None:
            # The floor runs once, before the first notebook that runs, with the same kernel.
            try:
                floor = run(floor_path, out_dir)
            except NotebookFailure as e:
                print(f"FAIL {e}", file=sys.stderr, flush=True)
                failures.append(floor_path)
                floor_path = None
        try:
            if is_exercise(path) and not own:
                for variant in VERDICTS:
                    timings.append(run(path, os.path.join(out_dir, "exercises"), variant=variant))
            else:
                timings.append(run(path, out_dir, own))
            with open(previous, "w") as f:
                f.write(stamp + "\n")
        except NotebookFailure as e:
            print(f"FAIL {e}", file=sys.stderr, flush=True)
            failures.append(path)
    if timings:
        report(timings, out_dir, floor)
    if failures:
        print(f"{len(failures)} of {len(paths)} notebooks failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    print(f"{len(paths) - len(skipped)} notebooks executed under the '{KERNEL}' kernel" + (f", {len(skipped)} unchanged and skipped" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
