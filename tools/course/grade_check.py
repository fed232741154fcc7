#!/usr/bin/env python3
"""`make grade-check`: a synthetic class graded by nbgrader under the kernel `rust`, end to end.

    python tools/course/grade_check.py COURSE_DIR

1. Builds a course folder (make_course.py) with one assignment, `practice01`: the source of
   exercise notebook 01_seq2seq (notebooks/exercises-source/), 7 test cells of 1 point.
2. `nbgrader generate_assignment`: the students' version, whose code cells (starters, checks
   and the rest) must be notebooks/exercises/01_seq2seq.ipynb's as they are (the setup cell less
   its `:dep` line); and every exercise notebook must be what `make exercises` writes from its
   source with nbgrader (exercises.py --check).
3. Submissions written from the students' version as students would. Honest: `all_correct`
   (the crate's solutions), `one_wrong` (q6 with the absolute error instead of the square),
   `one_panics` (q3 panics), `one_never_ends` (q6 loops forever: the cell's time limit ends it),
   `untouched` (every `todo!()` left), `from_the_clone` (notebooks/exercises/'s own copy answered,
   its `:dep` line and all, instead of the course's release). Hostile: `tampers_cells` (its test
   cells changed in seven ways: sources, flags, points, ids, one deleted),
   `shadows_checks` (untouched, plus a cell of checks
   of its own named `q1`..`q7` and a module named as the crate), `exits_in_answer` and
   `silences_output` (q1's answer ends its process, or points its stdout and stderr at /dev/null,
   so that the checks say nothing), and six with a cell that attacks the grader (`hostile`: writes and reads
   outside, processes and memory without end, sockets, a kill of the kernel).
4. The grading build (`sandbox.py prepare`), then `nbgrader autograde` one submission after
   another, each kernel in the sandbox; `nbgrader export` (grades.csv), `generate_feedback`.
5. Checks every score in the gradebook and the CSV against what each submission deserves, the
   outcome boxes in each feedback page, that every attack printed only what was blocked, and the
   hashes of what no submission may change (the course folder's source, release, submitted and
   config, two canary files, the grading build); prints the time each submission took.
6. Part of the class again in a course folder of its own, by two graders at once (`--student`
   globs) sharing a gradebook in a PostgreSQL server started here; every score checked there.

Exits 1 when anything differs. Writes COURSE_DIR/report.json.
"""
import csv
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import exercises  # noqa: E402 (beside this file)
import make_course  # noqa: E402
from make_course import text  # noqa: E402

ASSIGNMENT = "practice01"
NOTEBOOK = "01_seq2seq"
EXERCISES = os.path.join(ROOT, "notebooks", "exercises", NOTEBOOK + ".ipynb")
SOURCE = os.path.join(ROOT, "notebooks", "exercises-source", NOTEBOOK + ".ipynb")
QUESTIONS = [f"q{k}" for k in range(1, 8)]
# The cell time limit of the check (seconds): long enough for the slowest check, short enough that
# the submission that never ends does not hold the run up for long.
CELL_TIMEOUT = "120"
# The memory a submission may use (GiB; the sandbox's default is 6): enough for the kernel and a cell's
# build, and quick for the submission that allocates without end to reach.
GRADE_MEMORY = "3"


def answer_cells(nb):
    """The answer cells (nbgrader solution cells) by exercise id."""
    return {c["metadata"]["exercise"]: c for c in nb["cells"] if c["cell_type"] == "code" and "exercise" in c.get("metadata", {})}


def code_cells_differ(released, committed, path):
    """Where the students' version (nbgrader's release) differs from the committed notebook in
    its code cells: every cell's source, the first one's without its `:dep` line."""
    mine = [text(c) for c in released["cells"] if c["cell_type"] == "code"]
    theirs = [text(c) for c in committed["cells"] if c["cell_type"] == "code"]
    if theirs:
        theirs[0] = make_course.without_dep(theirs[0])
    if len(mine) != len(theirs):
        return [f"{path}: the students' version has {len(mine)} code cells, the notebook {len(theirs)}"]
    return [f"{path}, code cell {k}: the students' version differs:\n{a}\n---\n{b}" for k, (a, b) in enumerate(zip(mine, theirs)) if a != b]


