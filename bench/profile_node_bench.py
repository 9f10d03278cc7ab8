#!/usr/bin/env python3
"""Complete stacks of a busy node program (tests/e2e/fixtures/jit/node_abc.js
under node --perf-basic-prof: JS functions calling fs.statSync in a loop),
gstrace beside perf on the same process in the same run:

  profile.node.complete_pct          % of gstrace --profile 99 samples
                                     whose stack reaches `_start`
  profile.node.names_js_pct          % of them naming a JS function of the
                                     program (from the perf map)
  profile.node.perf_fp.complete_pct  the same of `perf record -F 99
                                     --call-graph fp` (perf reads the same
                                     perf map for names)
  profile.node.perf_fp.names_js_pct
  profile.node[.perf_fp].reaches_libc_pct  % of samples whose stack reaches
                                     libc's start (`__libc_start_call_main`
                                     or below): where a frame-pointer walk
                                     ends, libc's start code keeping no
                                     frame pointer; perf never shows
                                     `_start`, so this is the like-for-like
                                     figure

usage: profile_node_bench.py GSTRACE
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "tests", "e2e", "profile"))
import profile_lib as L  # noqa: E402

GSTRACE = os.path.abspath(sys.argv[1])
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e",
                      "fixtures", "jit", "node_abc.js")
SECONDS = 6
JS = ("jitLeaf", "jitMiddle", "jitOuter")
LIBC_START = ("_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main")


def bench(metric, value, unit):
    print("BENCH %s %s %s" % (metric, value, unit), flush=True)


def skipped(metric, why):
    print("# skipped: %s: %s" % (metric, why), flush=True)


def show(prefix, stacks):
    total = sum(n for _, n in stacks)
    if not total:
        skipped(prefix + ".complete_pct", "no samples")
        return
    done = sum(n for st, n in stacks if L.user_part(st) and L.user_part(st)[0] == "_start")
    js = sum(n for st, n in stacks if any(fn in f for f in st for fn in JS))
    libc = sum(n for st, n in stacks if L.user_part(st) and L.user_part(st)[0] in LIBC_START)
    print("# %s: %d samples, %d complete, %d naming the JS functions" % (prefix, total, done, js))
    bench(prefix + ".complete_pct", "%.2f" % L.pct(done, total), "%")
    bench(prefix + ".names_js_pct", "%.2f" % L.pct(js, total), "%")
    bench(prefix + ".reaches_libc_pct", "%.2f" % L.pct(libc, total), "%")


def main():
    node = shutil.which("node")
    if os.geteuid() != 0 or not node:
        skipped("profile.node.complete_pct", "needs root and node")
        return
    tmp = tempfile.mkdtemp(prefix="gs-node-bench-")
    p = subprocess.Popen([node, "--perf-basic-prof", "--interpreted-frames-native-stack",
                          SCRIPT, "120"], stdout=subprocess.PIPE, text=True, cwd=tmp)
    try:
        if p.stdout.readline().strip() != "ready":
            skipped("profile.node.complete_pct", "the node program did not start")
            return
        time.sleep(1)
        r = subprocess.run([GSTRACE, "--profile", "99", "-p", str(p.pid), "--script-output",
                            "folded", "--duration", str(SECONDS)], capture_output=True, text=True,
                           timeout=SECONDS + 120)
        show("profile.node", L.parse_folded(r.stdout))
        if not shutil.which("perf"):
            skipped("profile.node.perf_fp.complete_pct", "perf is not installed")
            return
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "99", "--call-graph",
                        "fp", "-p", str(p.pid), "-o", data, "--", "sleep", str(SECONDS)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=SECONDS + 60)
        scr = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             timeout=300)
        show("profile.node.perf_fp", L.parse_perf_script(scr.stdout))
    finally:
        p.kill()
        p.wait()
        try:
            os.remove("/tmp/perf-%d.map" % p.pid)  # the runtime leaves it
        except OSError:
            pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
