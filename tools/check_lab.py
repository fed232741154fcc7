#!/usr/bin/env python3
"""`make lab-check`: the student's path through JupyterLab, driven through the Lab's own server.

First runs tools/evcxr/nudge_probe.py (the cause of the broken restarts, made certain: 100
kernel_info requests queued on a control socket that closes at the first reply; the kernel must
live and run a cell), then checks that a kernel whose start-up fails still runs cells and says why
as the first one's error. Then starts `make lab` (the real command, on its folder `lab/`) on a free port,
and:

1. Restarts: RESTARTS times (default 30) restarts a notebook's kernel the way JupyterLab does
   (the REST restart, then a new websocket on the same session, which jupyter_server answers by
   nudging the starting kernel with kernel_info requests every 0.5 s; the client's own
   kernel_info request and a cell queued at once). A restart counts as broken unless the queued
   cell's rich output (a table of the tensor [1, 2]) arrives, with no error and nothing on stderr.
2. The browser: headless Chromium (Playwright) opens a copy of a course notebook in the Lab,
   runs its first cells, restarts the kernel BROWSER_RESTARTS times through the Kernel menu and
   its dialog, running the cell again at once (a cell with a `let`, so that it needs the kernel's
   rust-analyzer), and saves with Ctrl+S. Before each restart it waits, as a student who worked
   a while would have, until the Lab has started the notebook's warm spare kernel
   (tools/evcxr/spare.py; started SPARE_DELAY s after a kernel here instead of the Lab's 20 s)
   and SPARE_WARM s more for its start-up, and says whether the restart took it.
3. A second notebook: opened in a second tab while the first one's kernel runs; its first cell's
   time from opening is compared with the first notebook's (must be within 1.5x), and the disk
   its kernel's build folder adds (hard links counted once) is reported. Its cells: a lecture
   class cell (rendered in colour beside its diagram) and an explorer cell (EXPLORER_CELL, the
   lecture's additive attention: its script must run in the Lab, and its neuron view's weights
   equal the head view's and the softmax of its scores), screenshotted in the user's light theme
   (explorer-light.png). Then the dark theme: Settings > Theme > JupyterLab Dark (the Lab's
   command apputils:change-theme, which saves the setting through the Lab's settings API): the
   page must say it is dark (document.body.dataset.jpThemeLight "false"), the explorer must have
   followed (data-zoo-theme "dark"), the explorer cell is screenshotted again (explorer-dark.png),
   a freshly loaded Lab must come up dark (the setting was saved), and the theme is switched
   back; the Lab's user settings are left byte for byte as they were found.
4. One exercise (q3 of lab/exercises/01_seq2seq.ipynb, in a copy of the check's own beside the
   student's): its imports run, then its starter and check cell as committed (the check must say
   "Not attempted"), a wrong answer typed into the starter (the encoder's first step: "Incorrect",
   naming the first step), the solution typed in ("Correct"), and `q3.hint()` in a new cell; a
   screenshot of each outcome and each check's time from Shift+Enter to its box. The copy is
   deleted unsaved and the folder's progress file is put back as it was.
5. A training loop of one's own across cells (tools/evcxr/tests/own_training_loop.ipynb, every
   arrangement of model, data, optimiser and loop over cells) through the Lab's kernel: every
   arrangement's losses equal the one-cell run's, no cell failing, each cell answered within
   CELL_TIMEOUT (the first also within the start's ceiling). A cell that never answers fails the
   check with the kernels' threads as gdb shows them (target/lab-check/own-loop-stacks.txt).
6. The repository: `git status` and every committed notebook's bytes are the same after the Lab
   session as before it, and so are the Lab's user settings (.jupyter/config/lab/user-settings);
   the Lab cannot reach `notebooks/`.

Waits come from what the check measures, so that a slow machine is not a failure and a kernel that
never answers is. The first kernel start (the nudge probe's) may be cold: a new clone's kernel
builds its dependencies, minutes on 2 cores, so it gets FIRST_START seconds (900, or
$LAB_CHECK_FIRST_START). Every later wait for a kernel's first answer after a start or a restart
gets max(180 s, 4 x the fastest start measured so far), as long as a cell on a running kernel gets
(CELL_TIMEOUT): the waits find a kernel that never answers; how fast it answers is measured and
printed, not judged (a start of a minute on a busy CI machine is slow, not broken). Each measured
start is printed, with the load average. A kernel that does not answer within its ceiling fails,
saying so, with the machine's load and memory and the launcher's last lines.

--short (`make lab-check SHORT=1`, what CI runs) keeps the nudge probe, `make lab`'s copies, 5
restarts (instead of 30), the training loop across cells, one Kernel > Restart in the Lab
(instead of 3), both notebooks with the
class and explorer cells, the dark theme, and the exercise as committed and with the solution. It
drops the failed start-up, the exercise's wrong answer and its hint; its summary says what ran.

Prints a report and writes it to target/lab-check/report.json, with screenshots and the Lab's log
beside it. Exits 1 when anything fails.

    python tools/check_lab.py [--short] [--restarts N] [--browser-restarts K]
"""
import argparse
import asyncio
import glob
import hashlib
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone

from check_pages import FLAGS as CHROMIUM_FLAGS
from check_pages import chromium
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "lab-check")
LAB_DIR = os.path.join(ROOT, "lab")
PREFIX = "lab-check-"
# What a student types first: a tensor shown as a table, through the prelude the kernel imported.
CELL = "show(&Tensor::new(&[[1f32, 2.]], &Device::Cpu)?)"
# A lecture class cell: the Rust that runs beside its diagram, as HTML the Lab must render with its
# colours (inline styles) and the diagram's SVG.
CLASS_CELL = "show_class(Architecture::Attention)?"
# An attention explorer: an HTML output whose inline script the Lab must run (a trusted output).
# The one place its source is written (both notebooks the check makes use it); what the Lab must
# show for it is checked in check_explorer_cell, below.
EXPLORER_CELL = """manual_seed(7)?;
let mut attention = Attention::with_score(2, None, false, Score::Additive)?;
attention.init_keys(&Tensor::new(&[[[0.65f32, 0.2], [0.85, -0.4], [-0.95, -0.75]]], &Device::Cpu)?)?;
attention.forward(&Tensor::new(&[[[0.55f32, 0.95], [0.1, -0.3]]], &Device::Cpu)?, None)?;
explore_attention(&attention, &["q0", "q1"], &["k0", "k1", "k2"])?"""
# The Lab's spare kernels (tools/evcxr/spare.py): started this long after a kernel starts (the
# Lab's default is 20 s; the check does not wait that long), the lines that say one was started
# or taken in the Lab's log, and the seconds the check gives a new spare for its start-up.
SPARE_DELAY = "5"
SPARE_STARTED, SPARE_TAKEN = "zoo spare: started", "zoo spare: handed over"
SPARE_WARM = 15
# A cell on a running kernel (its crate loaded): seconds before it counts as failed.
CELL_TIMEOUT = 180
# The wait for a kernel's first answer after a start or restart (see the docstring): the first
# start may be a cold one; later ones get max(START_FLOOR, START_FACTOR x the fastest measured).
FIRST_START = int(os.environ.get("LAB_CHECK_FIRST_START", "900"))
START_FLOOR, START_FACTOR = 180, 4
# The Lab's themes: the light one the screenshots start in, the dark one the check switches to.
LIGHT_THEME, DARK_THEME = "JupyterLab Light", "JupyterLab Dark"
THEMES_PLUGIN = "@jupyterlab/apputils-extension:themes"
# The exercise the Lab runs (its notebook under notebooks/ and lab/), and what is typed into its
# starter cell: a usual mistake (the encoder's first step, not its last) and the solution.
EXERCISE_NOTEBOOK, EXERCISE = "exercises/01_seq2seq.ipynb", "01.q3"
EXERCISE_WRONG = ("// lecture 000#11 · q3: your code\n"
                  "pub fn init_hidden(hidden_seq: &Tensor) -> Result<Tensor> {\n"
                  "    hidden_seq.narrow(1, 0, 1)?.permute((1, 0, 2))\n"
                  "}")