TODO = re.compile(r"^(\s*)todo!\(\)\s*$")


def replace_body(code, fn, body):
    """`code` with the `todo!()` of `fn` replaced by `body` (lines, indented as the todo was)."""
    out, current = [], None
    for line in code.split("\n"):
        found = re.search(r"\bfn (\w+)", line)
        if found:
            current = found.group(1)
        todo = TODO.match(line)
        out += [todo.group(1) + b for b in body] if todo and current == fn else [line]
    return "\n".join(out)


def from_the_clone(solved):
    """notebooks/exercises/'s copy of the graded notebook with every answer cell solved."""
    nb = json.load(open(EXERCISES, encoding="utf-8"))
    for exercise, cell in answer_cells(nb).items():
        cell["source"] = text(solved[exercise])
    return nb


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
        # the clone's notebooks/exercises/ copy answered, not the course's release: its setup cell
        # has the `:dep` line, which autograding replaces with the course's read-only cell
        "from_the_clone": (from_the_clone(solved), everything),
        "tampers_cells": (tampering(json.loads(json.dumps(release)), solved), dict({q: 0 for q in QUESTIONS}, q2=1)),
        "shadows_checks": (shadowing(student({q: "leave" for q in QUESTIONS})), {q: 0 for q in QUESTIONS}),
        # answers that end their own process, or silence its output, so that a check cell says
        # nothing (nbgrader alone would give it full points; here every check after it scores 0)
        "exits_in_answer": (student({"q1": ("split_sequence", ["std::process::exit(0)"])}), dict(everything, q1=0)),
        "silences_output": (student({"q1": ("split_sequence", SILENCES)}), {q: 0 for q in QUESTIONS}),
    }


# An answer that points its process's stdout and stderr at /dev/null (through the C library's
# dup2, which any cell can declare), then returns a wrong result: every later output is lost.
SILENCES = ['unsafe extern "C" {',
            "    fn open(path: *const u8, flags: i32) -> i32;",
            "    fn dup2(old: i32, new: i32) -> i32;",
            "}",
            'let null = unsafe { open(b"/dev/null\\0".as_ptr(), 1) };',
            "unsafe { dup2(null, 1); dup2(null, 2) };",
            "Ok((full.clone(), full.clone()))"]


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


def tampering(nb, solved):
    """`nb` with its test cells tampered with, each in its own way, each showing a number that
    nbgrader alone would read as points. q1: its source replaced by `1.0` (the answer left as it
    was, a `todo!()`). q2: answered; its test cell shows `0.5` and is no longer a grade cell
    (nbgrader alone stops grading the whole submission on it). q3: unlocked, shows `1.0`. q4:
    worth 100 points, shows `1.0`. q5: answered, its test cell under another grade id, showing
    `0.5`. q6: answered, its test cell deleted. q7: answered, its test cell without nbgrader's
    metadata, showing `0.5`. Restored as the source has them, q2 scores 1 and q1, q3 and q4 0;
    q5 to q7 lost their test cells: 0."""
    for exercise, cell in answer_cells(nb).items():
        if exercise.split(".")[1] in ("q2", "q5", "q6", "q7"):
            cell["source"] = text(solved[exercise])
    tests = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    for k, cell in enumerate(tests, 1):
        marks = cell["metadata"]["nbgrader"]
        cell["source"] = "0.5" if k in (2, 5, 7) else "1.0"
        if k == 2:
            marks["grade"] = False
        elif k == 3:
            marks["locked"] = False
        elif k == 4:
            marks["points"] = 100
        elif k == 5:
            marks["grade_id"] = "mine"
        elif k == 6:
            nb["cells"].remove(cell)
        elif k == 7:
            del cell["metadata"]["nbgrader"]
    return nb


def shadowing(nb):
    """`nb` with the student's shadowing cell after its first code cell."""
    first = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    nb["cells"].insert(first + 1, {"cell_type": "code", "execution_count": None, "id": "shadow", "metadata": {}, "outputs": [], "source": SHADOW})
    return nb


