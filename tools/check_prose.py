#!/usr/bin/env python3
"""Holds a notebook's prose to its outputs: every number in a markdown cell must be one that a code
cell of the same notebook printed, or one written in its code (a lecture's number the prose quotes
is printed beside ours by a cell). A run on another CPU that prints other trained numbers then
fails loudly instead of contradicting its prose.

    check_prose.py EXECUTED.ipynb ...   check executed notebooks (make notebooks does, after each run)
    check_prose.py --self-test          check the checker on notebooks it makes

What counts as a number: every decimal (`0.0832`, `98.82`, `30%`), every integer of two digits or
more (`964`, `1,000`) and every count out of a total (the 8 of `8 of the 526`); other single digits
are part numbers and small counts, and references to a lecture cell
(`000#37`) are names, not numbers. A quoted decimal matches a printed one that rounds to it at the
quoted precision (`0.0832` matches a printed `0.083154`), so prose may round but not differ.
"""
import json
import os
import re
import sys
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")
LECTURE_REF = re.compile(r"\b\d{3}#\d+")
# Names that hold digits but are no quantities: a subscript ($\alpha_{21}$), a width (32-bit).
NOT_A_QUANTITY = re.compile(r"_\{[^}]*\}|_\d+|\b\d+-bit\b")
# A count out of a total (`8 of the 526`): the count is checked whatever its size.
COUNT_OF = re.compile(r"\s+of\s+(?:the\s+|all\s+)?\d")
TAG = re.compile(r"<[^>]*>")


def numbers(text):
    """(match, Decimal) for every quantity in `text`: lecture references, subscripts and bit widths
    are blanked out first (with spaces, so that the matches keep their places in `text`)."""
    blank = lambda r: " " * len(r.group(0))
    text = NOT_A_QUANTITY.sub(blank, LECTURE_REF.sub(blank, text))
    return [(m, Decimal(m.group(1).replace(",", "") + (m.group(2) or ""))) for m in NUMBER.finditer(text)]


def checked(written, value):
    """Whether a number of the prose is held to the outputs: decimals, and integers of 2+ digits."""
    return "." in written or value >= 10


def decimals(written):
    return len(written.split(".")[1]) if "." in written else 0


def output_text(output):
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    parts = []
    for mime in ("text/plain", "text/html", "image/svg+xml", "text/markdown"):
        if mime in data:
            parts.append(TAG.sub(" ", "".join(data[mime])))
    return "\n".join(parts)


class Source:
    """The numbers a notebook's prose may quote, with the precision each was written with."""

    def __init__(self, texts):
        self.values = {}
        for text in texts:
            for m, value in numbers(text):
                self.values[value] = max(self.values.get(value, 0), decimals(m.group(0)))

    def holds(self, written, value):
        if value in self.values:
            return True
        k = decimals(written)
        quantum = Decimal(1).scaleb(-k)
        for v, places in self.values.items():
            if places > k and abs(v - value) < quantum:
                if any(v.quantize(quantum, rounding=r) == value for r in (ROUND_HALF_UP, ROUND_HALF_EVEN)):
                    return True
        return False


def problems(nb):
    """Each number of the prose that no output or code cell holds: (cell, number, context)."""
    cells = nb["cells"]
    src = lambda c: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
    texts = [src(c) for c in cells if c["cell_type"] == "code"]
    texts += [output_text(o) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    source = Source(texts)
    found = []
    for i, cell in enumerate(cells, 1):
        if cell["cell_type"] != "markdown":
            continue
        text = src(cell)
        for m, value in numbers(text):
            written = m.group(0)
            counted = COUNT_OF.match(text, m.end()) is not None
            if (checked(written, value) or counted) and not source.holds(written, value):
                context = text[max(0, m.start() - 50) : m.end() + 30].replace("\n", " ")
                found.append((i, written, context))
    return found


def check(paths):
    bad = 0
    for path in paths:
        nb = json.load(open(path, encoding="utf-8"))
        for cell, written, context in problems(nb):
            bad += 1
            print(f"{path}: cell {cell} quotes {written}, which no cell of the notebook prints: ...{context}...", file=sys.stderr)
    return bad


def self_test():
    def nb(markdown, printed, code="let x = 3;"):
        return {
            "cells": [
                {"cell_type": "code", "source": code, "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]},
                {"cell_type": "markdown", "source": markdown},
            ]
        }

    cases = [
        # (prose, printed, quoted numbers that must be reported)
        ("BLEU is 98.82 greedy.", "BLEU 98.82 (greedy)", []),
        ("BLEU is 98.82 greedy.", "BLEU 98.22 (greedy)", ["98.82"]),
        ("The loss ends near 0.0832.", "loss: 0.083154", []),
        ("The loss ends near 0.0831.", "loss: 0.083154", ["0.0831"]),
        ("964 of 1,000 are exact.", "exact: 956 of 1000", ["964"]),
        ("956 of 1,000 are exact.", "exact: 956 of 1000", []),
        ("Lecture cell 000#37 and part 2 with 4 heads.", "", []),
        ("About 30% are zeroed.", "zeroed: 5 of 12", ["30"]),
        ("The code uses 10000.", "", []),
        ("Rows $\\alpha_{21}$ and $\\alpha_{32}$ of 32-bit floats.", "", []),
        ("Each model's error is 1.22 times the baseline's.", "GRU 1.22x", []),
        ("Each model's error is 1.25 times the baseline's.", "GRU 1.22x", ["1.25"]),
        ("8 of the 526 short ones fail, and 9 of the 53 long.", "short: 5 of 526; long: 11 of 53", ["8", "9"]),
        ("5 of the 526 short ones fail, and 11 of the 53 long.", "short: 5 of 526; long: 11 of 53", []),
    ]
    failures = []
    for prose, printed, expected in cases:
        got = [w for _, w, _ in problems(nb(prose, printed, code="let base = 10000.0;"))]
        if got != expected:
            failures.append(f"{prose!r} with output {printed!r}: reported {got}, expected {expected}")
    if failures:
        print("check_prose self-test failed:\n" + "\n".join(failures), file=sys.stderr)
        return 1
    print(f"check_prose self-test: {len(cases)} cases ok")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bad = check(argv)
    if bad:
        print(f"{bad} numbers in the prose are not printed by any cell: print them from a cell, or describe them without quoting", file=sys.stderr)
        return 1
    print(f"prose: every number in {len(argv)} notebooks is printed by a cell or written in its code")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
