#!/usr/bin/env python3
"""Benchmarks of Python frames in CPU profiles, on a CPython process busy
30 Python frames deep (bench/fixtures/py_deep.py), at 999 Hz:

  profile.python.bpf.run_ns.per_sample   gstrace's perf_event program's
                                         kernel run time per sample of the
                                         target (kernel.bpf_stats_enabled),
                                         the Python walk included
  profile.python.bpf.run_ns.per_sample.native  the same process with
                                         --python-frames off: the native
                                         walk alone (its ~20 frames)
  profile.python.bpf.ratio               the first over the second
  profile.python.complete_pct            % of samples whose stack reaches
                                         `_start` and shows the 30 Python
                                         frames (deep ... <module>)
  profile.python.py_spy.complete_pct     py-spy's, where it is installed

The runs of the program on other processes' samples (every CPU's clock
fires; the program drops them) are taken out at the per-run cost measured
on a sleeping target, as profile_sampling_bench.py does. The interpreter:
pyenv's newest CPython 3.12/3.13 with DWARF, else Debian's python3.11.

usage: profile_python_bench.py GSTRACE
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "e2e", "profile"))
import profile_lib as L  # noqa: E402

GSTRACE = os.path.abspath(sys.argv[1])
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "py_deep.py")
HZ = 999
SECONDS = 4
READY = "@@profile-python-bench-ready"
DEPTH = 30


def bench(metric, value, unit):
    print("BENCH %s %s %s" % (metric, value, unit), flush=True)


def skipped(metric, why):
    print("# %s skipped: %s" % (metric, why), flush=True)


def interpreter():
    for v in ("3.13", "3.12"):
        found = sorted(glob.glob("/root/.pyenv/versions/%s.*/bin/python%s" % (v, v)))
        if found:
            return found[-1]
    return "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else None


def profile(pid, seconds, extra):
    """(folded stacks [(frames, count)], (run_time_ns, run_cnt))."""
    argv = [GSTRACE, "--profile", str(HZ), "-p", str(pid), "--script-output", "folded",
            "--emit-ready-marker", READY] + extra
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.time() + 30
    while time.time() < end:
        line = p.stderr.readline()
        if not line or READY in line:
            break
    time.sleep(seconds)
    stats = L.perf_event_prog_stats(p.pid) if p.poll() is None else (0, 0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    stacks = []
    for line in out.splitlines():
        m = re.match(r"^(.*) (\d+)$", line.strip())
        if m and m.group(1):
            stacks.append((m.group(1).split(";"), int(m.group(2))))
    return stacks, stats


def per_sample(stats, n, filtered):
    return (stats[0] - (stats[1] - n) * filtered) / n if n else -1


def filtered_ns(extra):
    idle = subprocess.Popen(["sleep", "60"])
    try:
        _, stats = profile(idle.pid, 2, extra)
        return stats[0] / stats[1] if stats[1] else 0.0
    finally:
        idle.kill()
        idle.wait()


def complete(stack):
    py = [f for f in stack if f.endswith(")") and "py_deep.py" in f]
    return bool(stack) and stack[0] == "_start" and len(py) >= DEPTH


def main():
    python = interpreter()
    if not python:
        for m in ("profile.python.bpf.run_ns.per_sample", "profile.python.complete_pct"):
            skipped(m, "no CPython 3.11+ here")
        return
    fx = subprocess.Popen([python, FIXTURE], stdout=subprocess.PIPE, text=True)
    if not fx.stdout.readline().startswith("ready"):
        fx.kill()
        skipped("profile.python.bpf.run_ns.per_sample", "the fixture did not start")
        return
    print("# %s, pid %d" % (python, fx.pid), flush=True)
    try:
        stacks, stats = profile(fx.pid, SECONDS, [])
        n = sum(c for _, c in stacks)
        if not n or not stats[1]:
            skipped("profile.python.bpf.run_ns.per_sample", "gstrace counted no samples")
            return
        filt = filtered_ns([])
        py_ns = per_sample(stats, n, filt)
        bench("profile.python.bpf.run_ns.per_sample", "%.0f" % py_ns, "ns")
        done = sum(c for st, c in stacks if complete(st))
        deepest = max(len(st) for st, _ in stacks)
        print("# %d samples, deepest stack %d frames, %d complete with %d Python frames" %
              (n, deepest, done, DEPTH), flush=True)
        bench("profile.python.complete_pct", "%.2f" % (100.0 * done / n), "%")
        stacks, stats = profile(fx.pid, SECONDS, ["--python-frames", "off"])
        n = sum(c for _, c in stacks)
        if n and stats[1]:
            native_ns = per_sample(stats, n, filtered_ns(["--python-frames", "off"]))
            bench("profile.python.bpf.run_ns.per_sample.native", "%.0f" % native_ns, "ns")
            bench("profile.python.bpf.ratio", "%.2f" % (py_ns / native_ns), "x")
        if shutil.which("py-spy"):
            r = subprocess.run(["py-spy", "record", "-r", str(HZ), "-d", str(SECONDS), "-f",
                                "raw", "-o", "/dev/stdout", "-p", str(fx.pid)],
                               capture_output=True, text=True)
            total = full = 0
            for line in r.stdout.splitlines():
                st, _, c = line.rpartition(" ")
                if c.isdigit():
                    total += int(c)
                    full += int(c) * (st.count("py_deep.py") >= DEPTH)
            if total:
                bench("profile.python.py_spy.complete_pct", "%.2f" % (100.0 * full / total), "%")
        else:
            skipped("profile.python.py_spy.complete_pct", "py-spy is not installed")
    finally:
        fx.kill()
        fx.wait()


if __name__ == "__main__":
    stats_path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(stats_path).read().strip() if os.path.exists(stats_path) else None
    if old is not None:
        open(stats_path, "w").write("1")
    try:
        main()
    finally:
        if old is not None:
            open(stats_path, "w").write(old)
