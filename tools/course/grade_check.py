#!/usr/bin/env python3
"""`make grade-check`: a synthetic class graded by nbgrader under the kernel `rust`, end to end.

    python tools/course/grade_check.py COURSE_DIR

1. Builds a course folder (make_course.py) with one assignment, `practice01`: the exercise
   notebook 01_seq2seq in nbgrader's source form, 7 test cells of 1 point.
2. `nbgrader generate_assignment`: the students' version, whose answer cells must be the
   starters of notebooks/exercises/01_seq2seq.ipynb as they are; the same for every exercise
   notebook, in a second course folder (COURSE_DIR-all) that is not graded.
3. Six submissions, written from the students' version as students would: `all_correct`
   (the crate's solutions), `one_wrong` (q6 with the absolute error instead of the square),
   `one_panics` (q3 panics), `one_never_ends` (q6 loops forever: the cell's time limit ends it),
   `untouched` (every `todo!()` left), and a hostile one, `shadows_checks` (untouched, plus a
   cell of checks of its own that always pass, named `q1`..`q7`, and a module named as the crate).
4. `nbgrader autograde` (one kernel per submission, one after another, the crate built once for
   all of them), `nbgrader export` (grades.csv) and `nbgrader generate_feedback`.
5. Checks every score in the gradebook and the CSV against what each submission deserves, and
   that each feedback page shows the outcome boxes; prints the time each submission took.

Exits 1 when anything differs. Writes COURSE_DIR/report.json.
"""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import make_course  # noqa: E402 (beside this file)

ASSIGNMENT = "practice01"
NOTEBOOK = "01_seq2seq"
EXERCISES = os.path.join(ROOT, "notebooks", "exercises", NOTEBOOK + ".ipynb")
QUESTIONS = [f"q{k}" for k in range(1, 8)]
# The cell time limit of the check (seconds): long enough for the slowest check, short enough that
# the submission that never ends does not hold the run up for long.
CELL_TIMEOUT = "120"


def answer_cells(nb):
    """The answer cells (nbgrader solution cells) by exercise id."""
    return {c["metadata"]["exercise"]: c for c in nb["cells"] if c["cell_type"] == "code" and "exercise" in c.get("metadata", {})}


def text(cell):
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def replace_body(code, fn, body):
    """`code` with the `todo!()` of `fn` replaced by `body` (lines, indented as the todo was)."""
    return make_course.fill_todos(code, lambda name, indent: [indent + b for b in body] if name == fn else None)


def submissions(release, source):
    """Each synthetic student's notebook, and the points each test cell deserves."""
    released, solved = answer_cells(release), answer_cells(source)

    def student(changes):
        nb = json.loads(json.dumps(release))
        for exercise, cell in answer_cells(nb).items():
            q = exercise.split(".")[1]
            change = changes.get(q, "solve")
            if change == "solve":
                cell["source"] = text(solved[exercise])
            elif change != "leave":
                fn, body = change
                cell["source"] = replace_body(text(released[exercise]), fn, body)
        return nb

    everything = {q: 1 for q in QUESTIONS}
    return {
        "all_correct": (student({}), everything),
        "one_wrong": (student({"q6": ("mse_loss", ["(prediction - target)?.abs()?.mean_all()"])}), dict(everything, q6=0)),
        "one_panics": (student({"q3": ("init_hidden", ['panic!("my own bug")'])}), dict(everything, q3=0)),
        "one_never_ends": (student({"q6": ("mse_loss", ["loop {}"])}), dict(everything, q6=0)),
        "untouched": (student({q: "leave" for q in QUESTIONS}), {q: 0 for q in QUESTIONS}),
        "shadows_checks": (shadowing(student({q: "leave" for q in QUESTIONS})), {q: 0 for q in QUESTIONS}),
    }


# A cell of the student's own, after the first: checks of their own that always pass, named as the
# exercises (`q1` ... `q7`, shadowing the practice module's glob import), and a module named as the
# crate with the same inside.
SHADOW = """pub struct Pass;
impl Pass {
    pub fn check<A>(&self, _answer: A) -> Pass { Pass }
    pub fn grade(&self, points: f64) -> Result<f64> { Ok(points) }
}
%s
pub mod attention_zoo {
    pub use ::attention_zoo::prelude;
    pub mod practice {
        pub mod seq2seq {
            use super::super::super::Pass;
            %s
        }
    }
}""" % ("\n".join(f"pub const {q}: Pass = Pass;" for q in QUESTIONS), " ".join(f"pub const {q}: Pass = Pass;" for q in QUESTIONS))


def shadowing(nb):
    """`nb` with the student's shadowing cell after its first code cell."""
    first = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    nb["cells"].insert(first + 1, {"cell_type": "code", "execution_count": None, "id": "shadow", "metadata": {}, "outputs": [], "source": SHADOW})
    return nb


def nbgrader(course, *args, env=None):
    started = time.time()
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "nbgrader"), *args], cwd=course, env=env,
                         capture_output=True, text=True)
    return run, time.time() - started


