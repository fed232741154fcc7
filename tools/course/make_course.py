#!/usr/bin/env python3
"""A course folder for nbgrader, from the exercises' source: what `make grade` grades.

    python tools/course/make_course.py COURSE_DIR ASSIGNMENT NOTEBOOK...

writes COURSE_DIR/nbgrader_config.py (this folder's) and, for each source notebook given
(notebooks/exercises-source/NAME.ipynb, nbgrader's source form: docs/practice.md),
COURSE_DIR/source/ASSIGNMENT/NAME.ipynb: the same notebook, its first code cell without its
`:dep` line (the grading kernel has the crate; the students' copies keep it).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write_config(course):
    """The course's nbgrader_config.py: this folder's, which finds the sandbox here."""
    config = open(os.path.join(HERE, "nbgrader_config.py"), encoding="utf-8").read()
    config = config.replace("TOOLS = os.path.dirname(os.path.abspath(__file__))", f"TOOLS = {HERE!r}")
    with open(os.path.join(course, "nbgrader_config.py"), "w", encoding="utf-8") as f:
        f.write(config)


def text(cell):
    """A cell's source as one string (a notebook may keep it as a list of lines)."""
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def without_dep(code):
    """A setup cell's code without its `:dep` line: the grading kernel has the crate."""
    return "\n".join(line for line in code.split("\n") if not line.startswith(":dep "))


def course_notebook(path):
    """The source notebook at `path` as the course keeps it: its first code cell without `:dep`."""
    nb = json.load(open(path, encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["source"] = without_dep(text(cell))
            break
    problems = source_form_problems(nb)
    if problems:
        raise SystemExit(f"make_course: {path} is not in nbgrader's source form (notebooks/exercises-source/ holds the "
                         "sources; notebooks/exercises/ is the students' version):\n  " + "\n  ".join(problems))
    return nb


def source_form_problems(nb):
    """Why `nb` is not a source a course can grade: a students' version (nbgrader's checksums, no
    solution or grading lines) would give every test cell full points."""
    problems = []
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    marks = [c.get("metadata", {}).get("nbgrader", {}) for c in cells]
    if not any(m.get("grade") for m in marks):
        problems.append("no autograded test cell")
    for cell, mark in zip(cells, marks):
        code = text(cell)
        name = mark.get("grade_id", cell.get("id"))
        if "checksum" in mark:
            problems.append(f"{name}: has nbgrader's checksum (a generated version, not a source)")
        if mark.get("solution") and "// BEGIN SOLUTION" not in code:
            problems.append(f"{name}: an answer cell without `// BEGIN SOLUTION`")
        if mark.get("grade") and "// BEGIN HIDDEN TESTS" not in code:
            problems.append(f"{name}: a test cell without its hidden grading line")
    return problems


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    course, assignment, notebooks = argv[0], argv[1], argv[2:]
    os.makedirs(os.path.join(course, "source", assignment), exist_ok=True)
    write_config(course)
    for path in notebooks:
        out = os.path.join(course, "source", assignment, os.path.basename(path))
        with open(out, "w", encoding="utf-8") as f:
            json.dump(course_notebook(path), f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
