#!/usr/bin/env python3
"""Python frames end to end: gstrace's stacks of a CPython process against
the interpreter's own view of them (python/pyfix.py prints
traceback.extract_stack() at the call it makes).

Scenarios (one meson test each):
  stack-3.N          pyenv's CPython 3.N (libpython with DWARF): `bt` at the
                     C function the fixture calls through ctypes, in the
                     main thread and a second one; 3.8 to 3.13
  stack-debian-3.11  Debian's /usr/bin/python3.11 (static libpython, no
                     DWARF: the layout table)
  cycle-3.10         a process whose frame chain is a cycle (its own f_back
                     points at itself during the call): the walk ends at the
                     depth, says so, and the process runs on
  unsupported-3.7    pyenv's CPython 3.7 (a version gstrace does not read):
                     said once on stderr, its stacks native and complete
  target-debian-3.11 `--profile -t /usr/bin/python3.11`: a process started
                     after gstrace is sampled with its Python frames
  profile-3.12, profile-debian-3.11
                     `--profile 99 --script-output folded`: 60/30/10 % of
                     the CPU in three Python functions

What a stack must be: complete (to `_start`, or `clone3` for the thread);
its Python frames exactly the interpreter's (function, file, line; a
qualified name's last part is the function's name), innermost first,
between the native frames that called and were called by them, where the
interpreter's own frames were (none of those is left); frame #0 the C
function. What a profile must be: each function's share within
TOLERANCE points of 60/30/10 (three standard deviations when the samples
are too few) and the stacks naming a function complete (all but
INCOMPLETE_MAX %: a sample in a stub without unwind rows ends early).

usage: python_e2e.py GSTRACE SCENARIO BUILD_DIR
Exit status: 0 passed, 1 failed, 77 skipped (saying why).
"""
import glob
import math
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from e2e_lib import fail, problems, skip  # noqa: E402

GSTRACE, SCENARIO, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "pyfix.py")
LIB = os.path.join(BUILD, "libpyfix.so")
TOLERANCE = 3.0
INCOMPLETE_MAX = 2.0  # % of samples
SHARES = {"spin_a": 60.0, "spin_b": 30.0, "spin_c": 10.0}
ROOTS = {"_start", "clone3", "clone", "__clone3", "__clone"}


def interpreter(version):
    if version in ("3.6", "3.7"):
        found = sorted(glob.glob("/root/.pyenv/versions/%s.*/bin/python%s" % (version, version)))
        if not found:
            skip("no pyenv build of CPython %s here" % version)
        return found[-1]
    if version == "debian-3.11":
        path = "/usr/bin/python3.11"
        if not os.path.exists(path):
            skip("Debian's python3.11 is not installed (%s)" % path)
        return path
    found = sorted(glob.glob("/root/.pyenv/versions/%s.*/bin/python%s" % (version, version)))
    if not found:
        skip("no pyenv build of CPython %s here (/root/.pyenv/versions/%s.*)"
             % (version, version))
    return found[-1]


