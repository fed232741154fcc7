"""A PostgreSQL server of our own for a gradebook that several graders share (make grade-check).

    with server(folder) as url:   # postgresql+psycopg2://zoo@/gradebook?host=FOLDER
        ...

`initdb` a cluster in `folder`, started by `pg_ctl` on a Unix socket in that folder only (no TCP
port), trusting local connections of the role `zoo`, with a database `gradebook`; stopped and the
folder removed on leaving. PostgreSQL refuses to run as root, so as root the server runs as the user
`postgres` (Debian's package makes it), which then owns `folder`. Needs PostgreSQL's binaries
(`apt-get install postgresql`: the Make target installs them where missing), found on the PATH
or under /usr/lib/postgresql/*/bin, and psycopg2 for nbgrader's SQLAlchemy (requirements.txt).
"""
import contextlib
import glob
import os
import shutil
import subprocess

ROLE, DATABASE = "zoo", "gradebook"


def binary(name):
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise RuntimeError(f"PostgreSQL's `{name}` is not installed (apt-get install postgresql)")
    return found


def as_server_user(cmd):
    """`cmd` run as the user `postgres` when we are root, else as ourselves."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@contextlib.contextmanager
def server(folder):
    folder = os.path.abspath(folder)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data = os.path.join(folder, "data")
    run = lambda cmd: subprocess.run(as_server_user(cmd), check=True, capture_output=True, text=True)
    run([binary("initdb"), "-D", data, "-U", ROLE, "-A", "trust", "--no-sync"])
    run([binary("pg_ctl"), "-D", data, "-l", os.path.join(folder, "server.log"), "-w",
         "-o", f"-c listen_addresses='' -k {folder} -c fsync=off", "start"])
    try:
        run([binary("createdb"), "-h", folder, "-U", ROLE, DATABASE])
        yield f"postgresql+psycopg2://{ROLE}@/{DATABASE}?host={folder}"
    finally:
        subprocess.run(as_server_user([binary("pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