def main(argv):
    if len(argv) != 1:
        raise SystemExit(__doc__)
    course = os.path.abspath(argv[0])
    shutil.rmtree(course, ignore_errors=True)
    failures, report = [], {}
    make_course.main([course, ASSIGNMENT, EXERCISES])
    # nbgrader runs `alembic` from the PATH: its own environment's first
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ, ZOO_CELL_TIMEOUT=CELL_TIMEOUT, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))

    run, _ = nbgrader(course, "generate_assignment", ASSIGNMENT, "--force", env=env)
    if run.returncode:
        raise SystemExit(f"generate_assignment failed:\n{run.stdout}\n{run.stderr}")
    release = json.load(open(os.path.join(course, "release", ASSIGNMENT, NOTEBOOK + ".ipynb"), encoding="utf-8"))
    source = json.load(open(os.path.join(course, "source", ASSIGNMENT, NOTEBOOK + ".ipynb"), encoding="utf-8"))
    starters = answer_cells(json.load(open(EXERCISES, encoding="utf-8")))
    for exercise, cell in answer_cells(release).items():
        if text(cell) != text(starters[exercise]):
            failures.append(f"the students' {exercise} is not the starter of {EXERCISES}:\n{text(cell)}")

    # every exercise notebook, not only the graded one: its students' version has its starters
    every = sorted(glob.glob(os.path.join(ROOT, "notebooks", "exercises", "*.ipynb")))
    whole = course + "-all"
    shutil.rmtree(whole, ignore_errors=True)
    make_course.main([whole, "practice", *every])
    run, _ = nbgrader(whole, "generate_assignment", "practice", "--force", env=env)
    if run.returncode:
        raise SystemExit(f"generate_assignment of every exercise notebook failed:\n{run.stdout}\n{run.stderr}")
    compared = 0
    for path in every:
        released = answer_cells(json.load(open(os.path.join(whole, "release", "practice", os.path.basename(path)), encoding="utf-8")))
        for exercise, starter in answer_cells(json.load(open(path, encoding="utf-8"))).items():
            compared += 1
            if exercise not in released or text(released[exercise]) != text(starter):
                failures.append(f"the students' {exercise} is not the starter of {path}")
    print(f"the students' version of every exercise notebook: {compared} answer cells compared with the starters", flush=True)

    class_ = submissions(release, source)
    for name, (nb, _) in class_.items():
        folder = os.path.join(course, "submitted", name, ASSIGNMENT)
        os.makedirs(folder)
        with open(os.path.join(folder, NOTEBOOK + ".ipynb"), "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)

    seconds = {}
    for name in class_:
        run, took = nbgrader(course, "autograde", ASSIGNMENT, "--student", name, env=env)
        seconds[name] = round(took, 1)
        print(f"autograde {name}: {took:.1f} s (exit {run.returncode})", flush=True)
        if run.returncode:
            failures.append(f"autograde {name} exited {run.returncode}:\n{run.stderr[-3000:]}")

    # the hostile submission's own checks compiled (the attack was in effect), and did not count
    graded = json.load(open(os.path.join(course, "autograded", "shadows_checks", ASSIGNMENT, NOTEBOOK + ".ipynb"), encoding="utf-8"))
    shadow = [c for c in graded["cells"] if c.get("id") == "shadow"]
    if not shadow or any(o.get("output_type") == "error" for o in shadow[0].get("outputs", [])):
        failures.append(f"the shadowing cell did not compile under the kernel: {shadow and shadow[0].get('outputs')}")

    from nbgrader.api import Gradebook
    db_url = os.environ.get("ZOO_GRADEBOOK_URL") or f"sqlite:///{os.path.join(course, 'gradebook.db')}"
    with Gradebook(db_url, course_id="attention-zoo") as gb:
        for name, (_, deserved) in class_.items():
            notebook = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, name)
            got = {g.name.split("_")[1]: g.score for g in notebook.grades}
            report[name] = {"scores": got, "deserved": deserved, "seconds": seconds[name]}
            for q in QUESTIONS:
                if got.get(q) != deserved[q]:
                    failures.append(f"{name}: {q} scored {got.get(q)}, deserves {deserved[q]}")

    run, _ = nbgrader(course, "export", "--to", os.path.join(course, "grades.csv"), env=env)
    if run.returncode:
        failures.append(f"export failed:\n{run.stderr[-2000:]}")
    else:
        rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(open(os.path.join(course, "grades.csv")))}
        for name, (_, deserved) in class_.items():
            if rows.get(name) != float(sum(deserved.values())):
                failures.append(f"grades.csv: {name} has {rows.get(name)}, deserves {sum(deserved.values())}")

    run, _ = nbgrader(course, "generate_feedback", ASSIGNMENT, env=env)
    for name in class_:
        page = os.path.join(course, "feedback", name, ASSIGNMENT, NOTEBOOK + ".html")
        if not os.path.exists(page) or "zoo-outcome" not in open(page, encoding="utf-8").read():
            failures.append(f"no feedback page with the outcome boxes for {name} ({page})")

    with open(os.path.join(course, "report.json"), "w") as f:
        json.dump({"submissions": report, "failures": failures}, f, indent=1)
    for name, r in report.items():
        print(f"{name:<16} {sum(v or 0 for v in r['scores'].values()):.0f} / {len(QUESTIONS)} points, {r['seconds']} s")
    print(f"a class of {len(class_)} graded in {sum(seconds.values()):.0f} s, one submission after another")
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print("every score as deserved; grades.csv and the feedback pages agree")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
