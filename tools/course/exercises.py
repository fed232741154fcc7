#!/usr/bin/env python3
"""The exercise notebooks from their one source: `make exercises`.

    python tools/course/exercises.py [--check]

notebooks/exercises-source/ holds the six exercise notebooks in nbgrader's source form
(docs/practice.md): each answer cell has the crate's solution between `// BEGIN SOLUTION` and
`// END SOLUTION`, each check cell its grading lines between `// BEGIN HIDDEN TESTS` and
`// END HIDDEN TESTS`. This script

1. puts the crate's solutions into those regions: each region becomes the body of the function
   it sits in, as the solution's file has it (src/notebook/code/excerpts.txt, written by
   `ZOO_BLESS=1 cargo test --test zoo class_excerpts`: what `qN.solution()` shows);
2. runs `nbgrader generate_assignment` on them in a scratch course folder, and writes its release,
   the students' version (every region a `todo!()`, the hidden lines gone), to
   notebooks/exercises/.

With --check it writes nothing and exits 1 when either folder is not what it would write.
`cargo test` checks the same relation without Python (tests/notebooks/exercises.rs).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from excerpts import solution_texts  # noqa: E402 (tools/ is on the path)

sys.path.insert(0, HERE)
import make_course  # noqa: E402 (beside this file)
from make_course import text  # noqa: E402

SOURCE = os.path.join(ROOT, "notebooks", "exercises-source")
STUDENTS = os.path.join(ROOT, "notebooks", "exercises")
BEGIN, END = "// BEGIN SOLUTION", "// END SOLUTION"
ASSIGNMENT = "exercises"


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


def with_solution(code, solution, where):
    """`code` with each solution region's lines replaced by the solution's body of the function
    the region sits in."""
    out, current, inside = [], None, False
    for line in code.split("\n"):
        found = re.search(r"\bfn (\w+)", line)
        if found and not inside:
            current = found.group(1)
        if line.strip() == BEGIN:
            body = fn_body(solution, current or "")
            if body is None:
                raise SystemExit(f"{where}: no body of fn {current} in the solution:\n{solution}")
            out += [line, *body]
            inside = True
        elif line.strip() == END:
            out.append(line)
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise SystemExit(f"{where}: a `{BEGIN}` without its `{END}`")
    return "\n".join(out)


def dumps(nb):
    """A notebook as the course keeps it: sorted keys, one space of indent, each source one string."""
    for cell in nb["cells"]:
        cell["source"] = text(cell)
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def sources():
    return sorted(os.path.join(SOURCE, n) for n in os.listdir(SOURCE) if n.endswith(".ipynb"))


def filled(path):
    """The source notebook at `path` with the crate's solutions in its regions."""
    texts = solution_texts()
    nb = json.load(open(path, encoding="utf-8"))
    for cell in nb["cells"]:
        picks = cell.get("metadata", {}).get("solution")
        if cell["cell_type"] == "code" and picks:
            try:
                solution = "\n\n".join(texts[(picks[0], pick)] for pick in picks[1:])
            except KeyError as e:
                raise SystemExit(f"no solution {e} in src/notebook/code/excerpts.txt: run "
                                 "`ZOO_BLESS=1 cargo test --test zoo class_excerpts`")
            cell["source"] = with_solution(text(cell), solution, f"{path}: {cell['metadata'].get('exercise')}")
    return dumps(nb)


def released(paths):
    """nbgrader's students' version of each source text: {name: text}."""
    with tempfile.TemporaryDirectory(prefix="zoo-exercises-") as course:
        make_course.write_config(course)
        folder = os.path.join(course, "source", ASSIGNMENT)
        os.makedirs(folder)
        for name, data in paths.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(data)
        nbgrader = os.path.join(os.path.dirname(sys.executable), "nbgrader")
        # (nbgrader runs alembic, beside it in the same environment, to make its gradebook)
        env = dict(os.environ, ZOO_GRADEBOOK_URL="", PATH=os.path.dirname(nbgrader) + os.pathsep + os.environ.get("PATH", ""))
        run = subprocess.run([nbgrader, "generate_assignment", ASSIGNMENT, "--force"], cwd=course, env=env,
                             capture_output=True, text=True)
        if run.returncode:
            raise SystemExit(f"nbgrader generate_assignment failed:\n{run.stdout}\n{run.stderr}")
        out = {}
        for name in paths:
            nb = json.load(open(os.path.join(course, "release", ASSIGNMENT, name), encoding="utf-8"))
            out[name] = dumps(nb)
        return out


def main(argv):
    check = argv == ["--check"]
    if argv and not check:
        raise SystemExit(__doc__)
    sources_now = {os.path.basename(p): filled(p) for p in sources()}
    students = released(sources_now)
    stale = []
    for folder, texts in ((SOURCE, sources_now), (STUDENTS, students)):
        for name, data in texts.items():
            path = os.path.join(folder, name)
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if old == data:
                continue
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(data)
    if check:
        if stale:
            print("not what `make exercises` writes: " + ", ".join(stale), file=sys.stderr)
            return 1
        print(f"the {len(sources_now)} exercise notebooks and their sources agree")
        return 0
    print("\n".join(f"wrote {p}" for p in stale) or "nothing to write: the exercise notebooks are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
