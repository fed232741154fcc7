#!/usr/bin/env python3
"""Autograding with each submission's kernel contained: nbgrader's Execute step in a sandbox.

A submission is Rust that runs as native code. nbgrader_config.py puts `SandboxedExecute` in
the place of nbgrader's `Execute`; for each submission it runs, one after another:

- an **executor** (this file's `execute`, trusted: nbgrader's own Execute preprocessor, nbclient)
  in namespaces of its own made by util-linux `unshare`: a network namespace with only a loopback
  (the kernel's sockets work; nothing else is reachable), and a mount namespace in which it mounts
  a tmpfs (the submission's writable space, its size capped) and, over the grading build, an
  overlay whose writes land on that tmpfs. It writes the executed notebook where the kernel
  cannot see it.
- the **kernel** (this file's `kernel`, the kernel `rust` wrapped): it joins the submission's
  cgroups (memory and process count), then runs in bubblewrap: new pid, ipc and uts namespaces,
  no capabilities, a new session; read-only binds of the system, the toolchain, Python and the
  crate; writable only the copy of the submission's folder, its home and the overlay; a tmpfs
  `/tmp`; not bound, so neither readable nor writable: the course folder (other submissions, the
  gradebook), the other kernels' build folders, everything else under `/root`.

Limits: a cell (nbgrader's `Execute.timeout`), a notebook (`ZOO_GRADE_NOTEBOOK_TIMEOUT`, seconds:
the executor and everything in the cgroups killed, the cells not run score 0), memory
(`ZOO_GRADE_MEMORY`, GiB: the cgroup's limit, page cache and the tmpfs included), processes and
threads (`ZOO_GRADE_PIDS`), writable space (`ZOO_GRADE_DISK`, GiB of tmpfs).

`ZOO_GRADE_KEEP=1` keeps each submission's scratch folder (its settings and notebooks) to debug.

Without bubblewrap, namespaces or writable cgroups (a container that forbids them), grading
refuses to start, naming what is missing, unless `ZOO_GRADE_UNPROTECTED=1`: then nbgrader's own
Execute runs the kernel with the grader's rights, as nbgrader does by default.

    python sandbox.py check                       what protection this machine allows
    python sandbox.py prepare                     the grading build (trusted, once per crate change)
    python sandbox.py execute SETTINGS            (the executor; run by SandboxedExecute)
    python sandbox.py kernel SETTINGS -- ARGV...  (the kernel's wrapper; run by the executor)
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GiB = 1 << 30


def limits():
    env = os.environ
    return {
        "memory": int(float(env.get("ZOO_GRADE_MEMORY", "6")) * GiB),
        "pids": int(env.get("ZOO_GRADE_PIDS", "512")),
        "disk": int(float(env.get("ZOO_GRADE_DISK", "4")) * GiB),
        "notebook": float(env.get("ZOO_GRADE_NOTEBOOK_TIMEOUT", "1800")),
    }


def unprotected_allowed():
    return os.environ.get("ZOO_GRADE_UNPROTECTED") == "1"


# ---------------------------------------------------------------------------------------------
# cgroups: a memory and a pids group for one submission (v1 hierarchies or the v2 unified one)


def own_cgroups():
    """{controller: path of this process's group} from /proc/self/cgroup."""
    found = {}
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            found[c] = path
    return found


class Cgroups:
    """The submission's groups: `memory` (its limit, swap included where the kernel counts it)
    and `pids` (processes and threads). `procs` are the files a process joins them through."""

    def __init__(self, name, memory, pids):
        self.dirs, self.procs = [], []
        own = own_cgroups()
        v1 = os.path.isdir("/sys/fs/cgroup/memory") and os.path.isdir("/sys/fs/cgroup/pids")
        try:
            if v1:
                for controller, settings in (("memory", {"memory.limit_in_bytes": memory, "memory.memsw.limit_in_bytes": memory}),
                                             ("pids", {"pids.max": pids})):
                    self._make(os.path.join("/sys/fs/cgroup", controller, own.get(controller, "/").lstrip("/"), name), settings)
            else:
                base = os.path.join("/sys/fs/cgroup", own.get("", "/").lstrip("/"))
                self._make(os.path.join(base, name), {"memory.max": memory, "memory.swap.max": 0, "pids.max": pids})
        except OSError:
            self.close()  # the groups made before the one that failed
            raise

    def _make(self, path, settings):
        os.mkdir(path)
        self.dirs.append(path)
        for key, value in settings.items():
            file = os.path.join(path, key)
            if os.path.exists(file):
                with open(file, "w") as f:
                    f.write(str(value))
            elif key in ("memory.limit_in_bytes", "pids.max", "memory.max"):
                raise OSError(f"{file} does not exist: the controller is not available here")
        self.procs.append(os.path.join(path, "cgroup.procs"))

    def members(self):
        pids = set()
        for procs in self.procs:
            try:
                pids.update(int(p) for p in open(procs).read().split())
            except OSError:
                pass
        return pids

    def close(self):
        """Kills everything left in the groups, then removes them."""
        for _ in range(100):
            left = self.members()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        for d in reversed(self.dirs):
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# what the machine allows


def check():
    """The protections this machine cannot give (an empty list when all of them work)."""
    problems = []
    for tool in ("bwrap", "unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            problems.append(f"`{tool}` is not installed (bubblewrap; util-linux; iproute2)")
    if problems:
        return problems
    probe = tempfile.mkdtemp(prefix="zoo-grade-probe-")
    try:
        script = (f"ip link set lo up && mount -t tmpfs -o size=1m tmpfs {probe} && "
                  f"bwrap --ro-bind / / --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --cap-drop ALL "
                  f"--proc /proc --dev /dev -- true")
        run = subprocess.run(["unshare", "--mount", "--net", "--propagation", "private", "--", "sh", "-c", script],
                             capture_output=True, text=True)
        if run.returncode:
            problems.append(f"namespaces: unshare or bubblewrap failed here: {run.stderr.strip()[-300:]}")
    finally:
        os.rmdir(probe)
    try:
        Cgroups(f"zoo-grade-probe-{uuid.uuid4().hex[:8]}", 64 << 20, 16).close()
    except OSError as e:
        problems.append(f"cgroups: cannot make a memory and a pids group ({e})")
    return problems


# ---------------------------------------------------------------------------------------------
# the grading build: one build folder the kernels start from, each under an overlay of its own


def kernel_spec():
    """The registered kernel `rust` (its kernel.json, as a dict)."""
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec("rust")
    return spec.to_dict()


def grading_slots(spec):
    """The build slots the graded kernels start from: beside the kernel's own (argv[2] of the
    launcher), one folder per clone."""
    slots = spec["argv"][2]
    return os.path.join(os.path.dirname(os.path.dirname(slots)), "grade", os.path.basename(slots))


def prepare():
    """Brings the grading build up to date: its slot is seeded from the kernel's newest build
    folder, then a cell of our own runs in the sandbox with the build writable (the same
    environment as a graded kernel's, so that cargo finds everything fresh there)."""
    import nbformat
    sys.path.insert(0, os.path.join(ROOT, "tools", "evcxr"))
    import launch
    spec = kernel_spec()
    slots = grading_slots(spec)
    folder = os.path.join(slots, "slot-0")
    os.makedirs(folder, exist_ok=True)
    if launch.seed(folder, spec["argv"][2]):
        unlink_shared(folder)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("show(&Tensor::new(&[[1f32, 2.]], &Device::Cpu)?)")])
    nb.metadata["kernelspec"] = {"name": "rust", "display_name": "Rust", "language": "rust"}
    traits = {"timeout": 900, "startup_timeout": 900, "kernel_name": "rust", "allow_errors": True}
    with tempfile.TemporaryDirectory(prefix="zoo-grade-prepare-") as empty:
        nb, why = run_in_sandbox(nb, empty, traits, seed=True)
    outputs = nb.cells[0].outputs
    if why or not outputs or any(o.get("output_type") == "error" for o in outputs):
        raise SystemExit(f"sandbox: the grading build's cell failed: {why or outputs}")
    return slots


