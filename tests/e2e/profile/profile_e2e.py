#!/usr/bin/env python3
"""CPU profiling end to end: `gstrace --profile` on the
split fixture (fixtures/profile_split.c: three call paths taking 60, 30
and 10 % of its CPU time), its folded stacks judged against the split and
against gdb's backtrace at each path's busy loop.

Scenarios (one meson test each, serial: they sample every CPU):
  split-O0-fp     -O0 with frame pointers, -p PID, at 99 and 999 Hz
  split-O2-nofp   -O2 without frame pointers, -p PID, at 99 and 999 Hz
  thread          the rounds in a second thread: stacks rooted at clone3
  target-path     -t PATH: a process running before gstrace starts and a
                  threaded one started during the run both sampled, a
                  process of another binary not
  kernel-stacks   --kernel-stacks on the syscall path: kernel frames
                  (`_[k]`) above a complete user stack
  all             --all while two executables sharing libprofspin.so and
                  short-lived split processes start and end

What every stack must be: complete (its outermost user frame `_start`, or
`clone3` for a thread), and down to its path's busy loop the frames gdb
shows there (inline calls included, in either order, as e2e_check.c
compares them). What the samples must be: each path's share of the
samples naming a path within TOLERANCE points of 60/30/10 (or three
standard deviations where the samples are too few for that), complete
stacks naming no path (taken between two slices) at most OTHER_MAX % of
all.

usage: profile_e2e.py GSTRACE SCENARIO BUILD_DIR
Exit status: 0 passed, 1 failed, 77 skipped (saying why).
"""
import math
import os
import re
import subprocess
import sys
import time

# profile_lib beside this script, e2e_lib in the folder above
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import profile_lib as L  # noqa: E402
from e2e_lib import fail, problems, skip  # noqa: E402

TOLERANCE = 3.0  # percentage points
OTHER_MAX = 2.0  # % of samples outside the three paths
# Seconds of sampling per rate: at 99 Hz up to ~800 samples, at 999 Hz ~3000
# (fewer when other work shares the CPUs). The shares vary as a binomial:
# below ~1,800 samples in the paths +-3 is less than three deviations of the
# 60 % share, and the tolerance widens to those (tolerance()).
DURATION = {99: 8, 999: 3}
# The busy loop's callees seen above it: its clock read, then the C
# library's and the vDSO's frames of that read.
LEAF_CALLEES = {"clock_ns"}

GSTRACE, SCENARIO, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]


def binary(name):
    return os.path.join(BUILD, name)


_plt_ranges = {}


def in_plt_stub(frame):
    """Whether a folded frame `module+0xoff` lies in its module's .plt or
    .plt.got/.plt.sec (the fixtures are in BUILD)."""
    m = re.match(r"^(.+)\+0x([0-9a-f]+)$", frame)
    if not m:
        return False
    path = binary(m.group(1))
    if path not in _plt_ranges:
        ranges = []
        try:
            out = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True).stdout
        except OSError:
            out = ""
        for line in out.splitlines():
            f = line.replace("[ ", "[").split()
            if len(f) > 6 and f[1] in (".plt", ".plt.got", ".plt.sec"):
                lo, size = int(f[3], 16), int(f[5], 16)
                ranges.append((lo, lo + size))
        _plt_ranges[path] = ranges
    off = int(m.group(2), 16)
    return any(lo <= off < hi for lo, hi in _plt_ranges[path])


def gstrace_argv(hz, target, seconds, extra=()):
    return [GSTRACE, "--profile", str(hz)] + list(target) + [
        "--duration", str(seconds), "--script-output", "folded"] + list(extra)


READY = "@@profile-e2e-ready"


