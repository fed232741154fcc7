#!/usr/bin/env python3
"""Starts JupyterLab for `make lab` on a folder of the student's, never on the committed notebooks.

    lab.py --dir DIR [--course NOTEBOOKS_DIR] [-- JUPYTER_LAB_ARGS...]

With --course (plain `make lab`), DIR is the clone's `lab/` folder (ignored by git): each course
notebook is copied there the first time, and the Lab opens there, so running, editing and saving
change the student's copies, not `notebooks/`. A copy is never overwritten with work in it: when a
course notebook changes upstream (a `git pull`), its copy is replaced only if its code cells are
still those of the version it was copied from (outputs do not count); otherwise it is kept and a
line says how to get the new version. The version each copy came from is kept in DIR/.course/.

Without --course (`make lab DIR=path`), DIR is any folder of the student's, created if missing and
served as it is: the kernel `rust` already has the crate (see the README), so a notebook there
needs no `:dep` line.

JupyterLab runs on 127.0.0.1, without a browser of its own and without its network features (the
update check and the news feed), which an offline machine would only wait for. Each notebook's
kernel keeps a warm spare kernel that Kernel > Restart hands over (tools/evcxr/spare.py;
ZOO_SPARE_KERNEL=0 turns it off).
"""
import filecmp
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_sources(path):
    """The code cells' sources of a notebook: what decides whether a copy holds work of its own."""
    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
        return [("".join(c["source"]) if isinstance(c["source"], list) else c["source"]).rstrip()
                for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def copy_course(course, folder, label="notebooks"):
    """Copies each course notebook into `folder` unless a copy is there; replaces a copy without work
    of its own when the course notebook changed. The exercise notebooks (notebooks/exercises/) go
    to `folder`/exercises/ the same way. Returns the lines to print."""
    said = []
    if os.path.isdir(os.path.join(course, "exercises")):
        said += copy_course(os.path.join(course, "exercises"), os.path.join(folder, "exercises"), label + "/exercises")
    originals = os.path.join(folder, ".course")
    os.makedirs(originals, exist_ok=True)
    for name in sorted(os.listdir(course)):
        if not name.endswith(".ipynb"):
            continue
        source, copy, original = (os.path.join(course, name), os.path.join(folder, name), os.path.join(originals, name))
        if not os.path.exists(copy):
            shutil.copyfile(source, copy)
            shutil.copyfile(source, original)
            said.append(f"lab.py: copied {label}/{name} to {os.path.relpath(copy, ROOT)}")
        elif not (os.path.exists(original) and filecmp.cmp(source, original, shallow=False)):
            mine, theirs = code_sources(copy), code_sources(original)
            if mine is not None and mine == theirs:
                shutil.copyfile(source, copy)
                shutil.copyfile(source, original)
                said.append(f"lab.py: {label}/{name} changed; {os.path.relpath(copy, ROOT)} had no edits of yours and now is the new version")
            else:
                said.append(f"lab.py: {label}/{name} changed since {os.path.relpath(copy, ROOT)} was copied; your copy, which has edits, is kept "
                            f"(rename or delete it and run `make lab` again for the new version)")
    return said


def quiet_lab_settings():
    """JupyterLab asks on its first start whether to fetch Jupyter's news from the internet; the
    Lab's user settings (in the clone's .jupyter/, ignored by git) answer no, unless the student
    has settings of their own there."""
    config = os.environ.get("JUPYTER_CONFIG_DIR")
    if not config:
        return
    path = os.path.join(config, "lab", "user-settings", "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump({"fetchNews": "false", "checkForUpdates": False}, f)


def main(argv):
    args, lab_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    folder, course = None, None
    while args:
        flag = args.pop(0)
        if flag == "--dir" and args:
            folder = os.path.abspath(os.path.expanduser(args.pop(0)))
        elif flag == "--course" and args:
            course = os.path.abspath(args.pop(0))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if folder is None:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(folder, exist_ok=True)
    if course:
        for line in copy_course(course, folder):
            print(line, flush=True)
    quiet_lab_settings()
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    command = [jupyter, "lab", "--ip", "127.0.0.1", "--no-browser", "--ServerApp.root_dir", folder,
               "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               # A warm spare kernel for each notebook, handed over at Kernel > Restart (tools/evcxr/spare.py).
               "--MappingKernelManager.kernel_manager_class=spare.SpareKernelManager"]
    evcxr_tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evcxr")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (evcxr_tools, os.environ.get("PYTHONPATH")) if p)
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    print(f"lab.py: JupyterLab on {folder}", flush=True)
    os.execv(jupyter, command + lab_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
