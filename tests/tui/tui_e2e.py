#!/usr/bin/env python3
"""gstrace --tui in a real terminal: tmux runs it against the fixture
(tui_target.c), send-keys types as a user does, capture-pane reads the
screen. Each scenario checks what the issue asks of the interactive mode:
a file opened by fuzzy search, a trace set on a line and on a function,
info commands, disable/enable/delete, an edit while another trace prints
(none of its events lost), save traces read back by --script-file,
srcpath for moved sources, resize, and every way out (quit, Ctrl-C twice,
SIGTERM, the target's exit) leaving the terminal as it was (stty -a) and
nothing attached.

usage: tui_e2e.py GSTRACE FIXTURE_BINARY FIXTURE_SOURCE [SCENARIO...]
"""
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tmux_term import Fail, Term

GSTRACE, FIXTURE, FIXTURE_SRC = (os.path.abspath(a) for a in sys.argv[1:4])
ONLY = sys.argv[4:]
SOURCE = open(FIXTURE_SRC).read().split("\n")


def line_of(text):
    """1-based line of the fixture source holding text."""
    for i, l in enumerate(SOURCE):
        if text in l:
            return i + 1
    raise AssertionError("fixture has no line with %r" % text)


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def bpf_attachments(pid):
    """Links and perf events gstrace pid holds (what keeps a probe on)."""
    n = 0
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            n += "bpf_link" in t or "perf_event" in t
    except OSError:
        return 0
    return n


def start_fixture(*args, binary=FIXTURE):
    p = subprocess.Popen([binary] + [str(a) for a in args], stdout=subprocess.DEVNULL)
    time.sleep(0.2)
    return p


