#!/usr/bin/env python3
"""The cause of the broken restarts, on its own: a client that closes its control socket while
the kernel still answers it.

jupyter_server "nudges" a starting kernel: every 0.5 s it sends a kernel_info_request on a
transient shell socket and on a transient control socket, and closes both at the first reply.
evcxr answers nothing during its start-up (our warm-up, about 13 s), so some thirty requests
queue up on each socket; after the start-up it answers them all, most of them to a socket that is
already closed. evcxr_jupyter 0.22 ended the kernel when a control reply could not be delivered
("Codec Error: Broken pipe"); whether it did depended on how many replies were still to go when
the socket closed, which is why JupyterLab's restarts broke only sometimes.

This probe makes that outcome certain: it starts the kernel `rust`, queues REQUESTS kernel_info
requests on a control socket during the start-up, closes the socket at the first reply, and then
checks that the kernel is still alive and runs a cell. With evcxr's patch (tools/evcxr/README.md)
the kernel survives; without it, it dies.

    python tools/evcxr/nudge_probe.py [REQUESTS] [FIRST_REPLY_TIMEOUT]   (run with the environment `make` sets)

FIRST_REPLY_TIMEOUT (seconds, default 600) bounds the wait for the first reply: the kernel's whole
start-up, which in a new clone builds the dependencies first. The last line says when the
cell's rich output came, counted from the start (`make lab-check` reads it as its first measured
kernel start; the control reply comes before the start-up is over, so it measures no start).
"""
import sys
import time

import zmq
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session

CELL = "show(&Tensor::new(&[[1f32, 2.]], &Device::Cpu)?)"


def main(argv):
    requests = int(argv[0]) if argv else 500
    first_reply_timeout = float(argv[1]) if len(argv) > 1 else 600
    km = KernelManager(kernel_name="rust")
    km.start_kernel()
    started = time.monotonic()
    try:
        session = Session(key=km.session.key, signature_scheme=km.session.signature_scheme)
        control = zmq.Context.instance().socket(zmq.DEALER)
        control.linger = 0
        control.connect(f"{km.transport}://{km.ip}:{km.control_port}")
        for _ in range(requests):
            session.send(control, "kernel_info_request")
        if not control.poll(int(first_reply_timeout * 1000)):
            print(f"nudge probe: FAILED: the kernel never answered: no control reply within {first_reply_timeout:.0f} s of its start")
            return 1
        control.close()
        print(f"nudge probe: first control reply {time.monotonic() - started:.1f} s after the start; "
              f"control socket closed with {requests - 1} replies still to come", flush=True)
        time.sleep(3)
        if not km.is_alive():
            print("nudge probe: FAILED: the kernel died answering a closed control socket")
            return 1
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        outputs = []
        reply = kc.execute_interactive(CELL, timeout=120, output_hook=lambda m: outputs.append(m))
        answered = time.monotonic()
        rich = [m for m in outputs if m["msg_type"] in ("execute_result", "display_data") and "text/html" in m["content"]["data"]]
        kc.stop_channels()
        if reply["content"]["status"] != "ok" or not rich:
            print(f"nudge probe: FAILED: the kernel lives but the cell gave {reply['content']['status']} and {len(rich)} rich outputs")
            return 1
        print(f"nudge probe: ok: the kernel survived and ran a cell, its rich output {answered - started:.1f} s after the start")
        return 0
    finally:
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
