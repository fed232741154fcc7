#!/usr/bin/env python3
"""A course folder for nbgrader, built from the exercise notebooks: what `make grade-check` grades.

    python tools/course/make_course.py COURSE_DIR ASSIGNMENT NOTEBOOK...

writes COURSE_DIR/nbgrader_config.py (this folder's) and, for each exercise notebook given,
COURSE_DIR/source/ASSIGNMENT/NAME.ipynb in nbgrader's source form:

- each starter cell (metadata `exercise`) an autograded answer cell, with the crate's solution
  (src/notebook/code/excerpts.txt, as `solution()` shows it) in place of each `todo!()` between
  `// BEGIN SOLUTION` and `// END SOLUTION`: nbgrader's ClearSolutions puts back the `todo!()`
  (the config's stub), so the students' version has the starter as notebooks/exercises has it;
- each check cell (metadata `check`) an autograded test cell worth POINTS: the check as the
  students see it (`qN.check(ARGS)`, the cell's value, the box), then a hidden grading line
  (nbgrader's hidden tests: removed from the students' version, put back for autograding),
  `; { ::attention_zoo::practice::PART::qN.check(ARGS).grade(POINTS)? }`. Its `;` ends the
  students' line as a statement, so in the graded copy the value is the grading form's, with the
  full path (docs/practice.md): the points, or an error unless the answer is Correct;
- the first code cell read-only, without its `:dep` line (the kernel `rust` has the crate).

Also importable: `source_notebook`, `source_cell` (grade_check.py uses them).
"""
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from excerpts import solution_texts  # noqa: E402 (tools/ is on the path)

POINTS = 1
BEGIN, END = "// BEGIN SOLUTION", "// END SOLUTION"
# A check cell's grading line, between these, is in the source and the graded copies only:
# `generate_assignment` removes it (the students see the check as notebooks/exercises/ has it),
# `autograde` puts it back.
HIDDEN_BEGIN, HIDDEN_END = "// BEGIN HIDDEN TESTS", "// END HIDDEN TESTS"
TODO = re.compile(r"^(\s*)todo!\(\)\s*$")


def nbgrader_meta(grade_id, solution=False, grade=False, locked=False, points=None):
    meta = {"schema_version": 3, "grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id}
    if points is not None:
        meta["points"] = points
    return meta


def fn_body(text, name):
    """The lines of the body of `fn name` in `text` (between the brace that opens it and the one
    that closes it), or None."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if re.search(r"\bfn %s\b" % re.escape(name), line)), None)
    if start is None:
        return None
    opened = next((i for i in range(start, len(lines)) if lines[i].rstrip().endswith("{")), None)
    if opened is None:
        return None
    depth = 0
    for i in range(opened, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth == 0:
            return lines[opened + 1:i]
    return None


def fill_todos(code, body_of):
    """`code` with each `todo!()` line replaced by `body_of(fn, indent)`: the lines that take its
    place in the body of `fn` (the function it sits in; `indent`, the todo's), or None to keep it."""
    out, current = [], None
    for line in code.split("\n"):
        found = re.search(r"\bfn (\w+)", line)
        if found:
            current = found.group(1)
        todo = TODO.match(line)
        body = body_of(current or "", todo.group(1)) if todo else None
        out += [line] if body is None else body
    return "\n".join(out)


def source_cell(starter, solution):
    """The starter's code with each `todo!()` replaced by the solution's body of the same function
    between the solution markers."""

    def marked(name, indent):
        body = fn_body(solution, name)
        if body is None:
            raise SystemExit(f"make_course: no body of fn {name} in the solution:\n{solution}")
        return [indent + BEGIN, *body, indent + END]

    return fill_todos(starter, marked)


def check_call(code):
    """`(q, args)` of a check cell's `qN.check(ARGS)` line."""
    found = re.search(r"^(q\d+)\.check\((.*)\)\s*$", code, re.M | re.S)
    if not found:
        raise SystemExit(f"make_course: no `qN.check(..)` in a check cell:\n{code}")
    return found.group(1), found.group(2)


def part_of(nb):
    """The practice module the notebook's first code cell imports (`seq2seq`, `transformer`, ...)."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            found = re.search(r"attention_zoo::practice::(\w+)::\*", "".join(cell["source"]))
            if found:
                return found.group(1)
    raise SystemExit("make_course: the first code cell imports no practice module")


def source_notebook(path, points=POINTS):
    nb = json.load(open(path, encoding="utf-8"))
    texts = solution_texts()
    part = part_of(nb)
    first = True
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "".join(cell["source"])
        meta = cell.setdefault("metadata", {})
        name = os.path.splitext(os.path.basename(path))[0]
        if first:
            first = False
            cell["source"] = "\n".join(line for line in code.split("\n") if not line.startswith(":dep "))
            meta["nbgrader"] = nbgrader_meta(f"{name}_setup", locked=True)
        elif "exercise" in meta:
            picks = meta["solution"]
            solution = "\n\n".join(texts[(picks[0], pick)] for pick in picks[1:])
            cell["source"] = source_cell(code, solution)
            meta["nbgrader"] = nbgrader_meta(meta["exercise"].replace(".", "_"), solution=True)
        elif "check" in meta:
            q, args = check_call(code)
            head = code.split("\n", 1)[0]
            cell["source"] = "\n".join([*code.split("\n"), HIDDEN_BEGIN,
                                        f"; {{ ::attention_zoo::practice::{part}::{q}.check({args}).grade({float(points)})? }}",
                                        HIDDEN_END])
            meta["nbgrader"] = nbgrader_meta(meta["check"].replace(".", "_") + "_test", grade=True, locked=True, points=points)
    return nb


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    course, assignment, notebooks = argv[0], argv[1], argv[2:]
    os.makedirs(os.path.join(course, "source", assignment), exist_ok=True)
    config = open(os.path.join(HERE, "nbgrader_config.py"), encoding="utf-8").read()
    config = config.replace("TOOLS = os.path.dirname(os.path.abspath(__file__))", f"TOOLS = {HERE!r}")
    with open(os.path.join(course, "nbgrader_config.py"), "w", encoding="utf-8") as f:
        f.write(config)
    for path in notebooks:
        nb = source_notebook(path)
        out = os.path.join(course, "source", assignment, os.path.basename(path))
        with open(out, "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
