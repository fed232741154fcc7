"""Writes notebooks/lecture_map.md: every code cell of the lecture (000, 001), of the Transformer
notebook (002) and of the blog post (004), with the notebook cell that mirrors it or the reason it
is left out.

    .venv/bin/python tools/lecture_map.py [--seeds DIR] [--check]   (nbformat reads the notebooks)

The notebooks say which lecture cell each of their code cells mirrors, in the cell's metadata
(`"lecture": "000#37"`: the 37th code cell of 000, counting from 1 in reading order), and which
lecture cells they leave out, in the notebook's metadata (`"lecture_skipped": {"000#1": "reason"}`).
001 repeats most of 000 with small fixes: a 001 cell whose code matches a 000 cell is listed as
that cell; the others are tagged or skipped as `001#n`. `--check` fails if a lecture cell is
neither mirrored nor skipped, if a tag names no lecture cell, or if the map on disk is stale.
The seeds (the lecture's text) are read from ../shared/seeds by default; CI does not need them:
tests/lecture_tags.rs checks the tags against the committed map.
"""
import argparse
import difflib
import glob
import os
import re
import sys

try:
    import nbformat
except ImportError:  # the messages elsewhere say python3: nbformat is in .venv (make setup)
    sys.exit("tools/lecture_map.py reads notebooks through nbformat: run it with .venv/bin/python (`make setup` installs it)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = {
    "000": "the lecture (PDF export)",
    "001": "the lecture's later version, with the GPS exercise",
    "002": "the Transformer notebook",
    "004": "the blog post",
}
IN_CELL = re.compile(r"^In \[[^\]]*\]:(.*)$")


def lecture_cells(text):
    """Code cells of 000/001/002: an `In [ ]:` marker, the code on its line or on the next ones
    (inside the same ``` fence, or in the fence that follows a marker written outside one)."""
    lines = text.split("\n")
    cells = []
    fenced = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = IN_CELL.match(line)
        if not m:
            continue
        body = []
        first = m.group(1).strip()
        if first:
            body.append(first.strip("`"))
        if not first.startswith("`"):
            rest = lines[i + 1:]
            if not fenced and not first:
                # `In []:` outside a fence: its code is the next fenced block
                while rest and not rest[0].strip():
                    rest = rest[1:]
                if rest and rest[0].startswith("```"):
                    rest = rest[1:]
            k = 0
            while k < len(rest) and len(body) < 12:
                nxt = rest[k]
                if nxt.startswith("Out[") or IN_CELL.match(nxt):
                    break
                if nxt.startswith("```"):
                    # the export sometimes splits one cell over two fences: go on into the next
                    # fence unless it holds output or another cell
                    j = k + 1
                    while j < len(rest) and not rest[j].strip():
                        j += 1
                    after = rest[j + 1] if j + 1 < len(rest) else ""
                    if j < len(rest) and rest[j].startswith("```") and after.strip() and not (
                        after.startswith("Out[") or IN_CELL.match(after) or after.startswith("```")
                    ):
                        k = j + 1
                        continue
                    break
                if nxt.strip():
                    body.append(nxt.strip())
                k += 1
        cells.append(body)
    return cells


def blog_cells(text):
    """Code blocks of 004: fenced ```python blocks."""
    cells, body, inside = [], [], False
    for line in text.split("\n"):
        if not inside and line.startswith("```python"):
            inside, body = True, []
        elif inside and line.startswith("```"):
            inside = False
            cells.append(body)
        elif inside and line.strip():
            body.append(line.strip())
    return cells


def load_seeds(seeds):
    docs = {}
    for doc in DOCS:
        [path] = glob.glob(os.path.join(seeds, f"{doc}_*.txt"))
        text = open(path, encoding="utf-8").read()
        docs[doc] = blog_cells(text) if doc == "004" else lecture_cells(text)
    return docs


def norm(body):
    return re.sub(r"\s+", "", "\n".join(body))


def align_001(c000, c001):
    """001 cell index -> 000 cell index, for the cells whose code is (nearly) the same."""
    a, b = [norm(c) for c in c000], [norm(c) for c in c001]
    same, variant = {}, {}
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                same[j1 + k] = i1 + k
        elif tag == "replace":
            for j in range(j1, j2):
                best = max(range(i1, i2), key=lambda i: difflib.SequenceMatcher(None, a[i], b[j]).ratio())
                if a[best] and difflib.SequenceMatcher(None, a[best], b[j]).ratio() > 0.75:
                    variant[j] = best
    return same, variant


