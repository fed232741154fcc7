"""Keeps the committed notebooks in one shape: nbformat 4.5, every cell with a stable id, code
cells without outputs or execution counts, JSON as Jupyter writes it (indent 1, sorted keys).

    python3 tools/notebook_tidy.py [--check] [NOTEBOOK...]   (default: notebooks/*.ipynb)

A cell that has an id keeps it; a new cell gets the next free `cNN` id of its notebook, so ids do
not change when a cell is edited or moved. `--check` changes nothing and fails on a notebook that
is not tidy; tests/lecture_tags.rs checks the same in `cargo test`.
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tidy(nb):
    nb["nbformat"], nb["nbformat_minor"] = 4, 5
    used = {c["id"] for c in nb["cells"] if c.get("id")}
    n = 0
    for cell in nb["cells"]:
        if not cell.get("id"):
            while f"c{n:02d}" in used:
                n += 1
            cell["id"] = f"c{n:02d}"
            used.add(cell["id"])
        cell.setdefault("metadata", {})
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv):
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"] or sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    bad = []
    for path in paths:
        text = open(path, encoding="utf-8").read()
        new = tidy(json.loads(text))
        if new != text:
            if check:
                bad.append(path)
            else:
                open(path, "w", encoding="utf-8").write(new)
                print(f"tidied {path}")
    for path in bad:
        print(f"{path} is not tidy: run python3 tools/notebook_tidy.py", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