EXERCISE_SOLVED = ("// lecture 000#11 · q3: your code\n"
                   "pub fn init_hidden(hidden_seq: &Tensor) -> Result<Tensor> {\n"
                   "    let l = hidden_seq.dim(1)?;\n"
                   "    let hidden_final = hidden_seq.i((.., l - 1..))?;\n"
                   "    hidden_final.permute((1, 0, 2))\n"
                   "}")


class Starts:
    """The kernel starts measured so far (each one's seconds to its first answer), and from them the
    ceiling for the next one: FIRST_START before any, then max(START_FLOOR, START_FACTOR x the
    fastest). The fastest, so that one cold start (a build) does not stretch the later waits."""

    def __init__(self):
        self.measured = []

    def record(self, label, seconds):
        self.measured.append({"start": label, "seconds": round(seconds, 2), "load": round(os.getloadavg()[0], 1)})

    def ceiling(self):
        if not self.measured:
            return FIRST_START
        return max(START_FLOOR, START_FACTOR * min(m["seconds"] for m in self.measured))

    def basis(self):
        if not self.measured:
            return f"the first start's ceiling, {FIRST_START} s (LAB_CHECK_FIRST_START)"
        fastest = min(self.measured, key=lambda m: m["seconds"])
        return f"max({START_FLOOR} s, {START_FACTOR} x the fastest start measured, {fastest['seconds']:.1f} s: {fastest['start']})"

    def never_answered(self, what, ceiling):
        return f"the kernel never answered: {what} gave no output within {ceiling:.0f} s ({self.basis()}); {machine_state()}"


def machine_state():
    """The load average, the memory available and the launcher's last lines in the Lab's log."""
    available = next((int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemAvailable:")), 0)
    said = ""
    try:
        with open(os.path.join(OUT, "lab.log"), errors="replace") as f:
            lines = [line.strip() for line in f if "launch.py" in line or "zoo spare" in line or "Kernel started" in line]
        said = "; the Lab's log: " + " | ".join(lines[-6:]) if lines else ""
    except OSError:
        pass
    return f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {available / 2**20:.1f} GiB available{said}"


def kernel_stacks(name):
    """For a cell that never answered: every evcxr_jupyter process's threads as gdb shows them
    (the whole dump in OUT/name), and a line naming, for each thread inside evcxr, zeromq or
    rust-analyzer, its three innermost frames there."""
    path = os.path.join(OUT, name)
    pids = subprocess.run(["pgrep", "-f", "evcxr_jupyter"], capture_output=True, text=True).stdout.split()
    if not shutil.which("gdb"):
        return f"{len(pids)} evcxr_jupyter processes; no gdb to show their threads"
    busy = []
    with open(path, "w") as out:
        for pid in pids:
            try:
                command = open(f"/proc/{pid}/cmdline").read().replace("\0", " ").strip()
            except OSError:
                continue
            try:
                dump = subprocess.run(["gdb", "-p", pid, "-batch", "-nx", "-ex", "thread apply all bt"],
                                      capture_output=True, text=True, timeout=120).stdout
            except subprocess.TimeoutExpired:
                dump = "(gdb took more than 120 s)"
            out.write(f"== process {pid}: {command}\n{dump}\n")
            for thread in re.split(r"\n(?=Thread \d+ )", dump):
                frames = [re.sub(r"::h[0-9a-f]{16}$", "", f) for f in re.findall(r"#\d+ +(?:0x[0-9a-f]+ in )?([\w:<>$.]+)", thread)]
                ours = [f for f in frames if re.search(r"evcxr|zeromq|ra_ap|rust_analyzer|proc_macro|salsa", f)]
                if ours:
                    title = re.search(r'"([^"]*)"', thread)
                    busy.append(f"process {pid} thread {title.group(1) if title else '?'}: " + " < ".join(ours[:3]))
    return (f"the kernels' threads (all of them: {os.path.relpath(path, ROOT)}): "
            + ("; ".join(busy[:10]) if busy else "none inside evcxr, zeromq or rust-analyzer"))


STARTS = Starts()


def lab_settings_dir():
    """Where the Lab keeps the user's settings (the Makefile's JUPYTER_CONFIG_DIR: .jupyter/config)."""
    if os.environ.get("JUPYTERLAB_SETTINGS_DIR"):
        return os.environ["JUPYTERLAB_SETTINGS_DIR"]
    config = os.environ.get("JUPYTER_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".jupyter")
    return os.path.join(config, "lab", "user-settings")


def lab_settings():
    """Every user settings file's bytes, by path: what the check must leave as it found it."""
    base, found = lab_settings_dir(), {}
    for path in sorted(glob.glob(os.path.join(base, "**", "*"), recursive=True)):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                found[os.path.relpath(path, base)] = f.read()
    return found


def restore_lab_settings(found):
    """Puts the user settings back as `found` held them: files written since removed, others rewritten."""
    base, now = lab_settings_dir(), lab_settings()
    for rel in now:
        if rel not in found:
            os.remove(os.path.join(base, rel))
    for rel, data in found.items():
        if now.get(rel) != data:
            os.makedirs(os.path.dirname(os.path.join(base, rel)), exist_ok=True)
            with open(os.path.join(base, rel), "wb") as f:
                f.write(data)
    for folder, _, _ in sorted(os.walk(base), reverse=True):  # folders the Lab made for a new file
        if folder != base and not os.listdir(folder) and not any(rel.startswith(os.path.relpath(folder, base) + os.sep) for rel in found):
            os.rmdir(folder)


class Phases:
    """How long each part of the check took, printed at the end."""

    def __init__(self):
        self.seconds = {}

    def add(self, name, seconds):
        self.seconds[name] = self.seconds.get(name, 0) + seconds


PHASES = Phases()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git_state():
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    committed = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "**", "*"), recursive=True)):
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            committed[os.path.relpath(path, ROOT)] = hashlib.sha256(f.read()).hexdigest()
    return status, committed


def notebook(cells):
    return {"cells": [{"cell_type": "code", "id": uuid.uuid4().hex[:8], "metadata": {}, "execution_count": None,
                       "outputs": [], "source": source} for source in cells],
            "metadata": {"kernelspec": {"name": "rust", "display_name": "Rust (attention-zoo)", "language": "rust"}},
            "nbformat": 4, "nbformat_minor": 5}


