#!/usr/bin/env python3
"""Benchmarks of CPU profiling, gstrace next to bpftrace's
`profile` probe with `ustack` and to perf record, in the same run, on the
split fixture (tests/e2e/fixtures/profile_split.c, -O2 without frame
pointers):

  profile.bpf.run_ns.per_sample         gstrace's perf_event program: kernel
                                        run time (kernel.bpf_stats_enabled)
                                        per sample of the target, on stacks 32
                                        frames deep, at 999 Hz
  profile.bpf.run_ns.filtered           per run on a sample of another process
                                        (a run with a sleeping target), taken
                                        out of the per-sample figure: the
                                        program runs on every CPU's samples
  profile.bpf.run_ns.per_run            the same time per run of the program
                                        (run_cnt: every CPU's samples, the
                                        target's and the ones filtered out)
  profile.bpftrace.run_ns.per_sample    bpftrace `profile:hz:999 /pid == P/
  profile.bpftrace.run_ns.per_run         { @[ustack] = count(); }`, the same,
                                        on the build with frame pointers (its
                                        ustack follows them: 32 frames there,
                                        a frame or two without them)
  profile.bpftrace.run_ns.per_sample.nofp  the same on gstrace's build
  profile.perf_dwarf.ns_per_sample      CPU time of `perf record -F 999
                                        --call-graph dwarf -p P` and of `perf
                                        report --stdio` on its file, over the
                                        samples recorded
  profile.gstrace.cpu_ns_per_sample     gstrace's own CPU time (user + system,
                                        the folding and symbolizing) over the
                                        samples it counted
  profile.complete_pct                  % of samples whose stack reaches the
                                        thread's start (`_start`), gstrace;
  profile.{bpftrace,perf_fp,perf_dwarf}.complete_pct  the peers'
  profile.overhead_pct.999hz            the fixture's loops per second of its
                                        CPU time in windows without and with
                                        gstrace sampling it at 999 Hz,
                                        alternating: the median slowdown
  profile.bpftrace.overhead_pct.999hz   the same under bpftrace's profile probe
                                        with ustack (the floor of sampling at
                                        999 Hz on this machine, nearly)
  profile.all.rss_mb                    gstrace --profile --all's peak RSS
  profile.all.rows                      unwind rows --all kept (--verbose)

The per-run BPF times come from /proc/PID/fdinfo of the tracer's program
fds (run_time_ns, run_cnt), the programs of type perf_event (7) it holds.

usage: profile_sampling_bench.py GSTRACE FIXTURE FIXTURE_FP
  FIXTURE: profile_split.c at -O2 -fomit-frame-pointer, FIXTURE_FP the same
  with -fno-omit-frame-pointer
"""
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "e2e", "profile"))
import profile_lib as L  # noqa: E402

GSTRACE = os.path.abspath(sys.argv[1])
FIXTURE = os.path.abspath(sys.argv[2])
FIXTURE_FP = os.path.abspath(sys.argv[3])
HZ = 999
SECONDS = 4
READY = "@@profile-bench-ready"
DEPTH = ["--depth", "28"]  # the busy loops 32 frames deep (profile_split.c)


def bench(metric, value, unit):
    print("BENCH %s %s %s" % (metric, value, unit), flush=True)


def skipped(metric, why):
    print("# skipped: %s: %s" % (metric, why), flush=True)


def read_until(stream, marker, seconds):
    """Lines of stream until one containing marker (True) or EOF/timeout."""
    end = time.time() + seconds
    lines = []
    while time.time() < end:
        line = stream.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return True, lines
    return False, lines


class Tracer:
    """gstrace or bpftrace running until stopped, its BPF stats read just
    before the stop."""

    def __init__(self, argv, ready_on_stderr, ready):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        stream = self.proc.stderr if ready_on_stderr else self.proc.stdout
        self.ready, self.head = read_until(stream, ready, 30)
        self.stats = (0, 0)

    def stop(self, timeout=20):
        if self.proc.poll() is None:
            try:
                self.stats = L.perf_event_prog_stats(self.proc.pid)
            except OSError:
                pass
            self.proc.send_signal(signal.SIGINT)  # both print what they counted
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # a SIGINT that came while it was still attaching, ignored
            self.proc.send_signal(signal.SIGINT)
            try:
                out, err = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, err = self.proc.communicate()
        return "".join(self.head) + out, err