class Background:
    """gstrace running while the test starts processes: started, then
    waited for until every probe is attached (--emit-ready-marker)."""

    def __init__(self, hz, target, seconds, extra=()):
        self.argv = gstrace_argv(hz, target, seconds, list(extra) +
                                 ["--emit-ready-marker", READY])
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.head = []
        while True:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.head.append(line)
            if READY in line:
                return
        fail("%s never said it was ready: %s" % (" ".join(self.argv), "".join(self.head)))

    def finish(self, timeout=70):
        """(stacks, stderr)"""
        out, err = self.proc.communicate(timeout=timeout)
        err = "".join(self.head) + err
        if self.proc.returncode != 0:
            fail("%s exited %d: %s" % (" ".join(self.argv), self.proc.returncode,
                                       err.strip()[-2000:]))
        return L.parse_folded(out), err


def run_profile(hz, target, seconds, extra=()):
    """gstrace's folded stacks and its stderr."""
    argv = gstrace_argv(hz, target, seconds, extra)
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=seconds + 60)
    if r.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(argv), r.returncode, r.stderr.strip()[-2000:]))
    return L.parse_folded(r.stdout), r.stderr


def tolerance(share, n):
    """TOLERANCE points, or three standard deviations of a share counted
    over n samples where that is more: each sample falls in a path as a
    coin toss would (the rounds have random lengths), so at 99 Hz on a
    loaded machine (300 samples in 8 s) a share of 60 moves by 2.8 points
    as often as not; three deviations fail one run in 300 per path."""
    p = share / 100.0
    return max(TOLERANCE, 300.0 * math.sqrt(p * (1 - p) / n)) if n else TOLERANCE


def check_stacks(label, stacks, gdb, spins=L.SPINS, shares=True, min_samples=0,
                 cpu_window=None):
    """The checks every scenario makes on one run's stacks. cpu_window:
    (hz, CPU seconds the target used from gstrace's start to its end):
    the samples must be about hz per CPU second, at most 15 % more (none
    taken while it was off the CPU) and at least 70 % (gstrace's start-up
    is inside the window, not sampled)."""
    total, per, done = L.summarize(stacks, spins)
    if cpu_window:
        hz, cpu = cpu_window
        print("%s: %d samples over %.2f s of the target's CPU time (%.0f at %d Hz)" %
              (label, total, cpu, hz * cpu, hz))
        if total > 1.15 * hz * cpu + 10:
            fail("%s: %d samples, more than %d Hz of the %.2f s the target was on a CPU" %
                 (label, total, hz, cpu))
        min_samples = max(min_samples, int(0.7 * hz * cpu))
    # shares of the samples whose stack names a path; complete stacks
    # naming none were taken between two slices
    in_paths = sum(per[k] for k in spins)
    between = sum(n for st, n in stacks if L.complete(st) and L.path_of(st, spins) is None)
    line = "%s: %d samples, %s, between slices %.1f %%, complete %.2f %%" % (
        label, total,
        ", ".join("%s %.1f %%" % (spins[k], L.pct(per[k], in_paths)) for k in spins),
        L.pct(between, total), L.pct(done, total))
    print(line, flush=True)
    if total < min_samples:
        fail("%s: %d samples, expected at least %d" % (label, total, min_samples))
        return
    # A sample taken while the process exits, after the kernel has let go
    # of its memory, stops at _exit: nothing is left to unwind through.
    exiting = [(st, n) for st, n in stacks if not L.complete(st) and
               L.user_part(st) and L.user_part(st)[-1] in EXITING]
    if exiting:
        print("%s: %d samples in _exit (the process exiting), not unwound past it" %
              (label, sum(n for _, n in exiting)))
    # A sample at some pcs of the vDSO's clock code unwinds to no module:
    # its .eh_frame (the kernel's) does not describe them. A sample inside
    # a PLT stub stops there too: its FDE's CFA is an expression of rip the
    # walker has no row for (docs: left for later). Reported; a failure
    # only past 0.5 % of the samples, each.
    tolerated = []
    for where, at_leaf in (("the vDSO", lambda f: f.startswith("__vdso_")),
                           ("a PLT stub", in_plt_stub)):
        stopped = [(st, n) for st, n in stacks if not L.complete(st) and (st, n) not in exiting
                   and (st, n) not in tolerated and L.user_part(st)
                   and at_leaf(L.user_part(st)[-1])]
        count = sum(n for _, n in stopped)
        if stopped:
            print("%s: %d samples stop in %s" % (label, count, where))
            if count * 200 > max(total, 1):
                fail("%s: %d of %d samples stop in %s" % (label, count, total, where))
        tolerated += stopped
    incomplete = [(st, n) for st, n in stacks if not L.complete(st) and (st, n) not in exiting
                  and (st, n) not in tolerated]
    for st, n in incomplete[:5]:
        fail("%s: incomplete stack (%d samples): %s" % (label, n, ";".join(st)))
    if shares:
        for k in spins:
            got = L.pct(per[k], in_paths)
            tol = tolerance(L.SHARES[k], in_paths)
            if tol > TOLERANCE:
                print("%s: %s: +- %.1f, not %.0f: %d samples are too few for %.0f" %
                      (label, spins[k], tol, TOLERANCE, in_paths, TOLERANCE))
            if abs(got - L.SHARES[k]) > tol:
                fail("%s: %s has %.2f %% of the samples, expected %.0f +- %.1f" %
                     (label, spins[k], got, L.SHARES[k], tol))
        if L.pct(between, total) > OTHER_MAX:
            fail("%s: %.2f %% of the samples between slices (at most %.0f)" %
                 (label, L.pct(between, total), OTHER_MAX))
    bad = 0
    for st, n in stacks:
        key = L.path_of(st, spins)
        if key is None:
            continue
        user = L.user_part(st)
        why = L.compare_with_gdb(user, gdb[spins[key]])
        if why is None:
            leaf_at = user.index(spins[key])
            callees = user[leaf_at + 1:]
            if callees and callees[0] not in LEAF_CALLEES | {"read", "__libc_read"} and \
               L.base_name(callees[0]) not in ("read", "libc_read"):
                why = "%s calls %s, not one of its callees" % (spins[key], callees[0])
        if why and bad < 5:
            fail("%s: %s (%d samples): %s" % (label, why, n, ";".join(st)))
        bad += why is not None