def notebooks():
    """(notebook name, code cell number, cell id, tag) for every tagged cell, and the skips."""
    tags, skips = [], {}
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
        nb = nbformat.read(path, as_version=4)
        name = os.path.basename(path)
        code = 0
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            code += 1
            tag = cell.get("metadata", {}).get("lecture")
            if tag:
                tags.append((name, code, cell.get("id", ""), tag))
        for tag, why in nb.get("metadata", {}).get("lecture_skipped", {}).items():
            skips[tag] = (name, why)
    return tags, skips


def first_line(lines, comments=("#",)):
    """A cell's first line of code, stripped: past blank lines, a docstring block (a line opening
    with three quotes) and comment lines (opening with one of `comments`). A cell with none: its
    first line of docstring or comment text, else "(empty cell)". The map's rows name a lecture
    cell by it, and tools/run_notebooks.py a notebook's code cell (`comments=()`: Rust, its
    lecture reference dropped first)."""
    lines = [line.strip() for line in lines]
    code, quote = [], None
    for line in lines:
        if quote:
            if quote in line:
                quote = None
            continue
        mark = line[:3]
        if mark in ("'''", '"""'):
            if not (len(line) > 3 and line.endswith(mark)):
                quote = mark
            continue
        if line and not line.startswith(comments):
            code.append(line)
    # a cell that is all docstring: its first line of text
    text = [line.strip("'\"") for line in lines if line.strip("'\"")]
    return (code or text or [line for line in lines if line] or ["(empty cell)"])[0]


def starts_with(body):
    """A lecture cell's first line as the map's `starts with` column shows it: `|` escaped, a
    backtick made a quote, cut to 60 characters."""
    line = first_line(body).replace("|", "\\|").replace("`", "'")
    return line if len(line) <= 60 else line[:57] + "..."


def build(seeds):
    docs = load_seeds(seeds)
    same, variant = align_001(docs["000"], docs["001"])
    tags, skips = notebooks()
    where = {}
    problems = []
    for name, code, cid, tag in tags:
        if tag in where:
            problems.append(f"{tag} is tagged twice: {where[tag]} and {name} code cell {code}")
        where[tag] = f"{name} code cell {code}"
    out = [
        "# Lecture map",
        "",
        "Every code cell of the documents in `../shared/seeds` and the notebook cell that mirrors it,",
        "or why none does. Generated by `.venv/bin/python tools/lecture_map.py` from the notebooks' tags (a code",
        "cell's metadata `\"lecture\": \"000#37\"`) and skips (a notebook's metadata `lecture_skipped`);",
        "`tests/lecture_tags.rs` checks that this file and the tags agree. `000#37` is the 37th code cell",
        "of document 000 in reading order, counting from 1; code cells are numbered among a notebook's code",
        "cells, counting from 1 (markdown cells not counted).",
        "",
    ]
    known = set()
    for doc, title in DOCS.items():
        out += [f"## {doc}: {title}", "", "| lecture cell | starts with | mirrored by |", "|---|---|---|"]
        for n, body in enumerate(docs[doc], 1):
            tag = f"{doc}#{n}"
            known.add(tag)
            if tag in where:
                target = where[tag]
            elif tag in skips:
                target = f"skipped ({skips[tag][0]}): {skips[tag][1]}"
            elif doc == "001" and n - 1 in same:
                twin = f"000#{same[n - 1] + 1}"
                target = f"same code as {twin}"
            elif doc == "001" and n - 1 in variant:
                twin = f"000#{variant[n - 1] + 1}"
                target = f"**nothing** (a variant of {twin})"
                problems.append(f"{tag} (`{starts_with(body)}`) differs from {twin} and is neither mirrored nor skipped")
            else:
                target = "**nothing**"
                problems.append(f"{tag} (`{starts_with(body)}`) is neither mirrored nor skipped")
            out.append(f"| {tag} | `{starts_with(body)}` | {target} |")
        out.append("")
    for tag in list(where) + list(skips):
        if tag not in known:
            problems.append(f"{tag} names no code cell of the documents")
    return "\n".join(out), problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default=os.path.join(ROOT, "..", "shared", "seeds"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text, problems = build(args.seeds)
    path = os.path.join(ROOT, "notebooks", "lecture_map.md")
    if args.check:
        on_disk = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if on_disk != text:
            problems.append(f"{path} is stale: run .venv/bin/python tools/lecture_map.py")
    else:
        open(path, "w", encoding="utf-8").write(text)
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