def gstrace_argv(target, extra=()):
    return [GSTRACE, "--profile", str(HZ)] + target + [
        "--script-output", "folded", "--emit-ready-marker", READY] + list(extra)


def have_profile():
    r = subprocess.run([GSTRACE, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return "--profile" in r.stdout


def gstrace_run(fx, seconds, extra=()):
    """(stacks, (run_time_ns, run_cnt), gstrace's CPU seconds, stderr)."""
    if not have_profile():
        return None, (0, 0), 0.0, "this gstrace has no --profile (not in its --help)"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = Tracer(gstrace_argv(["-p", str(fx.pid)], extra), True, READY)
    if not t.ready:
        t.proc.kill()
        out, err = t.proc.communicate()
        return None, (0, 0), 0.0, "".join(t.head) + err
    time.sleep(seconds)
    out, err = t.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return L.parse_folded(out), t.stats, cpu, err


def bpftrace_run(fx, seconds):
    t = bpftrace_tracer(fx.pid)
    if not t.ready:
        t.proc.kill()
        t.proc.communicate()
        return None, (0, 0)
    time.sleep(seconds)
    out, err = t.stop()
    return L.parse_bpftrace_map(out), t.stats


def perf_run(fx, seconds, callgraph, tmp):
    """(stacks, CPU seconds of record + report)."""
    data = os.path.join(tmp, "perf.data")
    rec, cpu_rec = L.run_timed(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(HZ),
                                "--call-graph", callgraph, "-p", str(fx.pid), "-o", data,
                                "--", "sleep", str(seconds)], seconds + 60,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if rec.returncode != 0 or not os.path.exists(data):
        return None, 0.0
    _, cpu_rep = L.run_timed(["perf", "report", "--stdio", "-i", data], 300,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scr = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, timeout=300)
    return L.parse_perf_script(scr.stdout), cpu_rec + cpu_rep


def per_sample_ns(stats, samples, filtered_ns):
    """BPF time per sample of the target: the runs on other processes'
    samples (every CPU's cpu-clock fires; the program drops those) at
    filtered_ns each taken out first."""
    if not samples:
        return -1
    return (stats[0] - (stats[1] - samples) * filtered_ns) / samples


def filtered_run_ns(argv_of_pid):
    """BPF time per run of a tracer whose target never runs (a sleeping
    process): every run is one the program drops."""
    idle = subprocess.Popen(["sleep", "60"])
    try:
        t = argv_of_pid(idle.pid)
        if not t.ready:
            t.proc.kill()
            t.proc.communicate()
            return None
        time.sleep(2)
        t.stop()
        return t.stats[0] / t.stats[1] if t.stats[1] else None
    finally:
        idle.kill()
        idle.wait()


def gstrace_tracer(pid):
    return Tracer(gstrace_argv(["-p", str(pid)]), True, READY)


def bpftrace_tracer(pid):
    prog = "profile:hz:%d /pid == %d/ { @[ustack] = count(); }" % (HZ, pid)
    return Tracer(["bpftrace", "-e", prog], False, "Attaching")


BPFTRACE_FILTERED = [0.0]


def bpftrace_run_ns(fx, suffix):
    metric = "profile.bpftrace.run_ns.per_sample" + suffix
    if not shutil.which("bpftrace"):
        skipped(metric, "bpftrace is not installed")
        return
    stacks, stats = bpftrace_run(fx, SECONDS)
    if stacks is None or not stats[1]:
        skipped(metric, "bpftrace did not attach")
        return
    n = sum(c for _, c in stacks)
    depth = max((len(st) for st, _ in stacks), default=0)
    print("# bpftrace%s: %d samples, deepest stack %d frames, program runs %d" %
          (suffix, n, depth, stats[1]))
    bench(metric, "%.0f" % per_sample_ns(stats, n, BPFTRACE_FILTERED[0]), "ns")
    bench("profile.bpftrace.run_ns.per_run" + suffix, "%.0f" % (stats[0] / stats[1]), "ns")


def run_ns(fx_deep, fx_deep_fp, tmp):
    """The per-sample costs, on the depth-32 fixture."""
    stacks, stats, cpu, err = gstrace_run(fx_deep, SECONDS)
    if stacks is None or not stats[1]:
        skipped("profile.bpf.run_ns.per_sample", "gstrace --profile did not run: %s" %
                err.strip()[-300:])
    else:
        n = sum(c for _, c in stacks)
        depth = max((len(L.user_part(st)) for st, _ in stacks), default=0)
        print("# gstrace: %d samples, deepest stack %d frames, program runs %d" %
              (n, depth, stats[1]))
        filtered = filtered_run_ns(gstrace_tracer) or 0.0
        bench("profile.bpf.run_ns.filtered", "%.0f" % filtered, "ns")
        bench("profile.bpf.run_ns.per_sample", "%.0f" % per_sample_ns(stats, n, filtered), "ns")
        bench("profile.bpf.run_ns.per_run", "%.0f" % (stats[0] / stats[1]), "ns")
        if n:
            bench("profile.gstrace.cpu_ns_per_sample", "%.0f" % (cpu * 1e9 / n), "ns")
    if shutil.which("bpftrace"):
        BPFTRACE_FILTERED[0] = filtered_run_ns(bpftrace_tracer) or 0.0
        bench("profile.bpftrace.run_ns.filtered", "%.0f" % BPFTRACE_FILTERED[0], "ns")
    bpftrace_run_ns(fx_deep_fp, "")
    bpftrace_run_ns(fx_deep, ".nofp")
    if not shutil.which("perf"):
        skipped("profile.perf_dwarf.ns_per_sample", "perf is not installed")
        return
    stacks, cpu = perf_run(fx_deep, SECONDS, "dwarf", tmp)
    if not stacks:
        skipped("profile.perf_dwarf.ns_per_sample", "perf record recorded nothing")
        return
    depth = max((len(L.user_part(st)) for st, _ in stacks), default=0)
    print("# perf dwarf: %d samples, deepest stack %d frames, record + report %.2f s CPU" %
          (len(stacks), depth, cpu))
    bench("profile.perf_dwarf.ns_per_sample", "%.0f" % (cpu * 1e9 / len(stacks)), "ns")


def complete_pct(fx, tmp):
    """Complete stacks on the -O2 no-frame-pointer fixture."""
    def show(metric, stacks):
        total, _, done = L.summarize(stacks)
        if not total:
            skipped(metric, "no samples")
            return
        print("# %s: %d of %d samples complete" % (metric, done, total))
        bench(metric, "%.2f" % L.pct(done, total), "%")

    stacks, _, _, err = gstrace_run(fx, SECONDS)
    if stacks is None:
        skipped("profile.complete_pct", "gstrace --profile did not run: %s" % err.strip()[-300:])
    else:
        show("profile.complete_pct", stacks)
    if shutil.which("bpftrace"):
        stacks, _ = bpftrace_run(fx, SECONDS)
        if stacks is None:
            skipped("profile.bpftrace.complete_pct", "bpftrace did not attach")
        else:
            show("profile.bpftrace.complete_pct", stacks)
    else:
        skipped("profile.bpftrace.complete_pct", "bpftrace is not installed")
    for cg, metric in (("fp", "profile.perf_fp.complete_pct"),
                       ("dwarf", "profile.perf_dwarf.complete_pct")):
        if not shutil.which("perf"):
            skipped(metric, "perf is not installed")
            continue
        stacks, _ = perf_run(fx, SECONDS, cg, tmp)
        if not stacks:
            skipped(metric, "perf record recorded nothing")
        else:
            show(metric, stacks)


WINDOW_S = 1.5
PAIRS = 6


def overhead(metric, start):
    """One fixture process printing its work every 100 ms; windows of
    WINDOW_S seconds without a tracer and with start(pid) sampling it at
    999 Hz (from its ready line to its stop), alternating. A window's
    rate is loops per second of the thread's CPU time (the sampling's
    interrupts are charged to it); each sampled window is compared with
    the mean of the windows either side; the median of those slowdowns."""
    fx = subprocess.Popen([FIXTURE, "--ticks", "100"], stdout=subprocess.PIPE, text=True)
    ticks = []

    def read_ticks():
        for line in fx.stdout:
            m = re.match(r"tick (\d+) cpu_ns (\d+) wall_ns (\d+)", line)
            if m:
                ticks.append(tuple(int(x) for x in m.groups()))

    reader = threading.Thread(target=read_ticks, daemon=True)
    reader.start()
    windows = []  # (sampled, start ns, end ns)
    try:
        time.sleep(0.5)
        for _ in range(PAIRS):
            t0 = time.monotonic_ns()
            time.sleep(WINDOW_S)
            windows.append((False, t0, time.monotonic_ns()))
            t = start(fx.pid)
            if not t.ready:
                t.proc.kill()
                t.proc.communicate()
                skipped(metric, "the tracer did not start")
                return
            t0 = time.monotonic_ns()
            time.sleep(WINDOW_S)
            windows.append((True, t0, time.monotonic_ns()))
            t.stop()
        t0 = time.monotonic_ns()
        time.sleep(WINDOW_S)
        windows.append((False, t0, time.monotonic_ns()))
    finally:
        fx.send_signal(signal.SIGUSR1)
        fx.wait(timeout=30)
        reader.join(timeout=5)

    def rate(start, end):
        inside = [t for t in ticks if start <= t[2] <= end]
        if len(inside) < 2 or inside[-1][1] == inside[0][1]:
            return None
        return (inside[-1][0] - inside[0][0]) * 1e9 / (inside[-1][1] - inside[0][1])

    rates = [(on, rate(a, b)) for on, a, b in windows]
    slow = []
    for i in range(1, len(rates) - 1, 2):
        before, on, after = rates[i - 1][1], rates[i][1], rates[i + 1][1]
        if before and on and after:
            s = 100.0 * (1.0 - on / ((before + after) / 2))
            print("# overhead: %.3g loops/s without, %.3g with, %.3g without: %.2f %%" %
                  (before, on, after, s))
            slow.append(s)
    if slow:
        bench(metric, "%.2f" % statistics.median(slow), "%")
    else:
        skipped(metric, "the fixture printed too few work lines")


def overheads():
    if have_profile():
        overhead("profile.overhead_pct.999hz", gstrace_tracer)
    else:
        skipped("profile.overhead_pct.999hz", "this gstrace has no --profile")
    if shutil.which("bpftrace"):
        overhead("profile.bpftrace.overhead_pct.999hz", bpftrace_tracer)
    else:
        skipped("profile.bpftrace.overhead_pct.999hz", "bpftrace is not installed")


def all_memory():
    """gstrace --profile --all on this machine: peak RSS and rows kept."""
    if not have_profile():
        skipped("profile.all.rss_mb", "this gstrace has no --profile")
        return
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run([GSTRACE, "--profile", "99", "--all", "--duration", "5",
                        "--script-output", "folded", "--verbose"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if r.returncode != 0:
        skipped("profile.all.rss_mb", "gstrace --profile --all exited %d: %s" %
                (r.returncode, r.stderr.strip()[-300:]))
        return
    # ru_maxrss of the children is the largest of any child so far
    if rss_kb > before:
        bench("profile.all.rss_mb", "%.1f" % (rss_kb / 1024.0), "MB")
    else:
        skipped("profile.all.rss_mb", "an earlier child was larger: RUSAGE_CHILDREN cannot "
                "tell (run this first)")
    m = re.search(r"gstrace: profile: (\d+) processes, (\d+) modules, (\d+) unwind rows "
                  r"\((\d+) bytes\)", r.stderr)
    if m:
        print("# %s" % m.group(0))
        bench("profile.all.rows", m.group(3), "rows")
        bench("profile.all.row_bytes", m.group(4), "bytes")
    else:
        skipped("profile.all.rows", "no `gstrace: profile:` line from --verbose")


def main():
    if os.geteuid() != 0:
        for m in ("profile.bpf.run_ns.per_sample", "profile.complete_pct",
                  "profile.overhead_pct.999hz", "profile.all.rss_mb"):
            skipped(m, "needs root")
        return
    stats_path = "/proc/sys/kernel/bpf_stats_enabled"
    stats_was = open(stats_path).read().strip()
    open(stats_path, "w").write("1")
    tmp = tempfile.mkdtemp(prefix="gs-profile-bench-")
    try:
        # first: RUSAGE_CHILDREN's peak is of every child so far
        all_memory()
        deep = L.Fixture([FIXTURE] + DEPTH)
        deep_fp = L.Fixture([FIXTURE_FP] + DEPTH)
        try:
            run_ns(deep, deep_fp, tmp)
        finally:
            deep.finish()
            deep_fp.finish()
        fx = L.Fixture([FIXTURE])
        try:
            complete_pct(fx, tmp)
        finally:
            fx.finish()
        overheads()
    finally:
        open(stats_path, "w").write(stats_was)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