def unlink_shared(folder):
    """Gives every file of `folder` that is hard-linked elsewhere (launch.seed links a seeded
    slot's dependencies to its source's) a copy of its own: cargo rewrites a crate's fingerprint
    in place, and the graded kernels' environment differs from the Lab's in what some build
    scripts read, so a shared file would make each side rebuild the other's crates."""
    for base, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(base, name)
            if not os.path.islink(path) and os.stat(path).st_nlink > 1:
                shutil.copy2(path, path + ".copy")
                os.replace(path + ".copy", path)


def write_spec(data_dir, spec):
    folder = os.path.join(data_dir, "kernels", "rust")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "kernel.json"), "w") as f:
        json.dump(spec, f, indent=1)


# ---------------------------------------------------------------------------------------------
# the executor, inside its own mount and network namespaces


def execute(settings_path):
    s = json.load(open(settings_path))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    mem = s["mem"]
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={s['limits']['disk']},mode=0755", "tmpfs", mem], check=True)
    for name in ("work", "home", "runtime", "upper", "overlay-work", "data"):
        os.makedirs(os.path.join(mem, name))
    work = os.path.join(mem, "work")
    for name in os.listdir(s["submission"]):
        src = os.path.join(s["submission"], name)
        (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, os.path.join(work, name))
    slots = s["slots"]
    if not s["seed"]:
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={slots},upperdir={mem}/upper,workdir={mem}/overlay-work", slots], check=True)
    spec = s["spec"]
    wrapped = [sys.executable, os.path.abspath(__file__), "kernel", settings_path, "--",
               *spec["argv"][:2], slots, *spec["argv"][3:]]
    write_spec(os.path.join(mem, "data"), dict(spec, argv=wrapped))
    os.environ["JUPYTER_PATH"] = os.path.join(mem, "data")
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(mem, "runtime")

    import nbformat
    from nbgrader.preprocessors import Execute

    class Saving(Execute):
        """nbgrader's Execute, keeping the notebook as executed so far (for a notebook timeout)."""

        def on_cell_executed(self, **kwargs):
            super().on_cell_executed(**kwargs)
            save(self.nb, s["partial"])

    nb = nbformat.read(s["notebook"], as_version=4)
    executor = Saving(**s["traits"])
    try:
        nb, _ = executor.preprocess(nb, {"metadata": {"path": work}})
    except Exception as e:  # the kernel died, or never started: the cells not run score 0
        with open(s["why"], "w") as f:
            f.write(f"the run stopped: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
        raise
    save(nb, s["out"])


def save(nb, path):
    import nbformat
    tmp = path + ".tmp"
    nbformat.write(nb, tmp)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# the kernel's wrapper: cgroups, then bubblewrap

# What the kernel reads of /etc (not the rest: host keys, passwords, the grader's settings):
# users and groups, name resolution's files, the dynamic linker's cache, the alternatives that
# /usr/bin/cc and the linker go through.
ETC = ("/etc/passwd", "/etc/group", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf",
       "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime", "/etc/ssl")


def kernel(settings_path, argv):
    s = json.load(open(settings_path))
    for procs in s["cgroup_procs"]:
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    mem, spec_env = s["mem"], s["spec"].get("env", {})
    home = os.path.join(mem, "home")
    # /proc/sys and /proc/sysrq-trigger read-only: root without capabilities may still write a
    # sysctl such as kernel.core_pattern (a program the host runs as root), and bubblewrap run by
    # root does not cover them here (tried: it covered only /proc/irq and /proc/bus)
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--cap-drop", "ALL", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    if os.path.exists("/proc/sysrq-trigger"):
        args += ["--ro-bind", "/dev/null", "/proc/sysrq-trigger"]
    args += ["--dev", "/dev", "--tmpfs", "/tmp"]
    for path in ("/usr", "/opt", *ETC):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    for path in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in s["read_only"]:
        args += ["--ro-bind", path, path]
    for path in s["hidden"]:
        args += ["--tmpfs", path, "--remount-ro", path]
    for path in s["secrets"]:
        args += ["--ro-bind", "/dev/null", path]
    for path in (os.path.join(mem, "work"), home, s["slots"]):
        args += ["--bind", path, path]
    args += ["--ro-bind", os.path.join(mem, "runtime"), os.path.join(mem, "runtime")]
    # the connection file (nbclient writes it to the grader's /tmp), read-only
    for arg in argv:
        if arg.endswith(".json") and os.path.isfile(arg):
            args += ["--ro-bind", arg, arg]
    env = {
        "PATH": spec_env.get("PATH", os.environ.get("PATH", "")),
        "HOME": home,
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "CARGO_HOME": s["cargo_home"],
        "RUSTUP_HOME": s["rustup_home"],
        "CARGO_NET_OFFLINE": "true",
        "LANG": "C.UTF-8",
    }
    for key in ("EVCXR_CONFIG_DIR", "RAYON_NUM_THREADS", "RUST_LIB_BACKTRACE"):
        if key in spec_env:
            env[key] = spec_env[key]
    # the sandbox's own root (where bubblewrap made the mount points) read-only too
    args += ["--remount-ro", "/", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--chdir", os.path.join(mem, "work"), "--"]
    os.execvp("bwrap", args + argv)


# ---------------------------------------------------------------------------------------------
# nbgrader's side


def read_only_paths(spec):
    """What the kernel reads: Python's installation and the launcher's environment, the
    toolchain, the crate's clone, the evcxr binary and linker folders on the kernel's PATH."""
    paths = {ROOT, sys.base_prefix, os.path.realpath(os.path.dirname(os.path.dirname(spec["argv"][3])))}
    paths.add(os.path.realpath(sys.base_prefix))
    paths.add(os.path.dirname(os.path.dirname(os.path.realpath(spec["argv"][0]))))
    for name in ("CARGO_HOME", "RUSTUP_HOME"):
        paths.add(toolchain_home(name))
    for entry in spec.get("env", {}).get("PATH", "").split(os.pathsep):
        if entry.startswith(os.path.expanduser("~")) and os.path.isdir(entry):
            paths.add(os.path.realpath(entry))
    paths = {p for p in paths if os.path.isdir(p) and not p.startswith(("/usr", "/etc", "/opt"))}
    # a folder inside another is bound with it
    return sorted(p for p in paths if not any(p != q and p.startswith(q + os.sep) for q in paths))


def toolchain_home(name):
    default = {"CARGO_HOME": "~/.cargo", "RUSTUP_HOME": "~/.rustup"}[name]
    return os.path.realpath(os.path.expanduser(os.environ.get(name, default)))


try:
    from nbgrader.preprocessors import Execute
except ImportError:  # `check` and `kernel` run without nbgrader
    Execute = object


class SandboxedExecute(Execute):
    """nbgrader's Execute, with the submission's kernel in a sandbox (this file's docstring)."""

    checked = None

    def preprocess(self, nb, resources):
        if SandboxedExecute.checked is None:
            SandboxedExecute.checked = check()
        if SandboxedExecute.checked:
            said = "; ".join(SandboxedExecute.checked)
            if not unprotected_allowed():
                raise RuntimeError(f"grading refuses to run a submission without protection: {said}. "
                                   "Set ZOO_GRADE_UNPROTECTED=1 to grade with the grader's rights anyway.")
            self.log.warning("grading WITHOUT protection (ZOO_GRADE_UNPROTECTED=1): %s", said)
            nb, resources = super().preprocess(nb, resources)
        else:
            nb, resources = run_sandboxed(self, nb, resources)
        return no_result_as_error(nb), resources


TRAITS = ("timeout", "startup_timeout", "interrupt_on_timeout", "allow_errors", "raise_on_iopub_timeout",
          "error_on_timeout", "kernel_name", "iopub_timeout")


def run_sandboxed(pre, nb, resources):
    traits = {k: getattr(pre, k) for k in TRAITS}
    folder = resources["metadata"]["path"]
    nb, why = run_in_sandbox(nb, folder, traits)
    if why:
        pre.log.warning("%s: %s", folder, why)
    return nb, resources


def run_in_sandbox(nb, folder, traits, seed=False):
    """`nb` executed in the sandbox, with a copy of `folder` as its working folder; and, where
    the run did not end normally, why (the cells it never reached then carry an error). With
    `seed`, the grading build itself is writable (no overlay): `prepare`'s trusted run."""
    import nbformat
    spec = kernel_spec()
    lim = limits()
    scratch = tempfile.mkdtemp(prefix="zoo-grade-")
    cgroups = None
    try:
        os.makedirs(os.path.join(scratch, "mem"))
        settings = {
            "mem": os.path.join(scratch, "mem"),
            "submission": folder,
            "notebook": os.path.join(scratch, "in.ipynb"),
            "out": os.path.join(scratch, "out.ipynb"),
            "partial": os.path.join(scratch, "partial.ipynb"),
            "why": os.path.join(scratch, "why.txt"),
            "slots": grading_slots(spec),
            "seed": seed,
            "spec": spec,
            "limits": lim,
            "read_only": read_only_paths(spec),
            "hidden": [p for p in os.environ.get("ZOO_GRADE_HIDE", "").split(os.pathsep) if p],
            "cargo_home": toolchain_home("CARGO_HOME"),
            "rustup_home": toolchain_home("RUSTUP_HOME"),
            # files inside what the kernel reads that it must not: cargo's registry tokens
            "secrets": [p for p in (os.path.join(toolchain_home("CARGO_HOME"), n) for n in ("credentials", "credentials.toml"))
                        if os.path.isfile(p)],
            "traits": traits,
        }
        settings["hidden"] += hidden_paths(folder, settings["read_only"])
        nbformat.write(nb, settings["notebook"])
        cgroups = Cgroups(os.path.basename(scratch), lim["memory"], lim["pids"])
        settings["cgroup_procs"] = cgroups.procs
        path = os.path.join(scratch, "settings.json")
        with open(path, "w") as f:
            json.dump(settings, f)
        cmd = ["unshare", "--mount", "--net", "--propagation", "private", "--",
               sys.executable, os.path.abspath(__file__), "execute", path]
        proc = subprocess.Popen(cmd, start_new_session=True)
        try:
            rc = proc.wait(timeout=lim["notebook"])
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
        cgroups.close()
        if rc == 0 and os.path.exists(settings["out"]):
            return nbformat.read(settings["out"], as_version=4), None
        done = nbformat.read(settings["partial"], as_version=4) if os.path.exists(settings["partial"]) else nb
        if rc is None:
            why = f"the notebook ran longer than its limit ({lim['notebook']:.0f} s)"
        elif os.path.exists(settings["why"]):
            why = open(settings["why"]).read()
        else:
            why = f"the sandboxed run ended with exit {rc}"
        return not_run_as_errors(done, why), why
    finally:
        if cgroups is not None:
            cgroups.close()
        if os.environ.get("ZOO_GRADE_KEEP") != "1":  # keeps the scratch folder, to debug the sandbox
            shutil.rmtree(scratch, ignore_errors=True)


def hidden_paths(folder, read_only):
    """The course folder, where it lies inside a folder the kernel reads (the crate's clone): the
    folder above the submission's `submitted/STUDENT/ASSIGNMENT`."""
    course = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(folder))))
    hidden = [course]
    return [h for h in hidden if any(h == r or h.startswith(r + os.sep) for r in read_only)]


