"""The CPU class a benchmark ran on, as docs/performance.md names it: vendor, family and model
(/proc/cpuinfo), the FMA probe's widest vectors, and their rate: vector FMAs a cycle and core,
from the one-thread probe and the clock measured under load (`bench peak=1`: a chain of dependent
additions; a virtual machine's /proc/cpuinfo gives a nominal clock). AVX-512 at full width does 2
a cycle, split into two 256-bit halves 1."""


def cpuinfo():
    """The first processor's fields of /proc/cpuinfo."""
    info = {}
    try:
        for line in open("/proc/cpuinfo"):
            if not line.strip():
                break
            if ":" in line:
                key, value = (s.strip() for s in line.split(":", 1))
                info.setdefault(key, value)
    except OSError:
        pass
    return info


def cpu_class(probe_one_thread):
    """A dict and a line naming the CPU class, from `bench peak=1`'s JSON."""
    info = cpuinfo()
    rate = probe_one_thread.get("fmas_per_cycle")
    vector = probe_one_thread.get("vector", "unknown vectors")
    width = ""
    if rate is not None and vector.startswith("AVX-512"):
        width = ", full width" if rate >= 1.5 else ", two 256-bit halves"
    c = {
        "vendor": info.get("vendor_id", "?"), "family": info.get("cpu family", "?"), "model": info.get("model", "?"),
        "model_name": info.get("model name", "unknown CPU"), "vector": vector, "clock_ghz": probe_one_thread.get("clock_ghz"),
        "fmas_per_cycle": rate,
    }
    line = (f"{c['model_name']} ({c['vendor']} family {c['family']} model {c['model']}), {vector} at "
            f"{rate:.2f} vector FMAs a cycle and core{width}, {c['clock_ghz']:.2f} GHz under load" if rate is not None else
            f"{c['model_name']} ({c['vendor']} family {c['family']} model {c['model']}), {vector}")
    return c, line
