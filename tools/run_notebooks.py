#!/usr/bin/env python3
"""Executes notebooks under the real evcxr kernel and writes the executed copy and an HTML page of
each into an output folder. Exits non-zero, naming the notebook and the code cell, when a cell
does not compile, returns an error or panics, or when a notebook is not valid JSON.

Usage: run_notebooks.py OUT_DIR NOTEBOOK...
"""
import json
import os
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, DeadKernelError
from nbconvert import HTMLExporter

KERNEL = "rust"
# evcxr reports a panicking cell as a success unless told otherwise, and a cell whose `?` returned
# an error as a success always (it prints the error on stderr). So the runner also fails a cell
# that wrote to stderr or printed the marks of a panic or a compile error.
SETUP = ":preserve_vars_on_panic 0"
FAILURE_MARKS = [re.compile(r"panicked at"), re.compile(r"^error(\[E\d+\])?:", re.M)]
CELL_TIMEOUT = int(os.environ.get("NOTEBOOK_CELL_TIMEOUT", "900"))


class NotebookFailure(Exception):
    pass


def first_line(source):
    for line in source.splitlines():
        if line.strip():
            return line.strip()
    return "(empty cell)"


def load(path):
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
    try:
        return nbformat.reads(json.dumps(raw), as_version=4)
    except Exception as e:  # nbformat's own validation
        raise NotebookFailure(f"{path}: not a valid notebook: {e}")


def output_text(output):
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return "\n".join([output.get("ename", ""), output.get("evalue", "")] + output.get("traceback", []))
    return ""


def strip_ansi(s):
    return re.sub(r"\x1b\[[0-9;]*m", "", s)


def run(path, out_dir):
    nb = load(path)
    name = os.path.splitext(os.path.basename(path))[0]
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    setup = nbformat.v4.new_code_cell(SETUP)
    nb.cells.insert(0, setup)
    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
    )
    started = time.time()
    failure = None
    try:
        client.execute()
    except (CellExecutionError, DeadKernelError, TimeoutError, RuntimeError) as e:
        failure = e
    finally:
        nb.cells.remove(setup)
        # Number the notebook's own cells from 1, as a reader running it would see them.
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.get("execution_count"):
                cell.execution_count -= 1
                for o in cell.get("outputs", []):
                    if o.get("execution_count"):
                        o["execution_count"] -= 1
    # Find the failing cell: the first code cell with an error output or a panic in its output.
    bad = None
    for number, cell in enumerate(code_cells, 1):
        text = strip_ansi("".join(output_text(o) for o in cell.get("outputs", [])))
        outputs = cell.get("outputs", [])
        stderr = any(o.get("output_type") == "stream" and o.get("name") == "stderr" and o.get("text", "").strip() for o in outputs)
        if stderr or any(o.get("output_type") == "error" for o in outputs) or any(m.search(text) for m in FAILURE_MARKS):
            bad = (number, cell, text)
            break
    os.makedirs(out_dir, exist_ok=True)
    nbformat.write(nb, os.path.join(out_dir, f"{name}.ipynb"))
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    with open(os.path.join(out_dir, f"{name}.html"), "w", encoding="utf-8") as f:
        f.write(html)
    elapsed = time.time() - started
    if bad is not None:
        number, cell, text = bad
        raise NotebookFailure(f"{path}: code cell {number} (`{first_line(cell.source)}`) failed:\n{text.strip()[-4000:]}")
    if failure is not None:
        raise NotebookFailure(f"{path}: the kernel failed before any cell reported an error: {strip_ansi(str(failure))[-4000:]}")
    print(f"ok  {path}: {len(code_cells)} code cells in {elapsed:.1f} s -> {out_dir}/{name}.html", flush=True)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, paths = argv[0], argv[1:]
    failures = []
    for path in paths:
        try:
            run(path, out_dir)
        except NotebookFailure as e:
            print(f"FAIL {e}", file=sys.stderr, flush=True)
            failures.append(path)
    if failures:
        print(f"{len(failures)} of {len(paths)} notebooks failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    print(f"{len(paths)} notebooks executed under the '{KERNEL}' kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