@contextlib.contextmanager
def tui_on_fixture(name, tmp, per_sec):
    """gstrace --tui -p on a fixture calling per_sec times a second; the
    scenario's body runs, then `quit` ends gstrace; both always go."""
    fx = start_fixture(per_sec)
    t = Term(name, "%s --tui -p %d" % (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"Source:")
        yield t
        command(t, "quit")
        t.ended()
    finally:
        t.close()
        fx.kill()
        fx.wait()


def command(t, line):
    t.command(line)


def hits(t, trace_id):
    m = re.search(r"#%d(\(off\))?: (\d+)" % trace_id, t.screen())
    return int(m.group(2)) if m else None


# ---- scenarios -------------------------------------------------------------

def scenario_main(tmp):
    """Fuzzy open, a line trace, info commands, a function trace, disable,
    enable, an edit while the other prints, save traces and output, delete,
    quit."""
    fx = start_fixture(200)
    t = Term("main", "%s --tui --tui-history 200000 -p %d" % (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"Source:")
        t.keys("o")
        t.wait(r"Open a source file")
        t.type("tuitarg")
        t.wait(r"tui_target\.c")
        t.keys("Enter")
        t.wait(r"Source: \S*tui_target\.c")
        line_a = line_of("sink += n;")
        t.type("%dG" % line_a)
        t.wait(r"\[%d/" % line_a)
        t.wait(r"in tick_a\(\)")
        t.keys("Space")
        t.wait(r"New trace")
        t.wait(r"trace tui_target\.c:%d \{" % line_a)
        t.type('print "A n={} banner={:s}", n, banner;')
        t.keys("Enter")
        t.wait(r"A n=\d+")
        # the target's escape sequence and bell show as text
        t.wait(r"banner=.*\\x1b\[2J")
        t.wait(r"●")
        command(t, "info function tick_*")
        t.wait(r"tick_b")
        command(t, "info line tui_target.c:%d" % line_of("p->x +="))
        t.wait(r"Line %d of \"tui_target.c\" is at address 0x[0-9a-f]+" % line_of("p->x +="))
        command(t, "info address tick_b")
        t.wait(r'Symbol "tick_b" is a function at address 0x[0-9a-f]+')
        command(t, "info scope tick_b")
        t.wait(r"\bp\b.*struct point")
        command(t, "info share")
        t.wait(r"libc\.so")
        command(t, "trace tick_b")
        t.wait(r"New trace")
        t.type('print "B n={} x={}", n, p->x;')
        t.keys("Enter")
        t.wait(r"B n=\d+ x=")
        t.wait(r"#2: \d+")
        command(t, "disable 2")
        t.wait(r"#2\(off\):")
        time.sleep(0.5)
        h = hits(t, 2)
        time.sleep(1.0)
        if hits(t, 2) != h:
            raise Fail("trace #2 kept counting while disabled:\n" + t.screen())
        command(t, "enable 2")
        t.wait(r"#2: ")
        time.sleep(0.6)
        if hits(t, 2) <= h:
            raise Fail("trace #2 did not come back after enable:\n" + t.screen())
        # edit #2 while #1 prints: the editor opens on its script
        command(t, "edit 2")
        t.wait(r"Edit trace #2")
        t.keys("Up", "Home")
        t.type('print "B2 edited"; ')
        t.keys("Enter")
        t.wait(r"B2 edited")
        # a wrong edit: the message and its caret in the editor, #2 unchanged
        command(t, "edit 2")
        t.wait(r"Edit trace #2")
        t.keys("Up", "Home")
        t.type("print nosuchvar; ")
        t.keys("Enter")
        t.wait(r"nosuchvar")
        t.wait(r"\^")
        t.keys("Escape")
        t.wait(r"Edit trace #2", absent=True)
        time.sleep(0.5)
        out = os.path.join(tmp, "output.txt")
        command(t, "save output " + out)
        t.wait(r"lines saved to")
        saved = os.path.join(tmp, "saved.gs")
        command(t, "save traces " + saved)
        t.wait(r"traces saved to")
        command(t, "delete 2")
        t.wait(r"#2: ", absent=True)
        command(t, "info trace")
        t.wait(r"#1 enabled")
        command(t, "quit")
        rc = t.ended()
        if rc != 0:
            raise Fail("quit: exit status %d" % rc)
        t.check_restored()
    finally:
        t.close()
        fx.kill()
        fx.wait()
    # every event of trace #1 was delivered: its n runs without a gap
    ns = [int(m) for m in re.findall(r"A n=(\d+)", open(out).read())]
    if len(ns) < 50:
        raise Fail("only %d events of trace #1" % len(ns))
    gaps = [(a, b) for a, b in zip(ns, ns[1:]) if b != a + 1]
    if gaps:
        raise Fail("trace #1 lost events across the other's changes: %s" % gaps[:5])
    # the saved traces are a script the line mode reads back
    fx = start_fixture(200)
    try:
        r = subprocess.run([GSTRACE, "--dry-run", "-p", str(fx.pid), "--script-file", saved],
                           capture_output=True, text=True, timeout=60)
    finally:
        fx.kill()
        fx.wait()
    text = open(saved).read()
    if r.returncode != 0 or "tui_target.c:%d" % line_a not in text or "tick_b" not in text:
        raise Fail("save traces: --script-file read back gave %d:\n%s\n%s" %
                   (r.returncode, r.stderr, text))


def scenario_sigterm_and_exit(tmp):
    """The target's exit detaches everything and says so; SIGTERM then
    ends gstrace with the terminal restored."""
    fx = start_fixture(100, 300)
    t = Term("exit", "%s --tui -p %d -s 'trace tick_a { print \"n={}\", n; }'" %
             (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"n=\d+")
        gpid = t.gstrace_pid()
        if bpf_attachments(gpid) == 0:
            raise Fail("no probe attached while tracing")
        fx.wait(timeout=30)
        t.wait(r"process %d exited" % fx.pid)
        if bpf_attachments(gpid):
            raise Fail("probes still attached after the target exited")
        os.kill(gpid, signal.SIGTERM)
        rc = t.ended()
        t.check_restored()
        if rc != 0:
            raise Fail("SIGTERM: exit status %d" % rc)
    finally:
        t.close()
        fx.kill()
        fx.wait()


def scenario_ctrl_c(tmp):
    """Ctrl-C once warns; twice quits, the terminal restored."""
    fx = start_fixture(50)
    t = Term("ctrlc", "%s --tui -p %d" % (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"Source:")
        gpid = t.gstrace_pid()
        t.keys("C-c")
        t.wait(r"press Ctrl-C again")
        t.keys("C-c")
        t.ended()
        t.check_restored()
        # SIGINT from outside, twice, ends it too
        t2 = Term("sigint", "%s --tui -p %d" % (GSTRACE, fx.pid), tmp)
        try:
            t2.wait(r"Source:")
            gpid = t2.gstrace_pid()
            os.kill(gpid, signal.SIGINT)
            t2.wait(r"press Ctrl-C again")
            os.kill(gpid, signal.SIGINT)
            t2.ended()
            t2.check_restored()
        finally:
            t2.close()
    finally:
        t.close()
        fx.kill()
        fx.wait()


def scenario_srcpath(tmp):
    """Sources moved after the build: not found, then found through
    `srcpath map` (and --srcpath)."""
    build = os.path.join(tmp, "build", "src")
    moved = os.path.join(tmp, "moved")
    os.makedirs(build)
    src = os.path.join(build, "tui_target.c")
    shutil.copy(FIXTURE_SRC, src)
    binary = os.path.join(tmp, "tui_moved")
    subprocess.run(["gcc", "-g", "-O0", "-o", binary, src], check=True)
    shutil.move(build, moved)
    fx = start_fixture(50, binary=binary)
    t = Term("srcpath", "%s --tui -p %d" % (GSTRACE, fx.pid), tmp)
    try:
        t.wait(r"Source: \S*tui_target\.c")
        t.wait(r"not found on this machine")
        command(t, "srcpath map %s %s" % (build, moved))
        t.wait(r"The interactive mode's fixture")
        command(t, "info source")
        t.wait(r"Read from %s" % re.escape(os.path.join(moved, "tui_target.c")))
        command(t, "quit")
        t.ended()
        t.check_restored()
        t2 = Term("srcpath2", "%s --tui --srcpath %s=%s -p %d" %
                  (GSTRACE, build, moved, fx.pid), tmp)
        try:
            t2.wait(r"The interactive mode's fixture")
            command(t2, "quit")
            t2.ended()
        finally:
            t2.close()
    finally:
        t.close()
        fx.kill()
        fx.wait()


# Enter in the editor to the new trace's first event on the screen: under
# 150 ms on a loaded 2-core machine (the add, up to 50 ms for the next
# call, a redraw), 60 ms at the median (docs/tui.md).
FIRST_EVENT_BOUND_MS = 500
FIRST_EVENT_ADDS = 8


def scenario_first_event(tmp):
    """A new trace's first event is on the screen within FIRST_EVENT_BOUND_MS
    of Enter, FIRST_EVENT_ADDS times in a row. The loop sleeps on
    the live session's descriptor, which the programs do not wake per
    event; the fixture calls the function 20 times a second, so the first
    call comes after the turn of the Enter key, and nothing else is
    traced to wake the loop. Without the descriptor's tick the event
    would wait for the loop's once-a-second tick, half a second on
    average: eight adds in a row would pass about once in 256 runs."""
    ms = []
    with tui_on_fixture("first", tmp, 20) as t:
        for i in range(FIRST_EVENT_ADDS):
            command(t, "trace tick_b")
            t.wait(r"New trace")
            t.type('print "first%d {}", n;' % i)
            t0 = time.time()
            t.keys("Enter")
            t.wait(r"first%d \d+" % i, poll=0.005)
            ms.append((time.time() - t0) * 1000)
            command(t, "delete %d" % (i + 1))
            t.wait(r"#%d: " % (i + 1), absent=True)
    said = " ".join("%.0f" % m for m in ms)
    if max(ms) >= FIRST_EVENT_BOUND_MS:
        raise Fail("Enter to the first event on the screen: %s ms (bound %d ms)" %
                   (said, FIRST_EVENT_BOUND_MS))
    print("# Enter to the first event on the screen: %s ms" % said)


def scenario_resize(tmp):
    """Below 80x24 a message says so; back above, the panels return."""
    with tui_on_fixture("resize", tmp, 50) as t:
        t.tmux("resize-window", "-t", "t", "-x", "70", "-y", "20")
        t.wait(r"needs a terminal of at least 80x24")
        t.tmux("resize-window", "-t", "t", "-x", "100", "-y", "30")
        t.wait(r"Source:")


def scenario_launch(tmp):
    """-- CMD: the command runs once the traces are attached, its end is
    said, and the first call is traced."""
    t = Term("launch", "%s --tui -s 'trace tick_a { print \"L n={}\", n; }' -- %s 200 100" %
             (GSTRACE, FIXTURE), tmp)
    try:
        t.wait(r"the command \(pid \d+\) ended with status 0", timeout=20)
        out = os.path.join(tmp, "launch.txt")
        command(t, "save output " + out)
        t.wait(r"lines saved to")
        ns = [int(m) for m in re.findall(r"L n=(\d+)", open(out).read())]
        if ns != list(range(1, 101)):
            raise Fail("launch: calls traced %s, want 1..100" % ns[:10])
        command(t, "quit")
        t.ended()
        t.check_restored()
    finally:
        t.close()


def scenario_no_color(tmp):
    """Colours by default, none with NO_COLOR; wide characters take two
    columns and show whole."""
    fx = start_fixture(50)
    colors = {}
    try:
        for name, env in (("color", ""), ("nocolor", "env NO_COLOR=1 ")):
            t = Term(name, "%s%s --tui -p %d" % (env, GSTRACE, fx.pid), tmp)
            try:
                t.wait(r"Source:")
                t.wait(r"幅広い文字")
                # the line holding them ends where its columns say
                raw = t.tmux("capture-pane", "-p", "-e", "-t", "t")
                colors[name] = bool(re.search(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)", raw))
                command(t, "quit")
                t.ended()
                t.check_restored()
            finally:
                t.close()
    finally:
        fx.kill()
        fx.wait()
    if not colors["color"] or colors["nocolor"]:
        raise Fail("colours: default %s, NO_COLOR %s" % (colors["color"], colors["nocolor"]))


SCENARIOS = {
    "main": scenario_main,
    "exit": scenario_sigterm_and_exit,
    "ctrl-c": scenario_ctrl_c,
    "srcpath": scenario_srcpath,
    "first-event": scenario_first_event,
    "resize": scenario_resize,
    "launch": scenario_launch,
    "no-color": scenario_no_color,
}


def main():
    if not shutil.which("tmux"):
        skip("tmux is not installed (scripts/deps installs it)")
    if os.geteuid() != 0:
        skip("tracing needs root (bpf and uprobes)")
    failed = 0
    for name, fn in SCENARIOS.items():
        if ONLY and name not in ONLY:
            continue
        tmp = tempfile.mkdtemp(prefix="gstui-")
        t0 = time.time()
        try:
            fn(tmp)
            print("ok   %s (%.1f s)" % (name, time.time() - t0))
        except (Fail, subprocess.SubprocessError, OSError) as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