class Lab:
    """`make lab` in the background, and its REST API."""

    def __init__(self):
        self.port, self.token = free_port(), uuid.uuid4().hex
        self.base = f"http://127.0.0.1:{self.port}"
        self.http = AsyncHTTPClient()
        self.log_path = os.path.join(OUT, "lab.log")
        self.process = None

    async def start(self):
        args = f"--port={self.port} --ServerApp.port_retries=0 --IdentityProvider.token={self.token}"
        os.environ["ZOO_SPARE_DELAY"] = SPARE_DELAY
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"], cwd=ROOT,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"`make lab` ended with {self.process.returncode}: see {self.log_path}")
            try:
                await self.api("GET", "/api/status")
                return
            except (OSError, HTTPClientError):
                await asyncio.sleep(0.5)
        raise RuntimeError("JupyterLab did not answer within 600 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process:
            self.log.close()

    async def api(self, method, path, body=None, allow=()):
        request = HTTPRequest(self.base + path, method=method, headers={"Authorization": f"token {self.token}"},
                              body=None if body is None and method == "GET" else json.dumps(body or {}),
                              request_timeout=120, allow_nonstandard_methods=True)
        try:
            response = await self.http.fetch(request)
        except HTTPClientError as e:
            if e.code in allow:
                return e.code
            raise
        return json.loads(response.body) if response.body else None

    def log_count(self, text):
        """How many lines of the Lab's log so far contain `text`."""
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return sum(text in line for line in f)

    def ws_url(self, kernel_id, session_id):
        return f"ws://127.0.0.1:{self.port}/api/kernels/{kernel_id}/channels?session_id={session_id}&token={self.token}"


class KernelSocket:
    """A websocket on a kernel, speaking Jupyter's JSON messages as JupyterLab does."""

    def __init__(self, lab, kernel_id, session_id):
        self.lab, self.kernel_id, self.session_id = lab, kernel_id, session_id

    async def open(self, timeout):
        # A kernel still starting (its crate building, the CPU shared) answers the websocket late:
        # wait as long as for its first answer, not tornado's 20 s.
        self.ws = await websocket_connect(self.lab.ws_url(self.kernel_id, self.session_id), connect_timeout=timeout)
        return self

    def send(self, channel, msg_type, content):
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "username": "student", "session": self.session_id, "msg_type": msg_type,
                  "version": "5.3", "date": datetime.now(timezone.utc).isoformat()}
        self.ws.write_message(json.dumps({"header": header, "parent_header": {}, "metadata": {}, "content": content,
                                          "channel": channel, "buffers": []}))
        return msg_id

    def execute(self, code):
        return self.send("shell", "execute_request", {"code": code, "silent": False, "store_history": True,
                                                       "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})

    async def outcome(self, msg_id, deadline, never_answered):
        """Waits for the cell's reply until `deadline` (time.monotonic()): (seconds to its first rich
        output or None, problems). Without a reply by then, the problem is `never_answered`."""
        started, first_rich, problems, replied = time.monotonic(), None, [], False
        while not replied or first_rich is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                problems.append(never_answered if not replied else "the cell replied but its rich output never came")
                break
            try:
                raw = await asyncio.wait_for(self.ws.read_message(), remaining)
            except asyncio.TimeoutError:
                continue
            if raw is None:
                problems.append("the websocket closed")
                break
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg.get("msg_type") or msg["header"]["msg_type"], msg.get("content", {})
            if kind in ("display_data", "execute_result"):
                if "text/html" in content.get("data", {}) and first_rich is None:
                    first_rich = time.monotonic() - started
                    html, text = content["data"]["text/html"], content["data"].get("text/plain", "")
                    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
                    if cells != ["1.", "2."] or text != "tensor([[1., 2.]])":
                        problems.append(f"the table shows {cells} and the text {text!r}, not [1., 2.] as PyTorch prints it")
                elif "text/html" not in content.get("data", {}):
                    problems.append(f"plain output: {str(content.get('data'))[:200]}")
            elif kind == "stream" and content.get("name") == "stderr" and content.get("text", "").strip():
                problems.append("stderr: " + content["text"].strip()[:300])
            elif kind == "error":
                problems.append("error: " + content.get("evalue", "")[:300])
            elif kind == "execute_reply":
                replied = True
                if content.get("status") != "ok":
                    problems.append(f"reply status {content.get('status')}")
                if first_rich is None:
                    problems.append("the cell replied without a rich output")
                    break
        return first_rich, problems

    def close(self):
        self.ws.close()


async def restarts(lab, count, report):
    """Restarts through the REST API and a new websocket, with a cell queued at once."""
    name = PREFIX + "restarts.ipynb"
    await lab.api("PUT", f"/api/contents/{name}", {"type": "notebook", "format": "json", "content": notebook([CELL, CLASS_CELL, EXPLORER_CELL])})
    spares_before = lab.log_count(SPARE_TAKEN)
    ceiling, started = STARTS.ceiling(), time.monotonic()
    session = await lab.api("POST", "/api/sessions", {"path": name, "name": name, "type": "notebook", "kernel": {"name": "rust"}})
    kernel_id, session_id = session["kernel"]["id"], uuid.uuid4().hex
    results = []
    try:
        sock = await KernelSocket(lab, kernel_id, session_id).open(ceiling)
        sock.send("shell", "kernel_info_request", {})
        _, problems = await sock.outcome(sock.execute(CELL), started + ceiling, STARTS.never_answered("the Lab's first kernel", ceiling))
        seconds = time.monotonic() - started
        report["lab_kernel_start"] = {"seconds": None if problems else seconds, "ceiling": ceiling, "problems": problems}
        if problems:
            raise RuntimeError("the Lab's first kernel: " + "; ".join(problems))
        STARTS.record("the Lab's first kernel", seconds)
        print(f"  kernel start: the queued cell's rich output {seconds:.1f} s after the session was made (ceiling {ceiling:.0f} s)", flush=True)
        for k in range(1, count + 1):
            ceiling, started = STARTS.ceiling(), time.monotonic()
            problems = []
            try:
                # jupyter_server answers the restart once the kernel answers its kernel_info, or
                # with an error after its kernel_info_timeout.
                await lab.api("POST", f"/api/kernels/{kernel_id}/restart", {})
                sock.close()
                sock = await KernelSocket(lab, kernel_id, session_id).open(max(1, started + ceiling - time.monotonic()))
            except (OSError, asyncio.TimeoutError, HTTPClientError) as e:
                problems.append(f"{STARTS.never_answered(f'restart {k}', ceiling)} ({type(e).__name__}: {str(e)[:200]})")
            if not problems:
                sock.send("shell", "kernel_info_request", {})
                msg_id = sock.execute(CELL)
                _, problems = await sock.outcome(msg_id, started + ceiling, STARTS.never_answered(f"restart {k}", ceiling))
            seconds = time.monotonic() - started
            if not problems:
                STARTS.record(f"REST restart {k}", seconds)
            results.append({"restart": k, "seconds_to_first_output": None if problems else seconds, "ceiling": ceiling, "problems": problems})
            print(f"  restart {k:2d}: {'BROKEN ' + '; '.join(problems) if problems else f'first rich output {seconds:.1f} s after the restart'} (ceiling {ceiling:.0f} s)", flush=True)
            if problems:
                # A broken kernel stays broken: restart again from a clean state, as a student would.
                await asyncio.sleep(1)
        sock.close()
    finally:
        await lab.api("DELETE", f"/api/sessions/{session['id']}", allow=(404,))
        await lab.api("DELETE", f"/api/contents/{name}", allow=(404,))
    times = [r["seconds_to_first_output"] for r in results if r["seconds_to_first_output"] is not None]
    report["restarts"] = {"count": count, "broken": sum(bool(r["problems"]) for r in results), "results": results,
                          "seconds": summary(times), "from_spare": lab.log_count(SPARE_TAKEN) - spares_before}


async def own_loop(lab, report):
    """tools/evcxr/tests/own_training_loop.ipynb through the Lab's kernel, cell by cell: a training
    loop of one's own spread over cells in 22 ways must give the one-cell run's losses (its last
    cell checks them, bit for bit) with no cell failing."""
    path = os.path.join(ROOT, "tools", "evcxr", "tests", "own_training_loop.ipynb")
    source = json.load(open(path, encoding="utf-8"))
    cells = ["".join(c["source"]) for c in source["cells"] if c["cell_type"] == "code"]
    # The committed notebook names the crate relative to its folder; this copy lives in lab/.
    cells[0] = cells[0].replace('path = "../../.."', 'path = "%s"' % ROOT)
    name = PREFIX + "own_training_loop.ipynb"
    await lab.api("PUT", f"/api/contents/{name}", {"type": "notebook", "format": "json", "content": notebook(cells)})
    started = time.monotonic()
    session = await lab.api("POST", "/api/sessions", {"path": name, "name": name, "type": "notebook", "kernel": {"name": "rust"}})
    problems, last_text = [], ""
    try:
        sock = await KernelSocket(lab, session["kernel"]["id"], uuid.uuid4().hex).open(STARTS.ceiling())
        for number, code in enumerate(cells, 1):
            # Each cell gets what a cell on a running kernel gets; the first one also the start's.
            ceiling = CELL_TIMEOUT + (STARTS.ceiling() if number == 1 else 0)
            deadline = time.monotonic() + ceiling
            msg_id, texts, status = sock.execute(code), [], None
            while status is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    problems.append(f"cell {number} never answered: no reply within {ceiling:.0f} s; {machine_state()}; "
                                    + kernel_stacks("own-loop-stacks.txt"))
                    break
                try:
                    raw = await asyncio.wait_for(sock.ws.read_message(), remaining)
                except asyncio.TimeoutError:
                    continue
                if raw is None:
                    raise RuntimeError("the websocket closed")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg.get("msg_type") or msg["header"]["msg_type"], msg.get("content", {})
                if kind == "stream":
                    texts.append(content.get("text", ""))
                elif kind == "error":
                    problems.append(f"cell {number}: {content.get('ename')}: {content.get('evalue', '')[:300]}")
                elif kind == "execute_reply":
                    status = content.get("status")
            last_text = "".join(texts)
            if status != "ok" and not problems:
                problems.append(f"cell {number}: reply status {status}")
            if problems:
                break
        sock.close()
    finally:
        await lab.api("DELETE", f"/api/sessions/{session['id']}", allow=(404,))
        await lab.api("DELETE", f"/api/contents/{name}", allow=(404,))
    seconds = time.monotonic() - started
    if not problems and "every loss equal to the one-cell run's" not in last_text:
        problems.append(f"the last cell said {last_text.strip()[:300]!r}")
    report["own_training_loop"] = {"cells": len(cells), "seconds": round(seconds, 1), "said": last_text.strip(), "problems": problems}
    print(f"  {len(cells)} cells in {seconds:.0f} s: " + ("; ".join(problems) if problems else last_text.strip()), flush=True)
    report["failures"].extend("a training loop of one's own across cells: " + p for p in problems)


async def spare_ready(lab, timeout=180):
    """Waits until a spare kernel (tools/evcxr/spare.py) has been started since the last one was
    taken, then SPARE_WARM seconds for its start-up; returns the seconds waited."""
    started = time.monotonic()
    while lab.log_count(SPARE_STARTED) <= lab.log_count(SPARE_TAKEN) and time.monotonic() - started < timeout:
        await asyncio.sleep(0.5)
    await asyncio.sleep(SPARE_WARM)
    return time.monotonic() - started


def summary(times):
    return None if not times else {"min": min(times), "median": statistics.median(times), "max": max(times)}


def slot_disk(slots):
    """Bytes on disk of each build slot beyond the slots before it: du counts a file with several
    hard links once per run, for the first folder that holds it."""
    lines = subprocess.run(["du", "-s", "-B1", *slots], capture_output=True, text=True).stdout.splitlines()
    return {os.path.basename(path): int(size) for size, path in (line.split("\t", 1) for line in lines)}


async def browser(lab, restarts_count, report, short):
    """The real Lab in Chromium: a course notebook run, restarted through the menu, saved; then a
    second notebook, its class and explorer cells, the dark theme; then the exercise."""
    from playwright.async_api import async_playwright

    course = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))[0]
    first_name, second_name = PREFIX + course, PREFIX + "second.ipynb"
    await lab.api("POST", "/api/contents", {"copy_from": course})  # the Lab's "Duplicate" on the student's copy
    copies = [m["name"] for m in (await lab.api("GET", "/api/contents"))["content"] if m["name"].startswith(course[:-6] + "-Copy")]
    await lab.api("PATCH", f"/api/contents/{copies[0]}", {"path": first_name})
    await lab.api("PUT", f"/api/contents/{second_name}", {"type": "notebook", "format": "json", "content": notebook([CELL, CLASS_CELL, EXPLORER_CELL])})
    result = {"notebook": course, "restarts": []}
    workspace = PREFIX + uuid.uuid4().hex[:8]
    report["browser"] = result
    async with async_playwright() as p:
        chrome = await p.chromium.launch(executable_path=chromium(), headless=True, args=CHROMIUM_FLAGS)
        try:
            phase = time.monotonic()
            page = await chrome.new_page(viewport={"width": 1400, "height": 1000})
            opened = time.monotonic()
            ceiling = STARTS.ceiling()
            # A workspace of the check's own, reset: not the student's open tabs.
            await page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{first_name}?reset&token={lab.token}")
            await page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            # The first code cell (`:dep` and `use`) and the next one, as a student starts.
            cells = page.locator(".jp-Notebook .jp-CodeCell")
            try:
                # Like a student, wait for the status bar's "Idle": before the notebook has a kernel,
                # JupyterLab ignores Shift+Enter.
                await kernel_start(lab, page, first_name, [cells.nth(0), cells.nth(1)], opened + ceiling, ceiling, f"{course}'s kernel in the Lab")
            except Exception:
                await page.screenshot(path=os.path.join(OUT, "first-notebook-failed.png"))
                raise
            result["first_notebook_seconds_to_first_output"] = time.monotonic() - opened
            print(f"  browser: {course} opened, its first output {result['first_notebook_seconds_to_first_output']:.1f} s after opening (ceiling {ceiling:.0f} s)", flush=True)
            PHASES.add("browser: first notebook opened and run", time.monotonic() - phase)
            phase = time.monotonic()
            for k in range(1, restarts_count + 1):
                # As a student restarts after working a while: the notebook's warm spare kernel
                # (tools/evcxr/spare.py) started and through its start-up.
                waited = await spare_ready(lab)
                took_before = lab.log_count(SPARE_TAKEN)
                ceiling, started = STARTS.ceiling(), time.monotonic()
                await page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
                await page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
                await page.locator(".jp-Dialog-button.jp-mod-accept").click()
                problems = []
                try:
                    await run_cell(page, cells.nth(1), want_output=True, timeout=ceiling)
                except Exception as e:  # a timeout or a wrong output
                    said = str(e).splitlines()[0][:300]
                    problems.append(STARTS.never_answered(f"Kernel > Restart {k}", ceiling) if "Timeout" in said else said)
                    await page.screenshot(path=os.path.join(OUT, f"restart-{k}-failed.png"))
                seconds = time.monotonic() - started
                if not problems:
                    STARTS.record(f"Kernel > Restart {k}", seconds)
                spare = lab.log_count(SPARE_TAKEN) > took_before
                result["restarts"].append({"restart": k, "seconds_to_first_output": None if problems else seconds, "ceiling": ceiling,
                                           "from_spare": spare, "waited_for_spare": round(waited, 1), "problems": problems})
                how = "from the warm spare" if spare else "no spare was ready: a plain start"
                print(f"  browser restart {k}: {'BROKEN ' + '; '.join(problems) if problems else f'output {seconds:.1f} s after Restart'} "
                      f"({how}; ceiling {ceiling:.0f} s)", flush=True)
            await page.screenshot(path=os.path.join(OUT, "first-notebook.png"))
            await page.keyboard.press("Control+s")
            await page.wait_for_timeout(2000)
            PHASES.add("browser: Kernel > Restart", time.monotonic() - phase)
            # A second notebook while the first one's kernel runs: a second build slot.
            phase = time.monotonic()
            second = await chrome.new_page(viewport={"width": 1400, "height": 1000})
            opened, ceiling = time.monotonic(), STARTS.ceiling()
            await second.goto(f"{lab.base}/lab/workspaces/{workspace}-2/tree/{second_name}?reset&token={lab.token}")
            await second.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            second_cells = second.locator(".jp-Notebook .jp-CodeCell")
            await kernel_start(lab, second, second_name, [second_cells.nth(0)], opened + ceiling, ceiling, "the second notebook's kernel", want_output=True)
            result["second_notebook_seconds_to_first_output"] = time.monotonic() - opened
            STARTS.record("the second notebook's kernel (from opening it)", result["second_notebook_seconds_to_first_output"])
            ratio = result["second_notebook_seconds_to_first_output"] / result["first_notebook_seconds_to_first_output"]
            result["second_to_first"] = ratio
            print(f"  second notebook: first output {result['second_notebook_seconds_to_first_output']:.1f} s after opening ({ratio:.2f}x the first; ceiling {ceiling:.0f} s)", flush=True)
            PHASES.add("browser: second notebook opened", time.monotonic() - phase)
            # the class cell: highlighted code (coloured spans) and the diagram, rendered by the Lab
            phase = time.monotonic()
            class_cell = second_cells.nth(1)
            await run_cell(second, class_cell)
            view = class_cell.locator(".jp-OutputArea-output .zoo-class")
            coloured = await view.locator(".zoo-class-code pre span[style*='color']").count()
            drawn = await view.locator(".zoo-class-diagram svg").count()
            result["class_cell"] = {"coloured_spans": coloured, "diagrams": drawn, "seconds": time.monotonic() - phase}
            await class_cell.screenshot(path=os.path.join(OUT, "class-cell.png"))
            if coloured < 20 or drawn != 1:
                raise RuntimeError(f"the class cell is not rendered in the Lab: {coloured} coloured spans, {drawn} diagrams")
            print(f"  class cell: {coloured} coloured code spans and its diagram rendered, {result['class_cell']['seconds']:.1f} s from Shift+Enter", flush=True)
            PHASES.add("browser: class cell", time.monotonic() - phase)
            # the explorer cell: its script ran in the Lab
            phase = time.monotonic()
            explorer_cell = second_cells.nth(2)
            await run_cell(second, explorer_cell)
            result["explorer_cell"] = await check_explorer_cell(explorer_cell)
            result["explorer_cell"]["seconds"] = time.monotonic() - phase
            print(f"  explorer cell: {result['explorer_cell']['said']}, {result['explorer_cell']['seconds']:.1f} s from Shift+Enter", flush=True)
            PHASES.add("browser: explorer cell", time.monotonic() - phase)
            phase = time.monotonic()
            await dark_theme(lab, chrome, second, explorer_cell, workspace + "-theme", result)
            PHASES.add("browser: dark theme", time.monotonic() - phase)
            await second.screenshot(path=os.path.join(OUT, "second-notebook.png"))
            # The exercise in a tab of its own, once the two notebooks' kernels are shut down.
            await page.close()
            await second.close()
            for session in await lab.api("GET", "/api/sessions"):
                await lab.api("DELETE", f"/api/sessions/{session['id']}", allow=(404,))
            phase = time.monotonic()
            try:
                await exercise(lab, chrome, workspace + "-3", result, short)
            finally:
                PHASES.add("browser: exercise", time.monotonic() - phase)
        finally:
            await chrome.close()
    for session in await lab.api("GET", "/api/sessions"):
        await lab.api("DELETE", f"/api/sessions/{session['id']}", allow=(404,))
    for name in (workspace, workspace + "-2", workspace + "-3", workspace + "-theme"):
        await lab.api("DELETE", f"/lab/api/workspaces/{name}", allow=(404,))


