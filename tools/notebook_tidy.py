"""Keeps the committed notebooks in one shape: nbformat 4.5, every cell with a stable id, code
cells without outputs or execution counts, JSON as Jupyter writes it (indent 1, sorted keys), each
cell's source one string. Notebooks are read and written through nbformat (`make setup` installs it
in .venv):

    .venv/bin/python tools/notebook_tidy.py [--check] [NOTEBOOK...]   (default: notebooks/*.ipynb,
    notebooks/exercises/*.ipynb and notebooks/exercises-source/*.ipynb)

A cell that has an id keeps it; a new cell gets the next free `cNN` id of its notebook, so ids do
not change when a cell is edited or moved. Every code cell of the course notebooks opens with
its lecture reference, visible in the Lab and in the pages: `// lecture 000#37 · <the lecture
cell's first line>` for a cell that mirrors a lecture cell (its metadata tag, the line taken from
notebooks/lecture_map.md: run tools/lecture_map.py first when tags change), `// ours, not in the
lecture` for an addition (in the notebooks that mirror the lecture: all but 00, the tour). `--check` changes nothing and fails on a notebook that is not tidy;
tests/lecture_tags.rs checks the same in `cargo test`.
"""
import glob
import os
import re
import sys

try:
    import nbformat
    import nbformat.reader
except ImportError:  # the messages elsewhere say python3: nbformat is in .venv (make setup)
    sys.exit("tools/notebook_tidy.py reads notebooks through nbformat: run it with .venv/bin/python (`make setup` installs it)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LECTURE_MAP = os.path.join(ROOT, "notebooks", "lecture_map.md")
OURS = "// ours, not in the lecture"


def lecture_lines():
    """Tag -> the lecture cell's first line, from the committed lecture map."""
    lines = {}
    for row in open(LECTURE_MAP, encoding="utf-8").read().splitlines():
        m = re.match(r"^\| (\d{3}#\d+) \| `(.*)` \| .* \|$", row)
        if m:
            lines[m.group(1)] = m.group(2).replace("\\|", "|")
    return lines


def reference(cell, lines):
    tag = cell.get("metadata", {}).get("lecture")
    return f"// lecture {tag} · {lines[tag]}" if tag else OURS


def stamp(cell, lines):
    """The cell's source with its reference as the first line (replacing an older one)."""
    body = cell["source"].split("\n")
    if body and (body[0].startswith("// lecture ") or body[0] == OURS):
        body = body[1:]
    return "\n".join([reference(cell, lines)] + body)


def tidy(nb, lines=None):
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
            if lines is not None:
                cell["source"] = stamp(cell, lines)
    # nbformat's own writer (indent 1, sorted keys, ensure_ascii off, as Jupyter saves; it drops
    # transient metadata such as a cell's `trusted`); split_lines off keeps each source one string,
    # as the committed notebooks have it, and nbformat.write's trailing newline is added here so
    # that --check compares the very text that would be written.
    return nbformat.writes(nb, split_lines=False) + "\n"


def main(argv):
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"] or sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))) + sorted(
        glob.glob(os.path.join(ROOT, "notebooks", "exercises", "*.ipynb"))) + sorted(
        glob.glob(os.path.join(ROOT, "notebooks", "exercises-source", "*.ipynb")))
    lines = lecture_lines()
    course = os.path.join(ROOT, "notebooks")
    bad = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # nbformat.reads would validate on reading, and its validation gives a 4.5 cell without an
        # id a random one: read without validating (converting an older major version to 4), so
        # that tidy() numbers such a cell `cNN`; nbformat validates what tidy() writes.
        nb = nbformat.convert(nbformat.reader.reads(text), 4)
        # the course notebooks that mirror the lecture (00, the tour, mirrors none)
        mirrors = os.path.dirname(os.path.abspath(path)) == course and any(
            c.get("metadata", {}).get("lecture") for c in nb["cells"]
        )
        new = tidy(nb, lines if mirrors else None)
        if new != text:
            if check:
                bad.append(path)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                print(f"tidied {path}")
    for path in bad:
        print(f"{path} is not tidy: run .venv/bin/python tools/notebook_tidy.py", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