def no_result_as_error(nb):
    """`nb` with an error output in each graded test cell that has neither a result nor an error.
    nbgrader gives such a cell full points, and the grading form of a check always ends in one of
    the two: a cell with neither lost its output to the submission (its stdout closed, its
    process ended from inside an answer), so it scores 0."""
    from nbformat import NotebookNode
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        kinds = {o.get("output_type") for o in cell.get("outputs", [])}
        if not kinds & {"execute_result", "error"}:
            why = "the check gave no result (its output was lost: a submission cannot pass by silencing it)"
            cell.outputs.append(NotebookNode(output_type="error", ename="NoResult", evalue=why, traceback=[why]))
    return nb


def not_run_as_errors(nb, why):
    """`nb` with an error output in each code cell a killed run never reached (no execution
    count): nbgrader scores them 0."""
    from nbformat import NotebookNode
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("execution_count") is None:
            cell.outputs = [NotebookNode(output_type="error", ename="NotebookLimit", evalue=why, traceback=[why])]
    return nb


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "check":
        found = check()
        print("\n".join(found) if found else "sandbox: bubblewrap, namespaces and cgroups all work here")
        sys.exit(1 if found else 0)
    elif cmd == "prepare":
        print(f"sandbox: grading build ready in {prepare()}")
    elif cmd == "execute":
        execute(sys.argv[2])
    elif cmd == "kernel":
        kernel(sys.argv[2], sys.argv[sys.argv.index("--") + 1:])
    else:
        raise SystemExit(__doc__)