async def kernel_start(lab, page, path, cells, deadline, ceiling, what, want_output=False):
    """A notebook's kernel started: waits for its "Idle", then runs `cells` (the last with
    want_output), all before `deadline`; past it, fails saying the kernel never answered."""
    try:
        await kernel_idle(lab, path, timeout=max(1, deadline - time.monotonic()))
        for k, cell in enumerate(cells):
            await run_cell(page, cell, want_output=want_output and k == len(cells) - 1, timeout=max(1, deadline - time.monotonic()))
    except Exception as e:
        if isinstance(e, TimeoutError) or "Timeout" in type(e).__name__ or "Timeout" in str(e).split("\n")[0]:
            raise RuntimeError(STARTS.never_answered(what, ceiling)) from None
        raise


async def check_explorer_cell(cell):
    """What the Lab must show for EXPLORER_CELL (the lecture's additive attention, two queries over
    three keys): the explorer's script ran (mounted, static heatmap hidden), and hovering the query
    q1 reads its row's three weights in the head view; its neuron view shows, for q1, each key's
    dot, score and weight, the weights equal to the head view's (to their 3 decimals) and to the
    softmax of the scores shown (within the scores' rounding). Screenshotted (explorer-light.png:
    the theme the Lab opened in, light unless the user chose another). Returns what it found, with
    a line to print; raises when the explorer did not run."""
    root = cell.locator(".zoo-explorer")
    await root.locator(".zoo-explorer-token").first.wait_for(timeout=20_000)
    mounted = await root.get_attribute("data-mount-ms")
    static_shown = await root.locator(".zoo-explorer-static").is_visible()
    await root.locator(".zoo-explorer-token[data-side=row][data-index='1']").click()  # pinned
    readout = await root.locator(".zoo-explorer-readout [data-weight]").evaluate_all("els => els.map(e => e.dataset.weight)")
    cells = await root.locator(".zoo-explorer-neurons [data-term]").evaluate_all(
        "els => els.map(e => [e.dataset.term, e.dataset.key == null ? null : +e.dataset.key, e.dataset.value])")
    terms = {t: [v for term, k, v in cells if term == t and k is not None] for t in ("dot", "score", "weight")}
    await cell.screenshot(path=os.path.join(OUT, "explorer-light.png"))
    problems = []
    if mounted is None or static_shown or len(readout) != 3:
        problems.append(f"mounted {mounted}, static shown {static_shown}, readout {readout}")
    if any(len(v) != 3 for v in terms.values()):
        problems.append(f"the neuron view shows {({t: len(v) for t, v in terms.items()})} values, not 3 each")
    else:
        scores = [float(v) for v in terms["score"]]
        softmax = [math.exp(x - max(scores)) for x in scores]
        softmax = [x / sum(softmax) for x in softmax]
        if terms["weight"] != readout:
            problems.append(f"the neuron view's weights {terms['weight']} are not the head view's {readout}")
        if any(abs(float(w) - p) > 2e-3 for w, p in zip(terms["weight"], softmax)):
            problems.append(f"the weights {terms['weight']} are not the softmax of the scores {terms['score']}")
        if terms["dot"] != terms["score"]:  # the additive score is its dot (no scaling)
            problems.append(f"the additive score's dots {terms['dot']} differ from its scores {terms['score']}")
    if problems:
        raise RuntimeError("the explorer did not run in the Lab as it should: " + "; ".join(problems))
    return {"mount_ms": mounted, "static_shown": static_shown, "readout": readout, "neurons": terms,
            "said": f"mounted in {float(mounted):.0f} ms, q1 pinned reads {readout}; its neuron view scores {terms['score']}"}


