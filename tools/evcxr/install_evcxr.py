#!/usr/bin/env python3
"""Builds evcxr_jupyter from its crates.io source with the project's patch, and installs it.

    install_evcxr.py VERSION SHA256 PATCH ROOT

Downloads evcxr_jupyter-VERSION.crate from crates.io (the file cargo itself would fetch, checked
against SHA256, the checksum crates.io's index gives for it), unpacks it under ROOT/src, applies
PATCH (tools/evcxr/evcxr_jupyter.patch: see tools/evcxr/README.md for what it changes and why) and
runs `cargo install --locked --path` on it into ROOT, with the Cargo.lock the crate was published
with. Nothing is written outside ROOT but cargo's own download cache.
"""
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.request

URL = "https://static.crates.io/crates/evcxr_jupyter/evcxr_jupyter-{version}.crate"


def fail(message):
    sys.exit(f"install_evcxr: {message}")


def download(version, sha256):
    url = URL.format(version=version)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as e:
        fail(f"could not download {url}: {e}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        fail(f"{url} has SHA-256 {digest}, not the {sha256} crates.io lists for it")
    return data


def unpack(data, version, src_root):
    folder = os.path.join(src_root, f"evcxr_jupyter-{version}")
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(src_root, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.name.startswith(f"evcxr_jupyter-{version}/") or ".." in member.name.split("/"):
                fail(f"unexpected path in the crate: {member.name}")
        tar.extractall(src_root, filter="data")
    return folder


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    version, sha256, patch, root = argv
    patch = os.path.abspath(patch)
    root = os.path.abspath(root)
    folder = unpack(download(version, sha256), version, os.path.join(root, "src"))
    # `git apply` works outside a repository as a strict `patch -p1`: every hunk must apply.
    # GIT_CEILING_DIRECTORIES keeps git from taking a repository above ROOT for this folder's.
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(folder))
    applied = subprocess.run(["git", "apply", "--verbose", patch], cwd=folder, env=env, capture_output=True, text=True)
    if applied.returncode != 0:
        fail(f"{os.path.basename(patch)} does not apply to evcxr_jupyter {version}:\n{applied.stderr}")
    subprocess.run(["cargo", "install", "--locked", "--force", "--path", folder, "--root", root], check=True)
    shutil.rmtree(os.path.join(root, "src"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