class Fixture:
    def __init__(self, python, mode):
        self.proc = subprocess.Popen([python, FIXTURE, LIB, mode], stdout=subprocess.PIPE,
                                     stdin=subprocess.PIPE, text=True)
        self.expect = {}
        for line in self.proc.stdout:
            if line.startswith("expect "):
                _, tid, frames = line.rstrip("\n").split(" ", 2)
                self.expect[int(tid)] = [parse_expect(f) for f in frames.split("|")]
            elif line.startswith("ready "):
                break
        else:
            raise RuntimeError("the fixture ended before its ready line")
        self.pid = self.proc.pid

    def finish(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


def parse_expect(text):
    name, where = text.split("@", 1)
    file, line = where.rsplit(":", 1)
    return (name, file, int(line))


LAST_STDERR = [""]


def gstrace(args, timeout=60):
    cmd = [GSTRACE] + args
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    LAST_STDERR[0] = r.stderr
    print("exit %d; stdout %d bytes" % (r.returncode, len(r.stdout)), flush=True)
    if r.returncode != 0:
        fail("gstrace exited %d: %s" % (r.returncode, r.stderr.strip()[-2000:]))
    return r.stdout


HEADER = re.compile(r"^\[.*\] TraceID:\d+ PID:(\d+) TID:(\d+)")
FRAME = re.compile(r"^\s+#(\d+) (.*)$")
PYFRAME = re.compile(r"^(.+) at (.+):(\d+) \[python3\.\d+\]$")


def events(text):
    """(tid, status line, frames as text) per event of pretty output."""
    out = []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            out.append({"tid": int(m.group(2)), "status": "", "frames": [], "text": []})
            continue
        if not out:
            continue
        out[-1]["text"].append(line)
        if line.strip().startswith("backtrace: "):
            out[-1]["status"] = line.strip()[len("backtrace: "):]
        m = FRAME.match(line)
        if m and ".inline" not in line.split()[0]:
            out[-1]["frames"].append(m.group(2))
    return out


def same_function(shown, name):
    return shown == name or shown.rsplit(".", 1)[-1] == name


def native_name(frame):
    return frame.split("(")[0].split(" ")[0]


def check_stack_event(ev, expect):
    text = "\n".join(ev["text"])
    frames = ev["frames"]
    if not ev["status"].startswith("complete"):
        fail("TID %d: the stack is not complete: %s\n%s" % (ev["tid"], ev["status"], text))
    if not frames or native_name(frames[0]) != "pyfix_leaf":
        fail("TID %d: frame #0 is not pyfix_leaf\n%s" % (ev["tid"], text))
    py = [(i, PYFRAME.match(f)) for i, f in enumerate(frames)]
    py = [(i, m) for i, m in py if m]
    want = list(reversed(expect))
    got = [(m.group(1), m.group(2), int(m.group(3))) for _, m in py]
    if len(got) != len(want) or not all(
            same_function(g[0], w[0]) and g[1] == w[1] and g[2] == w[2]
            for g, w in zip(got, want)):
        fail("TID %d: Python frames differ from the interpreter's\n  gstrace: %s\n  python:  %s\n%s"
             % (ev["tid"], got, want, text))
        return
    # before 3.11 each Python call is a C call of the interpreter: native
    # frames sit between them; from 3.11 a run of them is one C call
    idx = [i for i, _ in py]
    if idx[0] == 0 or idx[-1] == len(frames) - 1:
        fail("TID %d: the Python frames are not between native ones\n%s" % (ev["tid"], text))
    if any("_PyEval_EvalFrameDefault" in f for f in frames):
        fail("TID %d: an interpreter frame is shown beside the Python frames\n%s"
             % (ev["tid"], text))
    if native_name(frames[-1]) not in ROOTS:
        fail("TID %d: the outermost frame is %s, not _start/clone3\n%s"
             % (ev["tid"], frames[-1], text))


def scenario_stack(version):
    python = interpreter(version)
    fx = Fixture(python, "stack")
    try:
        out = gstrace(["-p", str(fx.pid), "-s", "trace pyfix_leaf { bt; }",
                       "--max-events", "8", "--duration", "30"])
    finally:
        fx.finish()
    evs = events(out)
    if len(evs) < 2:
        fail("%d events, 8 expected\n%s" % (len(evs), out[-3000:]))
    seen = set()
    for ev in evs:
        if ev["tid"] not in fx.expect:
            fail("an event of TID %d, which the fixture did not report" % ev["tid"])
            continue
        seen.add(ev["tid"])
        check_stack_event(ev, fx.expect[ev["tid"]])
    if len(seen) < 2 and len(evs) >= 8:
        fail("the events came from %d thread(s) of 2" % len(seen))


def scenario_profile(version):
    python = interpreter(version)
    fx = Fixture(python, "profile")
    try:
        out = gstrace(["--profile", "99", "-p", str(fx.pid), "--script-output", "folded",
                       "--duration", "4"])
    finally:
        fx.finish()
    counts = {k: 0 for k in SHARES}
    incomplete = 0
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        frames = stack.split(";")
        hit = [k for k in SHARES if any(f.startswith(k + " (pyfix.py:") for f in frames)]
        if not hit:
            continue
        counts[hit[0]] += int(n)
        if frames[0] not in ROOTS:
            incomplete += int(n)
    total = sum(counts.values())
    print("samples in the three functions: %s" % counts, flush=True)
    if total < 100:
        fail("only %d samples name spin_a/b/c\n%s" % (total, out[-3000:]))
        return
    for k, want in SHARES.items():
        got = 100.0 * counts[k] / total
        sd = 100.0 * math.sqrt(want / 100 * (1 - want / 100) / total)
        tol = max(TOLERANCE, 3 * sd)
        print("%s: %.1f %% (want %.0f +- %.1f)" % (k, got, want, tol), flush=True)
        if abs(got - want) > tol:
            fail("%s has %.1f %% of the samples, %.0f +- %.1f expected" % (k, got, want, tol))
    # a sample in a stub the unwinder has no row for (a .plt entry) ends
    # its native walk early: at most INCOMPLETE_MAX %, as the native profile
    # test's OTHER_MAX
    print("%d of %d samples naming a function do not reach _start" % (incomplete, total))
    if 100.0 * incomplete / total > INCOMPLETE_MAX:
        fail("%d of %d samples naming a function do not reach _start" % (incomplete, total))


def scenario_cycle(version):
    python = interpreter(version)
    fx = Fixture(python, "cycle")
    try:
        out = gstrace(["-p", str(fx.pid), "-s", "trace pyfix_leaf { bt; }",
                       "--max-events", "3", "--duration", "30"])
        alive = fx.proc.poll() is None
    finally:
        fx.finish()
    evs = events(out)
    if len(evs) != 3:
        fail("%d events, 3 expected\n%s" % (len(evs), out[-3000:]))
    for ev in evs:
        text = "\n".join(ev["text"])
        if "python frames: truncated after %d" % 128 not in text:
            fail("TID %d: the cycle does not end as truncated at the depth\n%s"
                 % (ev["tid"], text[-2000:]))
        if sum(1 for f in ev["frames"] if PYFRAME.match(f)) != 128:
            fail("TID %d: not 128 Python frames" % ev["tid"])
    if not alive:
        fail("the fixture did not survive the trace")


def scenario_unsupported(version):
    python = interpreter(version)
    fx = Fixture(python, "profile")
    try:
        out = gstrace(["--profile", "99", "-p", str(fx.pid), "--script-output", "folded",
                       "--duration", "3"])
    finally:
        fx.finish()
    said = [l for l in LAST_STDERR[0].splitlines() if "python %s: unsupported" % version in l]
    if len(said) != 1 or "native frames only" not in said[0]:
        fail("python %s is not said unsupported once: %r" % (version, LAST_STDERR[0][-1000:]))
    total = done = 0
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        if n.isdigit() and "_PyEval_EvalFrameDefault" in stack:
            total += int(n)
            done += int(n) * (stack.split(";")[0] in ROOTS)
    if not total or 100.0 * (total - done) / total > INCOMPLETE_MAX:
        fail("%d of %d native stacks through the interpreter are complete" % (done, total))


def scenario_target(version):
    python = interpreter(version)
    cmd = [GSTRACE, "--profile", "99", "-t", python, "--script-output", "folded",
           "--duration", "4", "--emit-ready-marker", "@@ready"]
    print("$ " + " ".join(cmd), flush=True)
    tr = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in tr.stderr:
        if "@@ready" in line:
            break
    fx = Fixture(python, "profile")
    try:
        out, err = tr.communicate(timeout=60)
    finally:
        fx.finish()
    if tr.returncode != 0:
        fail("gstrace exited %d: %s" % (tr.returncode, err[-2000:]))
    named = done = 0
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        if n.isdigit() and "spin_a (pyfix.py:" in stack:
            named += int(n)
            done += int(n) * (stack.split(";")[0] in ROOTS)
    print("%d samples name spin_a, %d complete" % (named, done), flush=True)
    if named < 20:
        fail("the process started during the run has %d samples naming spin_a\n%s"
             % (named, out[-2000:]))
    elif 100.0 * (named - done) / named > INCOMPLETE_MAX:
        fail("%d of %d samples naming spin_a are complete" % (done, named))


def main():
    if os.geteuid() != 0:
        skip("tracing needs root")
    if not os.path.exists(LIB):
        fail("%s was not built" % LIB)
    kind, _, version = SCENARIO.partition("-")
    if kind == "stack":
        scenario_stack(version)
    elif kind == "unsupported":
        scenario_unsupported(version)
    elif kind == "target":
        scenario_target(version)
    elif kind == "cycle":
        scenario_cycle(version)
    elif kind == "profile":
        scenario_profile(version)
    else:
        fail("unknown scenario %s" % SCENARIO)
    print("%s: %d failure(s)" % (SCENARIO, len(problems)))
    sys.exit(1 if problems else 0)


main()