async def set_theme(page, name):
    """Settings > Theme > `name`, as a student switches (the Lab's command apputils:change-theme,
    which also saves the choice in the user's settings); waits until the page has it."""
    await page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Settings$")).click()
    await page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).click()
    await page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(name)}$")).click()
    await page.wait_for_function("(name) => document.body.dataset.jpThemeName === name", arg=name, timeout=60_000)
    await page.wait_for_timeout(500)  # the theme's stylesheet applied to what is drawn


async def saved_theme(lab):
    """The theme the Lab's settings API has for the user (what a freshly loaded Lab uses)."""
    found = await lab.api("GET", f"/lab/api/settings/{THEMES_PLUGIN}")
    return (found.get("settings") or {}).get("theme")


async def dark_theme(lab, chrome, page, explorer_cell, workspace, result):
    """The explorer cell in JupyterLab Dark: switched through the Lab's Settings menu, the page
    must say dark (document.body.dataset.jpThemeLight "false"), the cell is screenshotted
    (explorer-dark.png, beside explorer-light.png), the setting must be saved (the settings API
    has it, and a freshly loaded Lab comes up dark), then the theme the page had is put back.
    The user settings' files themselves are restored byte for byte by main_async."""
    out = {"problems": []}
    result["dark_theme"] = out
    started = time.monotonic()
    found = await page.evaluate("() => ({name: document.body.dataset.jpThemeName, light: document.body.dataset.jpThemeLight})")
    out["theme_found"] = found["name"]
    if found["light"] != "true":  # the user's own dark theme: the light screenshot again, in light
        await set_theme(page, LIGHT_THEME)
        await explorer_cell.screenshot(path=os.path.join(OUT, "explorer-light.png"))
    try:
        await set_theme(page, DARK_THEME)
        out["jpThemeLight"] = light = await page.evaluate("() => document.body.dataset.jpThemeLight")
        if light != "false":
            out["problems"].append(f"after Settings > Theme > {DARK_THEME}, document.body.dataset.jpThemeLight is {light!r}, not 'false'")
        await explorer_cell.locator(".zoo-explorer").evaluate("el => el.scrollIntoView({block: 'start'})")
        # the explorer read the Lab's theme from the page (its MutationObserver saw the switch)
        out["explorer_theme"] = theme = await explorer_cell.locator(".zoo-explorer").get_attribute("data-zoo-theme")
        if theme != "dark":
            out["problems"].append(f"in {DARK_THEME} the explorer's theme is {theme!r}, not 'dark'")
        await explorer_cell.screenshot(path=os.path.join(OUT, "explorer-dark.png"))
        out["screenshot"] = os.path.relpath(os.path.join(OUT, "explorer-dark.png"), ROOT)
        out["layout_color0"] = await page.evaluate("() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim()")
        # Saved: the settings API has it, and the Lab loaded afresh (a reload) comes up dark.
        deadline = time.monotonic() + 30
        while await saved_theme(lab) != DARK_THEME and time.monotonic() < deadline:
            await asyncio.sleep(0.25)
        out["saved"] = await saved_theme(lab)
        if out["saved"] != DARK_THEME:
            out["problems"].append(f"the Lab's settings API has the theme {out['saved']!r} after switching to {DARK_THEME}")
        fresh = await chrome.new_page(viewport={"width": 1400, "height": 1000})
        try:
            await fresh.goto(f"{lab.base}/lab/workspaces/{workspace}?reset&token={lab.token}")
            await fresh.wait_for_function("() => document.body.dataset.jpThemeName !== undefined", timeout=120_000)
            out["reloaded"] = await fresh.evaluate("() => ({name: document.body.dataset.jpThemeName, light: document.body.dataset.jpThemeLight})")
        finally:
            await fresh.close()
        if out["reloaded"]["light"] != "false":
            out["problems"].append(f"the Lab loaded afresh came up in {out['reloaded']['name']!r} (light {out['reloaded']['light']!r}), not dark")
    finally:
        await set_theme(page, found["name"] or LIGHT_THEME)
    out["seconds"] = time.monotonic() - started
    print(f"  dark theme: {DARK_THEME} through Settings > Theme, jpThemeLight {out.get('jpThemeLight')!r}, "
          f"--jp-layout-color0 {out.get('layout_color0')!r}, saved {out.get('saved')!r}, a fresh Lab came up {out.get('reloaded', {}).get('name')!r}; back to {found['name']!r}; "
          f"{out['seconds']:.1f} s (explorer-light.png, explorer-dark.png)", flush=True)
    if out["problems"]:
        raise RuntimeError("the dark theme: " + "; ".join(out["problems"]))