# The hostile submissions: every answer solved, plus a cell of the student's own that attacks the
# grader (after q3's check, or at the end). Each attack prints `blocked: ...` for what the sandbox
# stopped and `attack: ...` for what got through; the check wants no `attack:` line.
WRITES = """use std::io::Write;
for path in [%s] {
    match std::fs::OpenOptions::new().create(true).append(true).open(path) {
        Ok(mut f) => { let _ = writeln!(f, "pwned"); println!("attack: wrote {path}"); }
        Err(e) => println!("blocked: write {path}: {e}"),
    }
}
// a sysctl the host runs as root (its own value written back, harmless were it to get through)
let pattern = std::fs::read("/proc/sys/kernel/core_pattern").unwrap_or_default();
if !pattern.is_empty() {
    match std::fs::write("/proc/sys/kernel/core_pattern", &pattern) {
        Ok(()) => println!("attack: wrote /proc/sys/kernel/core_pattern"),
        Err(e) => println!("blocked: write /proc/sys/kernel/core_pattern: {e}"),
    }
}
for dir in [%s] {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => println!("attack: removed {dir}"),
        Err(e) => println!("blocked: remove {dir}: {e}"),
    }
}"""
READS = """for path in [%s] {
    match std::fs::read(path) {
        Ok(bytes) => println!("attack: read {path}, {} bytes", bytes.len()),
        Err(e) => println!("blocked: read {path}: {e}"),
    }
}
for dir in [%s] {
    match std::fs::read_dir(dir) {
        Ok(entries) => println!("attack: listed {dir}, {} entries", entries.count()),
        Err(e) => println!("blocked: list {dir}: {e}"),
    }
}"""
FORKS = """let mut children = Vec::new();
let stopped = loop {
    match std::process::Command::new("sleep").arg("600").spawn() {
        Ok(child) => children.push(child),
        Err(e) => break e.to_string(),
    }
    if children.len() == 20_000 {
        break "no limit".to_string();
    }
};
if stopped == "no limit" { println!("attack: {} processes", children.len()); }
else { println!("blocked: processes stopped after {}: {stopped}", children.len()); }"""
ALLOCATES = """let mut hoard: Vec<Vec<u8>> = Vec::new();
loop {
    hoard.push(vec![1u8; 64 << 20]);
    if hoard.len() == 1024 {
        println!("attack: holding {} MiB", hoard.len() * 64);
        break;
    }
}"""
SOCKETS = """use std::time::Duration;
for addr in [%s] {
    match std::net::TcpStream::connect_timeout(&addr.parse().unwrap(), Duration::from_secs(3)) {
        Ok(_) => println!("attack: connected to {addr}"),
        Err(e) => println!("blocked: connect {addr}: {e}"),
    }
}
match std::net::UdpSocket::bind("0.0.0.0:0").and_then(|s| s.send_to(b"hello", "8.8.8.8:53")) {
    Ok(n) => println!("attack: sent {n} bytes to 8.8.8.8:53"),
    Err(e) => println!("blocked: send to 8.8.8.8:53: {e}"),
}"""
EXITS = """let kernel = std::os::unix::process::parent_id();
println!("killing the kernel, process {kernel}");
let _ = std::process::Command::new("kill").args(["-9", &kernel.to_string()]).status();"""


def rust_strs(paths):
    return ", ".join(json.dumps(p) for p in paths)


def hostile(course, paths, port):
    """name: (cell source, after which check cell (None: at the end), questions that score 0)."""
    other = os.path.join(course, "submitted", "all_correct", ASSIGNMENT, NOTEBOOK + ".ipynb")
    return {
        "writes_outside": (WRITES % (rust_strs([os.path.join(course, "gradebook.db"), os.path.join(course, "nbgrader_config.py"),
                                                 other, paths["clone_canary"], paths["home_canary"], "/root/zoo-pwned"]),
                                     rust_strs([os.path.join(course, "source"), os.path.join(course, "submitted"),
                                                os.path.dirname(paths["clone_canary"])])), None, []),
        "reads_others": (READS % (rust_strs([other, os.path.join(course, "gradebook.db"), paths["home_canary"], "/etc/shadow"]),
                                  rust_strs([os.path.join(course, "submitted"), paths["kernel_slots"]])), None, []),
        "forks_forever": (FORKS, None, []),
        "allocates_forever": (ALLOCATES, None, []),
        "opens_sockets": (SOCKETS % rust_strs([f"127.0.0.1:{port}", "1.1.1.1:443"]), None, []),
        "exits_kernel": (EXITS, "c11", ["q4", "q5", "q6", "q7"]),
    }


