#!/usr/bin/env python3
"""JIT frames end to end (docs/jit.md): the real runtimes, their perf maps
and the frame-pointer step of the loop walker.

Scenarios (one meson test each):
  node-bt        node --perf-basic-prof on fixtures/jit/node_abc.js:
                 `bt` at libc's syscall (fs.statSync's statx) names
                 jitLeaf, jitMiddle, jitOuter from the perf map, in that
                 order, and is complete to _start
  node-profile   --profile 99 folded on the same program: samples name
                 the JS functions, stacks end at _start
  java-bt        java -XX:+PreserveFramePointer on fixtures/jit/JitAbc.java
                 and `jcmd PID Compiler.perfmap`: `bt` at libc's stat names
                 the three Java methods and is complete to _start
  java-profile   --profile 99 folded on it

Every stack: no anonymous pc attributed to a module file (a frame
`node+0x7f...` or any module offset past the file) and no frame left as a
bare address.

usage: jit_e2e.py GSTRACE SCENARIO FIXTURE_DIR
Exit status: 0 passed, 1 failed, 77 skipped (saying why).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from e2e_lib import fail, problems, skip  # noqa: E402

GSTRACE, SCENARIO = os.path.abspath(sys.argv[1]), sys.argv[2]
FIXTURES = os.path.abspath(sys.argv[3])
FUNCS = ["jitLeaf", "jitMiddle", "jitOuter"]
# Where a complete stack ends: node's main thread runs the script, Java's
# main method runs in a thread of its own.
ROOTS = {"node": ("_start",), "java": ("__clone3", "clone3", "__clone", "clone")}
# A complete stack's share of the profile's samples: the rest are samples
# taken while the runtime was in a frame that keeps no frame pointer (a
# stub's first instruction) or when the perf map was a little behind.
COMPLETE_MIN = 90.0


def need_tracing():
    if os.geteuid() != 0:
        skip("needs root (uprobes, perf events)")


def start(argv, ready, timeout=60):
    """argv started, once it printed `ready` on stdout."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         cwd=tempfile.gettempdir())
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        if line.strip() == ready:
            return p
    p.kill()
    p.wait()
    fail("%s did not get ready" % " ".join(argv))
    return None