async def exercise(lab, chrome, workspace, result, short=False):
    """One exercise as a student does it in the Lab: the imports, then the starter and its check as
    committed, a wrong answer typed into the starter (not with `short`), and the solution, then a
    hint in a new cell (not with `short`); each check's verdict, its
    time from Shift+Enter to the outcome's box, and a screenshot of the answer and its outcome.
    Runs in a copy of the committed notebook beside the student's (the Lab autosaves what is typed;
    the student's copy may hold work of their own), deleted unsaved; the folder's progress file,
    which the checks write to, is put back as it was."""
    folder = os.path.dirname(EXERCISE_NOTEBOOK)
    if await lab.api("GET", f"/api/contents/{EXERCISE_NOTEBOOK}?content=0", allow=(404,)) == 404:
        raise RuntimeError(f"`make lab` did not copy notebooks/{EXERCISE_NOTEBOOK} to lab/{EXERCISE_NOTEBOOK}")
    with open(os.path.join(ROOT, "notebooks", EXERCISE_NOTEBOOK), encoding="utf-8") as f:
        committed = json.load(f)
    cells_json = committed["cells"]
    first = next(i for i, c in enumerate(cells_json) if c["cell_type"] == "code")
    starter_at = next(i for i, c in enumerate(cells_json) if c["metadata"].get("exercise") == EXERCISE)
    check_at = next(i for i, c in enumerate(cells_json) if c["metadata"].get("check") == EXERCISE)
    qn = EXERCISE.split(".")[1]
    name = f"{folder}/{PREFIX}{os.path.basename(EXERCISE_NOTEBOOK)}"
    progress = os.path.join(LAB_DIR, folder, ".zoo-progress.json")
    kept = open(progress, "rb").read() if os.path.exists(progress) else None
    checkpoints = os.path.join(LAB_DIR, folder, ".ipynb_checkpoints")
    had_checkpoints = os.path.isdir(checkpoints)
    out = {"notebook": EXERCISE_NOTEBOOK, "exercise": EXERCISE, "checks": [], "problems": []}
    result["exercise"] = out
    await lab.api("PUT", f"/api/contents/{name}", {"type": "notebook", "format": "json", "content": committed})
    page = await chrome.new_page(viewport={"width": 1400, "height": 1000})
    try:
        await page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
        await page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        cells = page.locator(".jp-Notebook .jp-Cell")
        try:  # the Lab adds a long notebook's cells a few at a time
            await page.wait_for_function("(n) => document.querySelectorAll('.jp-Notebook .jp-Cell').length === n",
                                         arg=len(cells_json), timeout=60_000)
        except Exception:
            raise RuntimeError(f"the Lab shows {await cells.count()} cells of {EXERCISE_NOTEBOOK}'s {len(cells_json)}") from None
        starter, check = cells.nth(starter_at), cells.nth(check_at)
        started, ceiling = time.monotonic(), STARTS.ceiling()
        # its kernel's start, then `:dep` and `use` (the crate, built already)
        await kernel_start(lab, page, name, [cells.nth(first)], started + ceiling, ceiling, f"{EXERCISE_NOTEBOOK}'s kernel")
        out["imports_seconds"] = time.monotonic() - started
        print(f"  exercise {EXERCISE} ({EXERCISE_NOTEBOOK}): kernel started and imports ran in {out['imports_seconds']:.1f} s (ceiling {ceiling:.0f} s)", flush=True)
        steps = [("not-attempted", None, "Not attempted", None),
                 ("incorrect", EXERCISE_WRONG, "Incorrect", "first step"),
                 ("correct", EXERCISE_SOLVED, "Correct", None)]
        if short:
            steps = [step for step in steps if step[0] != "incorrect"]
        for k, (label, text, want, words) in enumerate(steps):
            if text is not None:
                await set_cell_text(page, starter, text)
            await run_cell(page, starter, rerun=k > 0)
            started = time.monotonic()
            await run_cell(page, check, rerun=k > 0)
            box = check.locator(".jp-OutputArea-output .zoo-outcome")
            await box.wait_for(state="visible", timeout=CELL_TIMEOUT * 1000)
            seconds = time.monotonic() - started
            verdict, said = await box.get_attribute("data-verdict"), await box.inner_text()
            shot = os.path.join(OUT, f"exercise-{label}.png")
            await screenshot_cells(page, starter, check, shot)
            out["checks"].append({"answer": label, "verdict": verdict, "expected": want, "seconds": seconds,
                                  "text": said, "screenshot": os.path.relpath(shot, ROOT)})
            if verdict != want:
                out["problems"].append(f"the {label} answer's check says {verdict!r}, not {want!r}: {said[:200]!r}")
            elif words and words not in said:
                out["problems"].append(f"the {label} answer's check does not say {words!r}: {said[:200]!r}")
            print(f"  exercise {EXERCISE}, {label.replace('-', ' ')} answer: {verdict!r} in {seconds:.1f} s from Shift+Enter"
                  + (f" (expected {want!r})" if verdict != want else ""), flush=True)
        if not short:
            # A hint in a new cell below the check, as its comment suggests.
            await check.locator(".jp-InputArea-editor").click()
            await page.keyboard.press("Escape")
            await page.keyboard.press("b")
            hint_cell = cells.nth(check_at + 1)
            await page.wait_for_function("(n) => document.querySelectorAll('.jp-Notebook .jp-Cell').length === n", arg=len(cells_json) + 1)
            await set_cell_text(page, hint_cell, f"{qn}.hint()")
            await run_cell(page, hint_cell)
            hint = hint_cell.locator(".jp-OutputArea-output .zoo-hint")
            await hint.wait_for(state="visible", timeout=CELL_TIMEOUT * 1000)
            out["hint"] = await hint.inner_text()
            await screenshot_cells(page, check, hint_cell, os.path.join(OUT, "exercise-hint.png"))
            if "last step" not in out["hint"]:
                out["problems"].append(f"{qn}.hint() shows {out['hint'][:200]!r}, not the first hint")
            print(f"  exercise {EXERCISE}: {qn}.hint() shows {out['hint'].splitlines()[0][:100]!r}", flush=True)
    except Exception:
        await page.screenshot(path=os.path.join(OUT, "exercise-failed.png"))
        raise
    finally:
        await page.close()  # unsaved: Playwright skips the page's "leave with unsaved changes?"
        for session in await lab.api("GET", "/api/sessions"):
            if session.get("path") == name:
                await lab.api("DELETE", f"/api/sessions/{session['id']}", allow=(404,))
        await lab.api("DELETE", f"/api/contents/{name}", allow=(404,))
        if not had_checkpoints and os.path.isdir(checkpoints) and not os.listdir(checkpoints):
            os.rmdir(checkpoints)
        if kept is None:
            if os.path.exists(progress):
                os.remove(progress)
        else:
            with open(progress, "wb") as f:
                f.write(kept)
    if out["problems"]:
        raise RuntimeError("the exercise in the Lab: " + "; ".join(out["problems"]))


