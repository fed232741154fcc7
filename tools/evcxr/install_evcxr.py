#!/usr/bin/env python3
"""Builds evcxr_jupyter from its crates.io source with the project's patches, and installs it.

    install_evcxr.py VERSION SHA256 ROOT [PATCH ...]

Downloads evcxr_jupyter-VERSION.crate from crates.io (the file cargo itself would fetch, checked
against SHA256, the checksum crates.io's index gives for it) and the evcxr crate it depends on (the
version and checksum its Cargo.lock records), unpacks both side by side under ROOT/src, applies
each PATCH in order (tools/evcxr/patches/*.patch: see tools/evcxr/README.md for what each changes
and why; their paths start with the crates' folders), and runs `cargo install --locked --path` on
evcxr_jupyter into ROOT, with the Cargo.lock the crate was published with as the patches leave it.
Without a PATCH it builds evcxr_jupyter as published (for comparisons; it then takes evcxr from
crates.io as published too). Nothing is written outside ROOT but cargo's own download cache.
"""
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request

URL = "https://static.crates.io/crates/{name}/{name}-{version}.crate"


def fail(message):
    sys.exit(f"install_evcxr: {message}")


def download(name, version, sha256):
    url = URL.format(name=name, version=version)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as e:
        fail(f"could not download {url}: {e}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        fail(f"{url} has SHA-256 {digest}, not the {sha256} crates.io lists for it")
    return data


def unpack(data, name, version, src_root):
    folder = os.path.join(src_root, f"{name}-{version}")
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(src_root, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.name.startswith(f"{name}-{version}/") or ".." in member.name.split("/"):
                fail(f"unexpected path in the crate {name}: {member.name}")
        tar.extractall(src_root, filter="data")
    return folder


def locked(lock_file, name):
    """The version and checksum of package `name` in a Cargo.lock."""
    text = open(lock_file, encoding="utf-8").read()
    m = re.search(r'\[\[package\]\]\nname = "%s"\nversion = "([^"]+)"\nsource = "registry\+[^"]+"\nchecksum = "([0-9a-f]{64})"' % re.escape(name), text)
    if not m:
        fail(f"{lock_file} does not pin {name} from crates.io with a checksum")
    return m.group(1), m.group(2)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    version, sha256, root, patches = argv[0], argv[1], os.path.abspath(argv[2]), [os.path.abspath(p) for p in argv[3:]]
    src_root = os.path.join(root, "src")
    jupyter = unpack(download("evcxr_jupyter", version, sha256), "evcxr_jupyter", version, src_root)
    if patches:
        evcxr_version, evcxr_sha = locked(os.path.join(jupyter, "Cargo.lock"), "evcxr")
        unpack(download("evcxr", evcxr_version, evcxr_sha), "evcxr", evcxr_version, src_root)
    # `git apply` works outside a repository as a strict `patch -p1`: every hunk must apply.
    # GIT_CEILING_DIRECTORIES keeps git from taking a repository above ROOT for this folder's.
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=root)
    for patch in patches:
        applied = subprocess.run(["git", "apply", "--verbose", patch], cwd=src_root, env=env, capture_output=True, text=True)
        if applied.returncode != 0:
            fail(f"{os.path.basename(patch)} does not apply to evcxr_jupyter {version}:\n{applied.stderr}")
    # Patch 08 turns off tokio's LIFO slot, a setting tokio keeps behind `--cfg tokio_unstable`.
    # The flag changes nothing else, and is added to the caller's own flags if there are any.
    build_env = dict(os.environ, RUSTFLAGS=" ".join(filter(None, [os.environ.get("RUSTFLAGS"), "--cfg tokio_unstable"])))
    subprocess.run(["cargo", "install", "--locked", "--force", "--path", jupyter, "--root", root], check=True, env=build_env)
    shutil.rmtree(src_root)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
