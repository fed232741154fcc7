#!/usr/bin/env python3
"""`make grade COURSE=... ASSIGNMENT=...`: a class's submissions graded, in the sandbox.

    python tools/course/grade.py COURSE_DIR ASSIGNMENT [STUDENT_GLOB]

COURSE_DIR is an nbgrader course folder made by make_course.py (its nbgrader_config.py puts each
submission's kernel in the sandbox, tools/course/sandbox.py), with the students' notebooks under
`submitted/STUDENT/ASSIGNMENT/`. The steps:

1. the sandbox's check: refuses to go on without bubblewrap, namespaces and cgroups, naming what
   is missing, unless ZOO_GRADE_UNPROTECTED=1;
2. the grading build brought up to date (`sandbox.py prepare`: once per change of the crate);
3. `nbgrader autograde ASSIGNMENT` (every student, or those matching STUDENT_GLOB), one kernel per
   submission, each in a sandbox of its own;
4. `nbgrader export` to COURSE_DIR/grades.csv, and `nbgrader generate_feedback` (the pages under
   COURSE_DIR/feedback/, with the outcome boxes), also when nbgrader could not grade some
   submissions: those are named, and the exit status is 1;
5. the submissions to look at: those whose code holds what it takes to reach past its own cells
   (`unsafe`, `extern`, `/proc`, `std::process`, ...), whose full score may have been forged.
"""
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sandbox  # noqa: E402 (beside this file)
from make_course import text  # noqa: E402


# What a submission needs to reach past its own cells (another process, raw memory, the C
# library): its full scores deserve a look (tools/course/README.md, what the sandbox does not stop).
SUSPECT = re.compile(r"\bunsafe\b|\bextern\b|/proc\b|\bptrace\b|\blibc\b|std::process|from_raw_fd|asm!")


def to_review(course, assignment, pattern="*"):
    """{student: [what each code cell of theirs holds that SUSPECT finds]} for the submissions of
    `assignment` under COURSE/submitted/ whose own code does."""
    found = {}
    for path in sorted(glob.glob(os.path.join(course, "submitted", pattern, assignment, "*.ipynb"))):
        student = path.split(os.sep)[-3]
        nb = json.load(open(path, encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            hits = sorted(set(SUSPECT.findall(text(cell))))
            if hits:
                found.setdefault(student, []).append(f"{os.path.basename(path)} cell {cell.get('id', '?')}: {', '.join(hits)}")
    return found


def not_graded(course, assignment, pattern="*"):
    """The students under COURSE/submitted/ with `assignment` whose notebooks autograding did not
    write under COURSE/autograded/."""
    missing = []
    for folder in sorted(glob.glob(os.path.join(course, "submitted", pattern, assignment))):
        student = folder.split(os.sep)[-2]
        names = [os.path.basename(p) for p in glob.glob(os.path.join(folder, "*.ipynb"))]
        done = os.path.join(course, "autograded", student, assignment)
        if any(not os.path.exists(os.path.join(done, n)) for n in names):
            missing.append(student)
    return missing


def nbgrader(course, *args):
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    print("$ nbgrader " + " ".join(args), flush=True)
    return subprocess.run([os.path.join(bin_dir, "nbgrader"), *args], cwd=course, env=env).returncode


def main(argv):
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__)
    course, assignment = os.path.abspath(argv[0]), argv[1]
    if not os.path.exists(os.path.join(course, "nbgrader_config.py")):
        raise SystemExit(f"grade: {course} has no nbgrader_config.py (make one with tools/course/make_course.py)")
    problems = sandbox.check()
    if problems and not sandbox.unprotected_allowed():
        print("grade: refusing to run the class's code without protection:", *problems, sep="\n  ")
        print("Set ZOO_GRADE_UNPROTECTED=1 to grade with your own rights anyway (only code you trust).")
        return 2
    if problems:
        print("grade: WITHOUT protection (ZOO_GRADE_UNPROTECTED=1):", *problems, sep="\n  ")
    else:
        started = time.time()
        print(f"grade: {sandbox.prepare()} is the grading build ({time.time() - started:.0f} s)", flush=True)
    students = ["--student", argv[2]] if len(argv) == 3 else []
    pattern = argv[2] if len(argv) == 3 else "*"
    started = time.time()
    status = 0
    # One submission nbgrader cannot grade fails its whole run: the others' grades, the CSV and
    # the pages are still written, and the exit status says something is missing.
    if nbgrader(course, "autograde", assignment, *students):
        status = 1
    print(f"grade: autograde took {time.time() - started:.0f} s", flush=True)
    missing = not_graded(course, assignment, pattern)
    if missing:
        print("grade: nbgrader could not grade these submissions (its log above says why); "
              "their scores are not in the gradebook:", *missing, sep="\n  ")
        status = 1
    if nbgrader(course, "export", "--to", os.path.join(course, "grades.csv")):
        return 1
    if nbgrader(course, "generate_feedback", assignment, *students):
        status = 1
    print(f"grade: {os.path.join(course, 'grades.csv')} and the pages under {os.path.join(course, 'feedback')}")
    review = to_review(course, assignment, pattern)
    if review:
        print("grade: to look at (code that can reach past its own cells; a full score of theirs may be forged):")
        for student, where in review.items():
            print(f"  {student}: " + "; ".join(where))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