async def set_cell_text(page, cell, text):
    """Replaces a cell's code as a student would, by selecting it all and typing (inserted whole, so
    that the editor's closing brackets do not double those typed), then reads it back."""
    await cell.locator(".cm-content").click()
    await page.keyboard.press("Control+a")
    await page.keyboard.insert_text(text)
    lines = [line.rstrip("\n") for line in await cell.locator(".cm-line").all_inner_texts()]
    if lines != text.split("\n"):
        raise RuntimeError(f"the cell reads {lines} after typing {text.splitlines()}")


async def screenshot_cells(page, first, last, path):
    """A screenshot from the top of one cell to the bottom of a later one, scrolled into view."""
    await first.evaluate("el => el.scrollIntoView({block: 'start'})")
    await page.wait_for_timeout(300)
    top, bottom = await first.bounding_box(), await last.bounding_box()
    await page.screenshot(path=path, clip={"x": top["x"], "y": top["y"], "width": max(top["width"], bottom["width"]),
                                           "height": bottom["y"] + bottom["height"] - top["y"]})


async def kernel_idle(lab, path, timeout=CELL_TIMEOUT):
    """Waits until the notebook's kernel is connected and idle (the Lab's status bar's "Idle")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for session in await lab.api("GET", "/api/sessions"):
            kernel = session.get("kernel") or {}
            if session.get("path") == path and kernel.get("execution_state") == "idle" and kernel.get("connections", 0) > 0:
                return
        await asyncio.sleep(0.25)
    raise TimeoutError(f"{path}: its kernel was not idle within {timeout} s")


async def run_cell(page, cell, want_output=False, timeout=CELL_TIMEOUT, rerun=False):
    """Shift+Enter on a cell, then waits until its prompt is a number again; with want_output, until
    it shows the tensor's table. With rerun (a cell run before on the same kernel), the number must
    be a new one: the old prompt shows a number until the run begins. Returns the output's text."""
    prompt = cell.locator(".jp-InputArea-prompt")
    before = await prompt.text_content() if rerun else None
    await cell.locator(".jp-InputArea-editor").click()
    await page.keyboard.press("Escape")
    await page.keyboard.press("Shift+Enter")
    await page.wait_for_function("([el, before]) => /\\[\\d+\\]/.test(el.textContent) && el.textContent !== before",
                                 arg=[await prompt.element_handle(), before], timeout=timeout * 1000)
    outputs = cell.locator(".jp-OutputArea-output")
    text = await outputs.all_inner_texts() if await outputs.count() else []
    joined = "\n".join(text)
    if re.search(r"^error|panicked at|cannot find", joined, re.M):
        raise RuntimeError(f"the cell failed: {joined[:300]}")
    if want_output and not await cell.locator(".jp-OutputArea-output table").count():
        raise RuntimeError(f"no table in the cell's output: {joined[:300]!r}")
    return joined