def require_gstrace_profile():
    r = subprocess.run([GSTRACE, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if "--profile" not in r.stdout:
        skip("this gstrace has no --profile option (its --help does not name it)")


def scenario_split(build, extra_args=(), rates=(99, 999)):
    fx = L.Fixture([binary(build)] + list(extra_args))
    try:
        gdb = L.gdb_backtraces(fx.pid, list(L.SPINS.values()))
        for hz in rates:
            d = DURATION[hz]
            cpu0 = L.proc_cpu_seconds(fx.pid)
            stacks, _ = run_profile(hz, ["-p", str(fx.pid)], d)
            cpu = L.proc_cpu_seconds(fx.pid) - cpu0
            check_stacks("%s%s at %d Hz" % (build, " ".join([""] + list(extra_args)), hz),
                         stacks, gdb, cpu_window=(hz, cpu))
    finally:
        fx.finish()


def scenario_target_path():
    path = binary("profile_split_O0_fp")
    # gdb's frames of the threaded build, from a process of its own
    probe = L.Fixture([path, "--thread"])
    try:
        gdb_thread = L.gdb_backtraces(probe.pid, list(L.SPINS.values()))
    finally:
        probe.finish()
    first = L.Fixture([path])
    other = L.Fixture([binary("profile_spin_a"), "30"])
    try:
        gdb = L.gdb_backtraces(first.pid, list(L.SPINS.values()))
        cpu0 = L.proc_cpu_seconds(first.pid)
        bg = Background(999, ["-t", path], 5)
        time.sleep(0.5)
        late = L.Fixture([path, "--thread", "--seconds", "2.5"])
        late_work = late.finish(wait=True)
        stacks, _ = bg.finish()
        cpu = L.proc_cpu_seconds(first.pid) - cpu0
    finally:
        first.finish()
        other.finish()
    strangers = [st for st, _ in stacks if any(f.startswith("profspin") for f in st)]
    if strangers:
        fail("-t: stacks of another binary: %s" % ";".join(strangers[0]))
    # the process running before runs its rounds under main; the late one
    # in a thread, where main is no frame (its root is clone3, when found)
    running = [(st, n) for st, n in stacks if "main" in st or "rounds_thread" not in st]
    late_stacks = [(st, n) for st, n in stacks if "main" not in st and "rounds_thread" in st]
    check_stacks("-t: the process running before gstrace", running, gdb,
                 cpu_window=(999, cpu))
    # its samples while gstrace looks for it (a /proc scan) may be lost:
    # half its CPU time at least
    check_stacks("-t: the threaded process started during the run", late_stacks, gdb_thread,
                 shares=False, min_samples=int(999 * late_work.get("cpu_ns", 0) / 2e9))


def scenario_kernel_stacks():
    spins = {"a": "spin_a", "b": "spin_b", "c": "spin_sys"}
    fx = L.Fixture([binary("profile_split_O2_nofp"), "--syscalls"])
    try:
        gdb = L.gdb_backtraces(fx.pid, list(spins.values()))
        cpu0 = L.proc_cpu_seconds(fx.pid)
        stacks, _ = run_profile(999, ["-p", str(fx.pid)], 3, ["--kernel-stacks"])
        cpu = L.proc_cpu_seconds(fx.pid) - cpu0
    finally:
        fx.finish()
    check_stacks("--kernel-stacks, syscall path", stacks, gdb, spins, shares=False,
                 cpu_window=(999, cpu))
    sys_samples = sum(n for st, n in stacks if "spin_sys" in st)
    with_kernel = sum(n for st, n in stacks if "spin_sys" in st and
                      any(f.endswith(L.KERNEL_SUFFIX) for f in st))
    print("spin_sys: %d samples, %d with kernel frames" % (sys_samples, with_kernel))
    # spin_sys spends most of its time reading /dev/zero in the kernel
    if sys_samples == 0 or with_kernel < sys_samples // 2:
        fail("--kernel-stacks: %d of spin_sys's %d samples have kernel frames (expected "
             "at least half)" % (with_kernel, sys_samples))
    for st, n in stacks:
        first_k = next((i for i, f in enumerate(st) if f.endswith(L.KERNEL_SUFFIX)), len(st))
        if any(not f.endswith(L.KERNEL_SUFFIX) for f in st[first_k:]):
            fail("--kernel-stacks: a user frame above a kernel frame: %s" % ";".join(st))
            break
    if not any(re.search(r"sys_read", f) for st, _ in stacks for f in st):
        fail("--kernel-stacks: no stack through the read system call")


# Where a stack legitimately ends early: _exit once the kernel let go of
# the process's memory, a detached thread's exit syscall in start_thread
# once its stack went back to glibc's stack cache (which another thread
# may already have unmapped: 1 sample of 4021 once in CI), and crtstuff's
# destructor runner, which the toolchain builds without CFI (no FDE covers
# __do_global_dtors_aux).
EXITING = {"_exit", "__GI__exit", "_Exit", "__do_global_dtors_aux", "start_thread"}
VERBOSE = re.compile(r"gstrace: profile: (\d+) processes, (\d+) modules, (\d+) unwind rows "
                     r"\((\d+) bytes\)")


def scenario_all():
    spins_lib = {"a": "profspin_a_work", "b": "profspin_b_work"}
    # gdb's frames of the three programs, before the run
    helper = L.Fixture([binary("profile_spin_a"), "20"])
    helper_b = L.Fixture([binary("profile_spin_b"), "20"])
    split = L.Fixture([binary("profile_split_O2_nofp")])
    try:
        gdb_lib = {"a": L.gdb_backtraces(helper.pid, ["profspin_spin"])["profspin_spin"],
                   "b": L.gdb_backtraces(helper_b.pid, ["profspin_spin"])["profspin_spin"]}
        gdb_split = L.gdb_backtraces(split.pid, list(L.SPINS.values()))
    finally:
        for f in (helper, helper_b, split):
            f.finish()
    bg = Background(199, ["--all"], 6, ["--verbose"])
    time.sleep(0.5)
    started = [L.Fixture([binary("profile_spin_a"), "2.5"]),
               L.Fixture([binary("profile_spin_b"), "2.5"])]
    short = 0
    while short < 6:
        f = L.Fixture([binary("profile_split_O2_nofp"), "--seconds", "0.3"])
        f.finish(timeout=10, wait=True)
        short += 1
    for f in started:
        f.finish(timeout=10, wait=True)
    stacks, err = bg.finish()
    total = sum(n for _, n in stacks)
    print("--all: %d samples in %d stacks; the most frequent:" % (total, len(stacks)))
    for st, n in sorted(stacks, key=lambda x: -x[1])[:8]:
        print("    %s %d" % (";".join(st)[:300], n))
    for k, fn in spins_lib.items():
        # the busy loop's samples (one between two calls is in fn itself)
        mine = [(st, n) for st, n in stacks if fn in st and "profspin_spin" in st]
        got = sum(n for _, n in mine)
        print("--all: %s: %d samples" % (fn, got))
        if got < 50:
            fail("--all: %d samples under %s (two processes spinning 2.5 s at 199 Hz)" %
                 (got, fn))
        for st, n in mine:
            user = L.user_part(st)
            why = None if L.complete(st) else "incomplete"
            why = why or L.compare_with_gdb(user, gdb_lib[k])
            if why:
                fail("--all: %s: %s (%d samples): %s" % (fn, why, n, ";".join(st)))
                break
    short_stacks = [(st, n) for st, n in stacks if L.path_of(st) is not None and
                    "rounds_thread" in st]
    short_n = sum(n for _, n in short_stacks)
    print("--all: the short-lived processes: %d samples" % short_n)
    if short_n < 30:
        fail("--all: %d samples of the six 0.3 s processes (expected 30 or more)" % short_n)
    check_stacks("--all, the short-lived processes", short_stacks, gdb_split, shares=False)
    m = VERBOSE.search(err)
    if not m:
        fail("--all --verbose: no `gstrace: profile: ...` line on stderr: %s" % err[-2000:])
    else:
        procs, mods, rows, size = (int(x) for x in m.groups())
        print("--all: %s" % m.group(0))
        if procs < 1 or mods < 1 or rows < 1 or size < rows:
            fail("--all --verbose: implausible figures: %s" % m.group(0))


def main():
    if os.geteuid() != 0:
        skip("sampling needs root (perf_event_open on every CPU, BPF)")
    if not os.path.exists(GSTRACE):
        skip("no gstrace binary at %s" % GSTRACE)
    if subprocess.run(["which", "gdb"], stdout=subprocess.DEVNULL).returncode != 0:
        skip("gdb is not installed: it is the ground truth")
    require_gstrace_profile()
    if SCENARIO == "split-O0-fp":
        scenario_split("profile_split_O0_fp")
    elif SCENARIO == "split-O2-nofp":
        scenario_split("profile_split_O2_nofp")
    elif SCENARIO == "thread":
        scenario_split("profile_split_O2_nofp", ["--thread"], rates=(999,))
    elif SCENARIO == "target-path":
        scenario_target_path()
    elif SCENARIO == "kernel-stacks":
        scenario_kernel_stacks()
    elif SCENARIO == "all":
        scenario_all()
    else:
        raise SystemExit("unknown scenario " + SCENARIO)
    if problems:
        print("%d problem(s)" % len(problems))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
