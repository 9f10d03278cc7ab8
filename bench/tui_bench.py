#!/usr/bin/env python3
"""Benchmarks of the interactive mode, through a real terminal (tmux), as a
user meets them (docs/tui.md, "Under load"):

  tui.trace_add_ms          Enter in the editor to the new trace's first
                            event, on a fixture calling it 1,000 times a
                            second (gstrace measures both ends: `info trace`)
  tui.redraw_fps.100k       redraws a second while 100,000 events/s arrive
                            (`info stats`)
  tui.key_latency_ms.100k   a key sent (tmux send-keys) to the screen showing
                            its effect (capture-pane), under the same load:
                            median and worst of 15
  tui.rss_mb.1m_events      gstrace's resident memory after a million events
                            with the default history

usage: tui_bench.py GSTRACE FIXTURE_SOURCE
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "tui"))
from tmux_term import Term  # noqa: E402  (the tests' terminal)

GSTRACE = os.path.abspath(sys.argv[1])
FIXTURE_SRC = os.path.abspath(sys.argv[2])


def bench(metric, value, unit):
    print("BENCH %s %s %s" % (metric, value, unit), flush=True)


def rss_mb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def trace_add(tmp, fixture):
    fx = subprocess.Popen([fixture, "1000"])
    t = Term("add", "%s --tui -p %d -s 'trace tick_a { print \"a {}\", n; }'" %
             (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"a \d+")
        samples = []
        for i in range(5):
            t.command("trace tick_b")
            t.wait(r"New trace")
            t.type('print "b%d {}", n;' % i)
            t.keys("Enter")
            t.wait(r"b%d \d+" % i)
            time.sleep(0.3)
            t.command("info trace %d" % (i + 2))
            # this trace's answer (its script names b<i>): the previous
            # trace's answer may still be on the screen above it
            m = t.wait(r'"b%d \{\}", n;\n\}\n\s*first event ([\d.]+) ms after Enter' % i)
            samples.append(float(m.group(1)))
            t.command("delete %d" % (i + 2))
        bench("tui.trace_add_ms", "%.1f" % statistics.median(samples), "ms")
        print("# tui.trace_add_ms samples: %s" % " ".join("%.1f" % s for s in samples))
    finally:
        t.close()
        fx.kill()
        fx.wait()


def under_load(tmp, fixture):
    fx = subprocess.Popen([fixture, "50000"])
    t = Term("load", "%s --tui -p %d -s 'trace tick_a { print \"a {}\", n; } "
             "trace tick_b { print \"b {}\", n; }'" % (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"a \d+")
        time.sleep(3)
        t.command("info stats")
        m = t.wait(r"lost (\d+), not shown (\d+); redraws ([\d.]+)/s, events ([\d.]+)/s")
        bench("tui.redraw_fps.100k", m.group(3), "fps")
        bench("tui.events_per_s.100k", m.group(4), "events/s")
        print("# the fixture asks for 100,000 events/s; delivered %s/s, lost %s, not "
              "rendered %s (the line mode's rate on the same fixture: "
              "line.events_per_s.100k)" % (m.group(4), m.group(1), m.group(2)))
        # focus the source panel, then move its cursor: the title's line
        # number changes when the screen shows the key's effect
        t.keys("Escape")
        lat = []
        for _ in range(15):
            before = re.search(r"\[(\d+)/\d+\]", t.screen())
            cur = int(before.group(1)) if before else 0
            key = "j" if cur < 5 else "k"
            want = cur + 1 if key == "j" else cur - 1
            t0 = time.time()
            t.keys(key)
            t.wait(r"\[%d/\d+\]" % want, timeout=5, poll=0.005)
            lat.append((time.time() - t0) * 1000)
            time.sleep(0.05)
        bench("tui.key_latency_ms.100k", "%.1f" % statistics.median(lat), "ms")
        bench("tui.key_latency_ms.100k.max", "%.1f" % max(lat), "ms")
        # a million events
        gpid = t.gstrace_pid()
        deadline = time.time() + 60
        while time.time() < deadline:
            t.command("info stats")
            m = t.wait(r"events (\d+) delivered")
            if int(m.group(1)) >= 1000000:
                break
            time.sleep(1)
        bench("tui.rss_mb.1m_events", "%.1f" % rss_mb(gpid), "MB")
    finally:
        t.close()
        fx.kill()
        fx.wait()


def line_mode_rate(tmp, fixture):
    """The peer of the load: the line mode's events/s on the same fixture,
    printing to /dev/null (what the machine's uprobes deliver at all)."""
    fx = subprocess.Popen([fixture, "50000"])
    try:
        time.sleep(0.3)
        out = os.path.join(tmp, "line.txt")
        with open(out, "w") as f:
            p = subprocess.Popen([GSTRACE, "-p", str(fx.pid), "--script-output", "plain",
                                  "--emit-ready-marker", "READY", "-s",
                                  'trace tick_a { print "a {}", n; } '
                                  'trace tick_b { print "b {}", n; }'],
                                 stdout=f, stderr=subprocess.PIPE, text=True)
            p.stderr.readline()
            t0 = time.time()
            time.sleep(3)
            p.send_signal(2)
            p.wait()
            elapsed = time.time() - t0
        n = sum(1 for _ in open(out))
        bench("line.events_per_s.100k", "%.0f" % (n / elapsed), "events/s")
    finally:
        fx.kill()
        fx.wait()


def main():
    if not shutil.which("tmux") or os.geteuid() != 0:
        print("# skipped: tui.*: needs tmux and root")
        return
    tmp = tempfile.mkdtemp(prefix="gstui-bench-")
    try:
        fixture = os.path.join(tmp, "tui_target")
        subprocess.run(["gcc", "-g", "-O0", "-o", fixture, FIXTURE_SRC], check=True)
        trace_add(tmp, fixture)
        line_mode_rate(tmp, fixture)
        under_load(tmp, fixture)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