def course_copies_keep_work():
    """`make lab`'s copies (tools/lab.py): made once; replaced when the course notebook changes
    only if their code is untouched; kept, with a line saying so, when the student edited them."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import lab as lab_tool

    base = os.path.join(OUT, "copies")
    shutil.rmtree(base, ignore_errors=True)
    course, mine = os.path.join(base, "course"), os.path.join(base, "lab")
    os.makedirs(course)
    os.makedirs(mine)
    write = lambda path, cells: json.dump(notebook(cells), open(path, "w"))
    read = lambda path: [c["source"] for c in json.load(open(path))["cells"]]
    problems = []
    write(os.path.join(course, "a.ipynb"), ["let x = 1;"])
    write(os.path.join(course, "b.ipynb"), ["let y = 1;"])
    lab_tool.copy_course(course, mine)
    if read(os.path.join(mine, "a.ipynb")) != ["let x = 1;"]:
        problems.append("the first `make lab` did not copy the course notebooks")
    # The student runs a (outputs only) and edits b; then both course notebooks change.
    nb = json.load(open(os.path.join(mine, "a.ipynb")))
    nb["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran"}]
    json.dump(nb, open(os.path.join(mine, "a.ipynb"), "w"))
    write(os.path.join(mine, "b.ipynb"), ["let y = 2; // mine"])
    write(os.path.join(course, "a.ipynb"), ["let x = 10;"])
    write(os.path.join(course, "b.ipynb"), ["let y = 10;"])
    said = lab_tool.copy_course(course, mine)
    if read(os.path.join(mine, "a.ipynb")) != ["let x = 10;"]:
        problems.append("a copy without edits was not replaced by the new course notebook")
    if read(os.path.join(mine, "b.ipynb")) != ["let y = 2; // mine"]:
        problems.append("a copy with the student's edits was overwritten")
    if not any("b.ipynb" in line and "kept" in line for line in said):
        problems.append(f"no line said the edited copy was kept: {said}")
    shutil.rmtree(base, ignore_errors=True)
    return problems


def startup_failure_is_reported():
    """A start-up that fails (here a prelude.rs naming what does not exist, as a broken crate
    would) must leave a kernel that runs cells and says why as the first cell's error (that cell
    does not run; run again, it does)."""
    from jupyter_client.manager import KernelManager

    config = os.path.join(OUT, "broken-config")
    shutil.rmtree(config, ignore_errors=True)
    os.makedirs(config)
    spec_config = KernelManager(kernel_name="rust").kernel_spec.env["EVCXR_CONFIG_DIR"]
    shutil.copyfile(os.path.join(spec_config, "init.evcxr"), os.path.join(config, "init.evcxr"))
    with open(os.path.join(config, "prelude.rs"), "w") as f:
        f.write("let zoo_broken = attention_zoo::no_such_item;\n")
    km = KernelManager(kernel_name="rust")
    km.kernel_spec.env["EVCXR_CONFIG_DIR"] = config
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=300)
        first, again = [], []
        reply = kc.execute_interactive("1 + 1", timeout=120, output_hook=first.append)
        kc.execute_interactive("1 + 1", timeout=120, output_hook=again.append)
        error = " ".join(m["content"]["evalue"] for m in first if m["msg_type"] == "error")
        result = [m["content"]["data"].get("text/plain") for m in again if m["msg_type"] == "execute_result"]
        kc.stop_channels()
        problems = []
        if reply["content"]["status"] != "error" or not re.search(r"start-up \(.*\) failed", error) or "no_such_item" not in error:
            problems.append(f"the first cell was not an error saying why the start-up failed: {reply['content']['status']}, {error[:300]!r}")
        if result != ["2"]:
            problems.append(f"the kernel without its start-up gave {result} for 1 + 1 run again")
        return error.strip().splitlines()[0] if error.strip() else "", problems
    finally:
        km.shutdown_kernel(now=True)
        shutil.rmtree(config, ignore_errors=True)


async def main_async(args):
    os.makedirs(OUT, exist_ok=True)
    before, settings_before = git_state(), lab_settings()
    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "mode": "short" if args.short else "full",
              "failures": [], "ran": [], "skipped": []}
    print(f"lab-check ({report['mode']}): the first kernel start may take {FIRST_START} s (a cold one builds the dependencies); "
          f"later starts max({START_FLOOR} s, {START_FACTOR} x the fastest measured)", flush=True)
    phase = time.monotonic()
    probe = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "evcxr", "nudge_probe.py"), "100", str(FIRST_START)],
                           capture_output=True, text=True)
    said = [line for line in probe.stdout.splitlines() if line.startswith("nudge probe")]
    print("\n".join(said), flush=True)
    report["nudge_probe"] = said
    first = re.search(r"its rich output ([\d.]+) s after the start", probe.stdout)
    if first:
        STARTS.record("the nudge probe's kernel (the first start)", float(first.group(1)))
    if probe.returncode != 0:
        report["failures"].append("the nudge probe: " + (said[-1] if said else probe.stderr[-500:]))
    PHASES.add("nudge probe (the first kernel start)", time.monotonic() - phase)
    report["ran"].append("the nudge probe")
    problems = course_copies_keep_work()
    print("`make lab`'s copies: " + ("; ".join(problems) if problems else "made once, replaced only without the student's edits"), flush=True)
    report["failures"].extend("lab copies: " + p for p in problems)
    report["ran"].append("`make lab`'s copies")
    if args.short:
        report["skipped"].append("the failed start-up")
    else:
        phase = time.monotonic()
        first_line, problems = startup_failure_is_reported()
        print(f"failed start-up: the first cell says {first_line[:120]!r}" if not problems else "failed start-up: " + "; ".join(problems), flush=True)
        report["startup_failure"] = {"first_line": first_line, "problems": problems}
        report["failures"].extend("failed start-up: " + p for p in problems)
        PHASES.add("failed start-up", time.monotonic() - phase)
        report["ran"].append("the failed start-up")
    lab = Lab()
    print(f"lab-check: `make lab` on port {lab.port} (log: {os.path.relpath(lab.log_path, ROOT)})", flush=True)
    try:
        phase = time.monotonic()
        await lab.start()
        PHASES.add("`make lab` up", time.monotonic() - phase)
        reach = await lab.api("GET", "/api/contents/notebooks", allow=(404,))
        if reach != 404 and not str(LAB_DIR).endswith("notebooks"):
            report["failures"].append("the Lab serves the committed notebooks/ folder")
        if args.restarts:
            print(f"restarts through jupyter_server's REST API and websocket ({args.restarts}):", flush=True)
            phase = time.monotonic()
            report["ran"].append(f"the Lab's first kernel and {args.restarts} REST restarts")
            try:
                await restarts(lab, args.restarts, report)
            finally:
                PHASES.add(f"the Lab's first kernel and {args.restarts} REST restarts", time.monotonic() - phase)
        print("a training loop of one's own across cells, in every arrangement (tools/evcxr/tests/own_training_loop.ipynb):", flush=True)
        phase = time.monotonic()
        report["ran"].append("a training loop of one's own across cells, in 22 arrangements")
        try:
            await own_loop(lab, report)
        finally:
            PHASES.add("a training loop of one's own across cells", time.monotonic() - phase)
        if args.browser_restarts >= 0:
            print("JupyterLab in Chromium:", flush=True)
            report["ran"].append(f"the Lab in Chromium: a course notebook, {args.browser_restarts} Kernel > Restart, a second notebook, "
                                 f"the class cell, the explorer cell, the dark theme, exercise {EXERCISE} "
                                 + ("as committed and solved" if args.short else "as committed, wrong and solved, and its hint"))
            await browser(lab, args.browser_restarts, report, args.short)
        if args.short:
            report["skipped"].append(f"the full mode's 30 REST restarts and 3 Kernel > Restart (this run: {args.restarts} and {args.browser_restarts})")
            report["skipped"].append(f"exercise {EXERCISE}'s wrong answer and its hint")
    except Exception as e:
        report["failures"].append(f"{type(e).__name__}: {e}")
    finally:
        for path in glob.glob(os.path.join(LAB_DIR, PREFIX + "*")) + glob.glob(os.path.join(LAB_DIR, "*", PREFIX + "*")):
            os.remove(path)
        lab.stop()
        report["lab_settings"] = "as found"
        if lab_settings() != settings_before:
            restore_lab_settings(settings_before)
            report["lab_settings"] = "put back as found (the theme step saves the user's theme)"
            if lab_settings() != settings_before:
                report["lab_settings"] = "changed"
                report["failures"].append(f"the Lab's user settings ({lab_settings_dir()}) could not be put back as they were")
    report["kernel_starts"] = STARTS.measured
    report["phases_seconds"] = {k: round(v, 1) for k, v in PHASES.seconds.items()}
    slots = sorted(p for p in glob.glob(os.path.join(os.environ.get("ZOO_SLOTS", ""), "slot-*")) if os.path.isdir(p))
    if slots:
        report["slot_disk_bytes"] = slot_disk(slots)
    after = git_state()
    log = open(lab.log_path, errors="replace").read()
    report["lab_log"] = {"broken_pipe_lines": log.count("Broken pipe"), "kernel_died": len(re.findall(r"restarting kernel|KernelRestarter", log)),
                         "startup_failed": len(re.findall(r"start-up \(.*\) failed|warm-up failed", log))}
    if after[0] != before[0]:
        report["failures"].append(f"git status changed:\n{before[0]}--- after ---\n{after[0]}")
    if after[1] != before[1]:
        report["failures"].append("a committed notebook changed: " + ", ".join(k for k in after[1] if after[1][k] != before[1].get(k)))
    r = report.get("restarts")
    if r and r["broken"]:
        report["failures"].append(f"{r['broken']} of {r['count']} restarts broke the kernel")
    b = report.get("browser", {})
    broken = [x for x in b.get("restarts", []) if x["problems"]]
    if broken:
        report["failures"].append(f"{len(broken)} of {len(b['restarts'])} restarts in the browser broke the kernel")
    if b.get("second_to_first") and b["second_to_first"] > 1.5:
        report["failures"].append(f"the second notebook's first output took {b['second_to_first']:.2f}x the first's (1.5x allowed)")
    with open(os.path.join(OUT, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print_summary(report)
    return 1 if report["failures"] else 0


def print_summary(report):
    print(f"lab-check ({report['mode']}) ran: " + "; ".join(report["ran"]))
    if report["skipped"]:
        print("not in the short mode (`make lab-check` without SHORT=1 runs them): " + "; ".join(report["skipped"]))
    if report["kernel_starts"]:
        print("kernel starts, seconds to the first answer (load average then): "
              + ", ".join(f"{m['start']} {m['seconds']:.1f} ({m['load']})" for m in report["kernel_starts"]))
    print("time by part: " + ", ".join(f"{k} {v:.0f} s" for k, v in report["phases_seconds"].items()))
    r = report.get("restarts")
    if r:
        s = r["seconds"]
        print(f"restarts: {r['count'] - r['broken']} of {r['count']} gave the queued cell's output"
              + (f"; restart to first rich output {s['min']:.1f} / {s['median']:.1f} / {s['max']:.1f} s (min / median / max)" if s else "")
              + f"; {r.get('from_spare', 0)} of them from a warm spare")
    b = report.get("browser")
    if b and b.get("restarts") is not None:
        times = [x["seconds_to_first_output"] for x in b["restarts"] if x["seconds_to_first_output"]]
        s = summary(times)
        print(f"browser: {len(times)} of {len(b['restarts'])} restarts through the Kernel menu gave the cell's output"
              + (f" ({s['min']:.1f} / {s['median']:.1f} / {s['max']:.1f} s)" if s else "")
              + f", {sum(x.get('from_spare', False) for x in b['restarts'])} from the warm spare")
    e = (report.get("browser") or {}).get("exercise")
    if e and e.get("checks"):
        print(f"exercise {e['exercise']} in the Lab: " + ", ".join(f"{c['answer'].replace('-', ' ')} -> {c['verdict']!r} ({c['seconds']:.1f} s)"
                                                              for c in e["checks"]))
    if "slot_disk_bytes" in report:
        print("build folders' disk (each beyond those before it): " + ", ".join(f"{k} {v / 2**20:.0f} MiB" for k, v in report["slot_disk_bytes"].items()))
    print(f"Lab user settings: {report.get('lab_settings')}")
    print("Lab log: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in report["lab_log"].items()))
    for failure in report["failures"]:
        print("FAIL " + failure)
    print("lab-check: " + ("FAILED" if report["failures"] else "passed") + f" (report: {os.path.relpath(os.path.join(OUT, 'report.json'), ROOT)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true",
                        help="what CI runs: 5 restarts, 1 Kernel > Restart, no failed start-up, the exercise as committed and solved")
    parser.add_argument("--restarts", type=int, default=None, help="REST restarts (default 30, 5 with --short; or $RESTARTS)")
    parser.add_argument("--browser-restarts", type=int, default=None, help="Kernel > Restart in the Lab (default 3, 1 with --short; or $BROWSER_RESTARTS)")
    args = parser.parse_args()
    if args.restarts is None:
        args.restarts = int(os.environ.get("RESTARTS", "5" if args.short else "30"))
    if args.browser_restarts is None:
        args.browser_restarts = int(os.environ.get("BROWSER_RESTARTS", "1" if args.short else "3"))
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