def with_cell(nb, source, cell_id, after):
    """`nb` with a code cell of the student's own after the cell `after` (None: at the end)."""
    cell = {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [], "source": source}
    at = len(nb["cells"]) if after is None else next(i for i, c in enumerate(nb["cells"]) if c.get("id") == after) + 1
    nb["cells"].insert(at, cell)
    return nb


def cell_output(path, cell_id):
    """The text a cell of an autograded notebook printed, and whether it ended in an error."""
    nb = json.load(open(path, encoding="utf-8"))
    cell = next((c for c in nb["cells"] if c.get("id") == cell_id), None)
    if cell is None:
        return "", False
    said = "".join("".join(o["text"]) if isinstance(o.get("text"), list) else o.get("text", "")
                   for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    return said, any(o.get("output_type") == "error" for o in cell.get("outputs", []))


def tree_hash(*paths):
    """A hash of every file's relative path and bytes under `paths` (files or folders)."""
    h = hashlib.sha256()
    for top in paths:
        if os.path.isfile(top):
            h.update(top.encode() + open(top, "rb").read())
            continue
        for base, dirs, files in sorted(os.walk(top)):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(base, name)
                h.update(os.path.relpath(path, top).encode())
                if not os.path.islink(path):
                    h.update(open(path, "rb").read())
    return h.hexdigest()


def manifest_hash(top):
    """A hash of every file's relative path, size and modification time under `top` (the
    grading build: too big to read whole for each check)."""
    h = hashlib.sha256()
    for base, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for name in sorted(files):
            st = os.lstat(os.path.join(base, name))
            h.update(f"{os.path.relpath(os.path.join(base, name), top)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


# When a class outgrows one machine: graders sharded by student (`--student` globs) sharing one
# gradebook in PostgreSQL; here two at once on this machine, over part of the class.
SHARDS = ("[a-n]*", "[o-z]*")
SHARDED = ("all_correct", "exits_in_answer", "forks_forever", "one_wrong", "shadows_checks", "untouched")


def sharded_run(course, class_, env, seconds, failures):
    """Grades SHARDED again in a course folder of their own, by two `nbgrader autograde`
    processes at once (one per glob of SHARDS), on a gradebook in a PostgreSQL server started
    here; checks every score there. Returns what it measured."""
    import postgres
    pg_course = course + "-pg"
    shutil.rmtree(pg_course, ignore_errors=True)
    os.makedirs(pg_course)
    shutil.copy(os.path.join(course, "nbgrader_config.py"), pg_course)
    shutil.copytree(os.path.join(course, "source"), os.path.join(pg_course, "source"))
    for name in SHARDED:
        shutil.copytree(os.path.join(course, "submitted", name), os.path.join(pg_course, "submitted", name))
    # the server's socket outside the clone: a kernel sees neither it nor the grader's /tmp
    with postgres.server(tempfile.mkdtemp(prefix="zoo-gradebook-")) as url:
        pg_env = dict(env, ZOO_GRADEBOOK_URL=url)
        run, _ = nbgrader(pg_course, "generate_assignment", ASSIGNMENT, "--force", env=pg_env)
        if run.returncode:
            failures.append(f"generate_assignment on PostgreSQL failed:\n{run.stderr[-2000:]}")
            return {}
        started = time.time()
        workers = [subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "nbgrader"), "autograde", ASSIGNMENT,
                                     "--student", shard], cwd=pg_course, env=pg_env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for shard in SHARDS]
        for shard, worker in zip(SHARDS, workers):
            out, err = worker.communicate()
            if worker.returncode:
                failures.append(f"the grader of {shard} exited {worker.returncode}:\n{err[-2000:]}")
        took = time.time() - started
        from nbgrader.api import Gradebook
        with Gradebook(url, course_id="attention-zoo") as gb:
            for name in SHARDED:
                got = {g.name.split("_")[1]: g.score for g in gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, name).grades}
                for q, deserved in class_[name][1].items():
                    if got.get(q) != deserved:
                        failures.append(f"PostgreSQL, {name}: {q} scored {got.get(q)}, deserves {deserved}")
    alone = sum(seconds[name] for name in SHARDED)
    print(f"two graders at once ({' and '.join(SHARDS)}) on one PostgreSQL gradebook: {len(SHARDED)} submissions in "
          f"{took:.0f} s (one after another on SQLite they took {alone:.0f} s); every score as deserved there too", flush=True)
    return {"submissions": list(SHARDED), "shards": list(SHARDS), "seconds": round(took, 1), "one_after_another": round(alone, 1)}


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
    make_course.main([course, ASSIGNMENT, SOURCE])
    # nbgrader runs `alembic` from the PATH: its own environment's first
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ, ZOO_CELL_TIMEOUT=CELL_TIMEOUT, ZOO_GRADE_MEMORY=GRADE_MEMORY, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))

    run, _ = nbgrader(course, "generate_assignment", ASSIGNMENT, "--force", env=env)
    if run.returncode:
        raise SystemExit(f"generate_assignment failed:\n{run.stdout}\n{run.stderr}")
    release = json.load(open(os.path.join(course, "release", ASSIGNMENT, NOTEBOOK + ".ipynb"), encoding="utf-8"))
    source = json.load(open(os.path.join(course, "source", ASSIGNMENT, NOTEBOOK + ".ipynb"), encoding="utf-8"))
    failures += code_cells_differ(release, json.load(open(EXERCISES, encoding="utf-8")), EXERCISES)

    # every exercise notebook, not only the graded one: what nbgrader makes of its source
    if exercises.main(["--check"]):
        failures.append("the exercise notebooks are not what `make exercises` writes from their source")

    class_ = submissions(release, source)
    # the hostile students, their targets and a listener they try to reach
    sys.path.insert(0, HERE)
    import sandbox
    spec = sandbox.kernel_spec()
    paths = {"clone_canary": os.path.join(ROOT, "target", "grade-canary", "canary.txt"),
             "home_canary": os.path.join(os.path.dirname(os.path.dirname(spec["argv"][2])), "grade-canary.txt"),
             "kernel_slots": spec["argv"][2]}
    for canary in (paths["clone_canary"], paths["home_canary"]):
        os.makedirs(os.path.dirname(canary), exist_ok=True)
        with open(canary, "w") as f:
            f.write("the grader's file\n")
    listener, reached = socket.socket(), []
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    threading.Thread(target=lambda: reached.append(listener.accept()), daemon=True).start()
    attacks = hostile(course, paths, listener.getsockname()[1])
    solved_all = class_["all_correct"][0]
    for name, (cell, after, zeros) in attacks.items():
        nb = with_cell(json.loads(json.dumps(solved_all)), cell, "attack", after)
        class_[name] = (nb, {q: 0 if q in zeros else 1 for q in QUESTIONS})
    for name, (nb, _) in class_.items():
        folder = os.path.join(course, "submitted", name, ASSIGNMENT)
        os.makedirs(folder)
        with open(os.path.join(folder, NOTEBOOK + ".ipynb"), "w", encoding="utf-8") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)

    # a test cell whose output a submission silenced: nbgrader alone gives it full points
    import nbformat
    from nbgrader.utils import determine_grade
    silent = nbformat.v4.new_code_cell("{ ::attention_zoo::practice::seq2seq::q1.check(split_sequence).grade(1.0)? }")
    silent.metadata["nbgrader"] = {"schema_version": 3, "grade": True, "solution": False, "locked": True,
                                   "grade_id": "01_q1_test", "points": 1}
    alone = determine_grade(silent)[0]
    ours = determine_grade(sandbox.no_result_as_error(nbformat.v4.new_notebook(cells=[silent])).cells[0])[0]
    print(f"a test cell with no output: nbgrader alone gives {alone} of 1, after the sandbox's step {ours}", flush=True)
    if ours != 0:
        failures.append(f"a test cell with no output scored {ours} after no_result_as_error")

    problems = sandbox.check()
    if problems:
        raise SystemExit("grade-check needs the sandbox (tools/course/sandbox.py): " + "; ".join(problems))
    started = time.time()
    run = subprocess.run([sys.executable, os.path.join(HERE, "sandbox.py"), "prepare"], env=env, capture_output=True, text=True)
    print(f"the grading build: {time.time() - started:.0f} s ({run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-500:]})", flush=True)
    if run.returncode:
        raise SystemExit(f"sandbox.py prepare failed:\n{run.stdout}\n{run.stderr[-3000:]}")
    seed = sandbox.grading_slots(spec)
    protected = [os.path.join(course, d) for d in ("source", "release", "submitted", "nbgrader_config.py")]
    before = {"course": tree_hash(*protected), "canaries": tree_hash(paths["clone_canary"], paths["home_canary"]),
              "grading build": manifest_hash(seed)}

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

    # what each attack printed: nothing got through, and the sandbox said why
    attacked = {}
    for name in attacks:
        said, errored = cell_output(os.path.join(course, "autograded", name, ASSIGNMENT, NOTEBOOK + ".ipynb"), "attack")
        lines = [line for line in said.splitlines() if line.startswith(("attack:", "blocked:"))]
        attacked[name] = {"said": lines, "error": errored}
        for line in lines:
            print(f"  {name}: {line}", flush=True)
        if any(line.startswith("attack:") for line in lines):
            failures.append(f"{name}: an attack got through: {[l for l in lines if l.startswith('attack:')]}")
        if name == "allocates_forever" and not errored:
            failures.append(f"{name}: the cell that allocates without end did not end in an error (the memory limit)")
        elif name not in ("allocates_forever", "exits_kernel") and not any(l.startswith("blocked:") for l in lines):
            failures.append(f"{name}: the attack printed nothing (did its cell run?): {said[-500:]!r}")
        print(f"  {name}: the cell {'ended in an error' if errored else 'ran to its end'}", flush=True)
    after = {"course": tree_hash(*protected), "canaries": tree_hash(paths["clone_canary"], paths["home_canary"]),
             "grading build": manifest_hash(seed)}
    for what in before:
        if before[what] != after[what]:
            failures.append(f"the {what} changed during grading (hash {before[what][:12]} -> {after[what][:12]})")
    if os.path.exists("/root/zoo-pwned"):
        failures.append("a submission wrote /root/zoo-pwned")
    if reached:
        failures.append("a submission reached the grader's listener on 127.0.0.1")
    print(f"hashes of the course folder (source, release, submitted, config), the canaries and the grading build: "
          f"{'unchanged' if before == after else 'CHANGED'}; the listener reached {len(reached)} time(s)", flush=True)

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
        # the run whose output was silenced stopped at its first check: its page says why instead
        want = "the run stopped" if name == "silences_output" else "zoo-outcome"
        if not os.path.exists(page) or want not in open(page, encoding="utf-8").read():
            failures.append(f"no feedback page with {want!r} for {name} ({page})")

    # the list `make grade` prints for the teacher to look at: every submission whose own code can
    # reach past its cells (the hostile ones that need unsafe, extern, /proc or processes), no other
    import grade
    review = grade.to_review(course, ASSIGNMENT)
    expected = {"silences_output", "exits_in_answer", "forks_forever", "exits_kernel", "writes_outside"}
    print("to look at: " + ", ".join(f"{k} ({'; '.join(v)})" for k, v in review.items()), flush=True)
    if set(review) != expected:
        failures.append(f"the list to look at is {sorted(review)}, expected {sorted(expected)}")

    sharded = sharded_run(course, class_, env, seconds, failures)

    with open(os.path.join(course, "report.json"), "w") as f:
        json.dump({"submissions": report, "attacks": attacked, "sharded": sharded, "failures": failures}, f, indent=1)
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