def gstrace(args, timeout=90):
    r = subprocess.run([GSTRACE] + args, capture_output=True, text=True, timeout=timeout)
    print("$ gstrace " + " ".join(args) + "  (exit %d)" % r.returncode)
    if r.returncode != 0:
        fail("gstrace exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    return r.stdout


def bad_module_frame(frame):
    """A frame `module+0xoff` whose offset no file of a runtime has: an
    anonymous pc attributed to a module (node+0x7f8b8afc6745)."""
    m = re.search(r"\+0x([0-9a-f]+)\]?$", frame)
    return m is not None and int(m.group(1), 16) >= 1 << 32


def blocks(text):
    """Each backtrace of pretty output: (header, [frame lines])."""
    out, cur = [], None
    for line in text.splitlines():
        if line.strip().startswith("backtrace:"):
            cur = (line.strip(), [])
            out.append(cur)
        elif cur is not None and re.match(r"\s+#\d+ ", line):
            cur[1].append(line.strip())
        elif cur is not None and not line.startswith(" "):
            cur = None
    return out


def check_bt(text, funcs, roots):
    bts = blocks(text)
    if not bts:
        fail("no backtrace printed")
    for header, frames in bts:
        names = [f for f in frames if ".inline" not in f.split()[0]]
        where = [next((i for i, f in enumerate(names) if re.search(r"[^A-Za-z0-9_$]%s\b" % fn, f)), -1)
                 for fn in funcs]
        if -1 in where or where != sorted(where):
            fail("%s not all named, in order, in:\n  %s" % (funcs, "\n  ".join(frames)))
        last = names[-1].split()[1] if names else ""
        if "complete" not in header or last not in roots:
            fail("not complete to %s: %s, last %s" % ("/".join(roots), header, names[-1:]))
        for f in names:
            if bad_module_frame(f):
                fail("anonymous pc named after a module: " + f)
            if re.match(r"#\d+ 0x[0-9a-f]+ \[0x", f):
                fail("a frame left as an address: " + f)
    print("%d backtraces; the first:\n  %s\n  %s" % (len(bts), bts[0][0] if bts else "",
                                                     "\n  ".join(bts[0][1]) if bts else ""))


def check_profile(text, funcs, roots):
    total = named = complete = 0
    for line in text.splitlines():
        m = re.match(r"^(.*) (\d+)$", line)
        if not m:
            continue
        stack, n = m.group(1).split(";"), int(m.group(2))
        total += n
        if any(fn in f for f in stack for fn in funcs):
            named += n
        if stack and stack[0] in roots:
            complete += n
        for f in stack:
            if bad_module_frame(f):
                fail("anonymous pc named after a module: " + f)
    if not total:
        fail("no samples")
        return
    print("samples %d, naming %s: %.1f %%, complete (to %s): %.1f %%" %
          (total, funcs, 100.0 * named / total, "/".join(roots), 100.0 * complete / total))
    if named * 2 < total:
        fail("fewer than half the samples name %s" % funcs)
    if 100.0 * complete / total < COMPLETE_MIN:
        fail("complete stacks %.1f %% < %.0f %%" % (100.0 * complete / total, COMPLETE_MIN))


def node_process():
    node = shutil.which("node")
    if not node:
        skip("node is not installed")
    need_tracing()
    return start([node, "--perf-basic-prof", "--interpreted-frames-native-stack",
                  "--no-turbo-inlining", os.path.join(FIXTURES, "node_abc.js"), "120"], "ready")


def java_process(workdir):
    javac, java, jcmd = shutil.which("javac"), shutil.which("java"), shutil.which("jcmd")
    if not (javac and java and jcmd):
        skip("no JDK here (javac, java and jcmd are needed)")
    need_tracing()
    subprocess.run([javac, "-d", workdir, os.path.join(FIXTURES, "JitAbc.java")], check=True)
    p = start([java, "-XX:+PreserveFramePointer", "-XX:CompileCommand=quiet",
               "-XX:CompileCommand=dontinline,JitAbc::*", "-cp", workdir, "JitAbc", "120"],
              "ready")
    if p:
        time.sleep(2)  # the three methods compiled
        subprocess.run([jcmd, str(p.pid), "Compiler.perfmap"], check=True,
                       capture_output=True)
    return p


def remove_perf_map(pid):
    """The runtimes leave their perf map behind."""
    try:
        os.remove("/tmp/perf-%d.map" % pid)
    except OSError:
        pass


def run(proc, bt_func, profile, roots):
    if not proc:
        return
    try:
        pid = str(proc.pid)
        if profile:
            out = gstrace(["--profile", "99", "-p", pid, "--script-output", "folded",
                           "--duration", "5"])
            check_profile(out, FUNCS, roots)
        else:
            out = gstrace(["-p", pid, "-s", "trace %s { bt; }" % bt_func, "--max-events", "3",
                           "--duration", "20"])
            check_bt(out, FUNCS, roots)
    finally:
        proc.kill()
        proc.wait()
        remove_perf_map(proc.pid)


def main():
    if SCENARIO.startswith("node-"):
        run(node_process(), "syscall", SCENARIO == "node-profile", ROOTS["node"])
    elif SCENARIO.startswith("java-"):
        with tempfile.TemporaryDirectory() as d:
            run(java_process(d), "stat", SCENARIO == "java-profile", ROOTS["java"])
    else:
        fail("unknown scenario " + SCENARIO)
    if problems:
        print("%d problem(s)" % len(problems))
        sys.exit(1)
    print("PASS")


main()
