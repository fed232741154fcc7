"""Warm spare kernels for `make lab`: a kernel `rust` already started, handed over when a notebook's
kernel starts or restarts, so that the start-up (the crate linked, rust-analyzer's names resolved:
about 10 s on 2 cores) is already done when the student's first cell runs.

`make lab` runs JupyterLab with `--MappingKernelManager.kernel_manager_class=spare.SpareKernelManager`
(tools/lab.py puts this folder on PYTHONPATH). For the kernel `rust`, that kernel manager launches
through a `SpareProvisioner`: jupyter_client's local provisioner, plus a pool of one spare kernel
per folder that notebooks run in (a kernel's folder is the one setting a spare cannot change once
started). SPARE_DELAY seconds after a kernel starts in a folder (so that the spare's start-up does
not compete with the new kernel's), a spare is started there, with a connection file and ports of
its own. The next start in that folder (a restart, or a new notebook beside the first) takes it:
`launch_kernel` returns the spare's process and connection information instead of starting one,
and jupyter_client and jupyter_server move to its ports, as they do for any provisioner whose
kernel's ports change. A restart takes only a spare made with its own kernel's key (a new kernel
adopts the spare's key, a running connection could not), and stops one made with another key, so
that the next spare is made with its own. Without a live spare, a plain start.
Spares are stopped with the server.

The cost, measured on 2 cores (tools/evcxr/README.md): one more evcxr process per folder in use
(about 1.1 GB resident: rust-analyzer with the crate graph loaded), one more build slot, and one
start-up's CPU (about 10 s of one core) after each start. `ZOO_SPARE_KERNEL=0` in the environment
of `make lab` turns spares off. Kernels started outside `make lab` (nbconvert, nbclient,
`make notebooks`, another Jupyter) never have one.
"""
import asyncio
import atexit
import json
import os
import socket
import uuid

from jupyter_client.launcher import launch_kernel
from jupyter_client.provisioning import LocalProvisioner
from jupyter_server.services.kernels.kernelmanager import ServerKernelManager

SPARE_DELAY = float(os.environ.get("ZOO_SPARE_DELAY", "20"))
PORT_NAMES = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def enabled():
    return os.environ.get("ZOO_SPARE_KERNEL", "1") != "0"


def free_ports(ip, count):
    """`count` ports free on `ip` now (each held until all are chosen, so they differ)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind((ip, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Spare:
    """A started kernel process, its connection information and its connection file."""

    def __init__(self, process, info, path):
        self.process, self.info, self.path = process, info, path

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.kill()
            self.process.wait()
        if os.path.exists(self.path):
            os.remove(self.path)


class Pool:
    """One spare at most per folder, and the folders whose spare is being started."""

    spares = {}
    pending = set()

    @classmethod
    def take(cls, folder, key=None, log=None):
        """The folder's live spare (made with `key`, when given), removed from the pool, or None.
        A spare made with another key is stopped: it was made for a kernel that has gone since
        (a notebook closed within SPARE_DELAY of its start), and kept, it would hold the folder's
        one place while every restart here started cold."""
        spare = cls.spares.get(folder)
        if spare is None or not spare.alive():
            cls.spares.pop(folder, None)
            return None
        if key is not None and spare.info["key"] != key:
            cls.spares.pop(folder).stop()
            if log:
                log("zoo spare: stopped (process %s), made with another kernel's key", spare.process.pid)
            return None
        return cls.spares.pop(folder)

    @classmethod
    def stop_all(cls):
        for spare in cls.spares.values():
            spare.stop()
        cls.spares.clear()


atexit.register(Pool.stop_all)


class SpareProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, starting from a spare kernel when one is ready."""

    launched = False

    async def launch_kernel(self, cmd, **kwargs):
        folder = os.path.abspath(kwargs.get("cwd") or os.getcwd())
        # A restart keeps the websocket's session, so its spare must share the kernel's key.
        spare = Pool.take(folder, key=self.parent.session.key if self.launched else None, log=self.log.info)
        self.launched = True
        self.folder, self.launch_kwargs = folder, dict(kwargs)
        if spare is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = spare.process
        self.pid = spare.process.pid
        try:
            self.pgid = os.getpgid(spare.process.pid)
        except OSError:
            self.pgid = None
        self.connection_info = spare.info
        self.log.info("zoo spare: handed over (process %s) to kernel %s", spare.process.pid, self.kernel_id)
        return self.connection_info

    async def post_launch(self, **kwargs):
        await super().post_launch(**kwargs)
        if self.folder not in Pool.pending and self.folder not in Pool.spares:
            Pool.pending.add(self.folder)
            asyncio.ensure_future(self.start_spare(self.folder))

    async def start_spare(self, folder):
        """After SPARE_DELAY, a kernel process for `folder` with a connection file of its own."""
        try:
            await asyncio.sleep(SPARE_DELAY)
            km = self.parent
            if km is None or folder in Pool.spares:
                return
            info = dict(km.get_connection_info(session=False))
            if info.get("transport") != "tcp":
                return
            info.update(zip(PORT_NAMES, free_ports(info["ip"], len(PORT_NAMES))))
            key = info["key"]
            path = os.path.join(os.path.dirname(km.connection_file), f"kernel-spare-{uuid.uuid4()}.json")
            with open(path, "w") as f:
                json.dump(dict(info, key=key.decode() if isinstance(key, bytes) else key), f)
            cmd = [part.replace("{connection_file}", path) for part in self.kernel_spec.argv]
            process = launch_kernel(cmd, **LocalProvisioner._scrub_kwargs(self.launch_kwargs))
            Pool.spares[folder] = Spare(process, dict(info, key=key if isinstance(key, bytes) else key.encode()), path)
            self.log.info("zoo spare: started (process %s) for %s", process.pid, folder)
        finally:
            Pool.pending.discard(folder)


class SpareKernelManager(ServerKernelManager):
    """jupyter_server's kernel manager, with a `SpareProvisioner` for the kernel `rust`."""

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None and self.kernel_name == "rust" and enabled():
            if not self.kernel_id:
                self.kernel_id = kw.pop("kernel_id", None) or str(uuid.uuid4())
            kw.pop("kernel_id", None)
            self.provisioner = SpareProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)
