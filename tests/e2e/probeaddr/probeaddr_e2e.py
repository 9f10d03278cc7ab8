#!/usr/bin/env python3
"""Where gstrace probes against where gdb's `break` stops:
the addresses `gstrace --dry-run` plans for `trace NAME` and `trace
FILE:LINE` equal the locations of gdb's `break NAME` / `break FILE:LINE` on
the same file (every copy, out-of-line and inlined, as gdb lists them under
one breakpoint). Static: no process runs, but in the events mode.

usage: probeaddr_e2e.py GSTRACE MODE ARGS...
  functions [--qualified] [--source S] BINARY...
                              every function `gstrace -l '*'` lists (with S:
                              only those defined in files whose name holds
                              S: the fixture's own, not the template
                              instances of its standard library); with
                              --qualified, the qualified names gdb's `info
                              functions` gives the functions of S's files
  lines SOURCE COUNT BINARY...
                              COUNT lines of SOURCE (seeded), as file:line
  sample COUNT BINARY         COUNT of the binary's functions (seeded), e.g.
                              of a pyenv -O3 libpython; skips without it
  events BINARY               probe_entry_program -O2 launched under gstrace:
                              its one-line function (first row: its whole
                              body) fires once a call, its looping main once

A name gdb sets no breakpoint on at all is reported and not compared: gdb
has no answer there (it matches C++ names against the demangled linkage
name, whose template arguments can differ from DW_AT_name's:
`optional<int>` is `optional<int, true>`). A name where gdb has locations
and gstrace differs fails the test.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

GDB_SCRIPT = r'''
import gdb, json
gdb.execute("set breakpoint pending off")
gdb.execute("set confirm off")
out = {}
for spec in json.load(open(SPECS)):
    try:
        b = gdb.Breakpoint(spec)
    except gdb.error as e:
        out[spec] = None
        continue
    out[spec] = sorted({int(l.address) for l in b.locations})
    b.delete()
json.dump(out, open(OUT, "w"))
'''


def gdb_locations(binary, specs, tmp):
    """spec -> sorted addresses of gdb's `break spec`, None where gdb refuses."""
    specs_file = os.path.join(tmp, "specs.json")
    out_file = os.path.join(tmp, "gdb.json")
    script = os.path.join(tmp, "break.py")
    json.dump(specs, open(specs_file, "w"))
    with open(script, "w") as f:
        f.write("SPECS = %r\nOUT = %r\n%s" % (specs_file, out_file, GDB_SCRIPT))
    r = subprocess.run(["gdb", "-nx", "-batch", "-x", script, binary],
                       capture_output=True, text=True, timeout=600)
    if not os.path.exists(out_file):
        raise SystemExit("gdb failed on %s:\n%s" % (binary, r.stderr[-3000:]))
    return json.load(open(out_file))


def dry_run(gstrace, binary, specs, tmp):
    """(spec -> sorted addresses, spec -> gstrace's refusal): runs of up to
    200 traces; a trace gstrace refuses (its message names its line) is
    taken out and the rest run again."""
    addrs, refused = {}, {}
    path = os.path.join(tmp, "probes.gs")
    for start in range(0, len(specs), 200):
        part = specs[start:start + 200]
        while part:
            with open(path, "w") as f:
                for i, s in enumerate(part):
                    f.write('trace %s { print "%d"; }\n' % (s, i))
            r = subprocess.run([gstrace, "--dry-run", "--max-probes", "1000000", "-t", binary,
                                "--script-file", path],
                               capture_output=True, text=True, timeout=600)
            if r.returncode == 0:
                for line in r.stdout.splitlines():
                    m = re.match(r"trace #(\d+) .*?: \S+ 0x([0-9a-f]+) \(file offset", line)
                    if m:
                        addrs.setdefault(part[int(m.group(1))], set()).add(
                            int(m.group(2), 16))
                break
            m = re.search(re.escape(path) + r":(\d+):", r.stderr)
            if not m or not 1 <= int(m.group(1)) <= len(part):
                raise SystemExit("gstrace failed on %s:\n%s" % (binary, r.stderr[-3000:]))
            bad = int(m.group(1)) - 1
            refused[part[bad]] = r.stderr.strip().splitlines()[0]
            part = part[:bad] + part[bad + 1:]
    return {s: sorted(v) for s, v in addrs.items()}, refused


def function_names(gstrace, binary, source=None):
    out = subprocess.run([gstrace, "-t", binary, "-l", "*"], capture_output=True, text=True,
                         check=True).stdout
    names = []
    for line in out.splitlines()[1:]:
        m = re.match(r"  (.+?)\s{2,}(\S+)", line)
        if not m or " " in m.group(1):
            continue
        if source and source not in m.group(2):
            continue
        if m.group(1) not in names:
            names.append(m.group(1))
    return names


def compare(gstrace, binary, specs):
    tmp = tempfile.mkdtemp(prefix="gs-probeaddr-")
    try:
        ours, refused = dry_run(gstrace, binary, specs, tmp)
        gdbs = gdb_locations(binary, specs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    equal, differ, gdb_none = 0, [], []
    for s in specs:
        theirs = gdbs.get(s)
        if not theirs:
            gdb_none.append(s)
            continue
        mine = ours.get(s, [])
        if mine == theirs:
            equal += 1
        else:
            differ.append("%s: gstrace %s, gdb %s%s" % (
                s, [hex(a) for a in mine], [hex(a) for a in theirs],
                " (%s)" % refused[s] if s in refused else ""))
    name = os.path.basename(binary)
    print("%s: %d of %d equal to gdb's break; gdb sets none on %d" %
          (name, equal, equal + len(differ), len(gdb_none)))
    for s in gdb_none:
        print("  gdb sets no breakpoint on %s (gstrace: %s)" % (
            s, [hex(a) for a in ours.get(s, [])] or refused.get(s, "none")))
    for d in differ:
        print("  DIFFERENT %s" % d)
    if equal == 0:
        print("FAIL: nothing compared for %s" % name)
        return False
    return not differ


def qualified_names(binary, source):
    """The qualified names gdb's `info functions` gives the functions of
    files whose path holds source (`geo::Point::scale`, `crate::main`):
    Rust's, which gdb matches only qualified. Closures and impl blocks
    (`{closure#0}`) have no name a script can write."""
    out = subprocess.run(["gdb", "-nx", "-batch", "-ex", "info functions -q -n", binary],
                         capture_output=True, text=True, timeout=600).stdout
    names, take = [], False
    for line in out.splitlines():
        if line.startswith("File "):
            take = source in line
            continue
        m = re.match(r"^\d+:\s+(.*);$", line)
        if not take or not m:
            continue
        decl, depth, end = m.group(1), 0, None
        for i, ch in enumerate(decl):
            depth += ch == "<"
            depth -= ch == ">" and depth > 0
            if ch == "(" and depth == 0 and not decl[:i].endswith("operator"):
                end = i
                break
        head = decl[:end]
        depth, cut = 0, 0
        for i, ch in enumerate(head):
            depth += ch == "<"
            depth -= ch == ">" and depth > 0
            if ch == " " and depth == 0:
                cut = i + 1
        name = head[cut:]
        if name and "{" not in name and name not in names:
            names.append(name)
    return names


def source_lines(path, count, seed):
    n = sum(1 for _ in open(path, errors="replace"))
    rng = random.Random(seed)
    return sorted(rng.sample(range(1, n + 1), min(count, n)))


def events(gstrace, binary):
    """The fixture makes 150 calls, 100 a second, and says how many."""
    script = 'trace tui_tick { print "tick"; } trace main { print "main"; }'
    env = dict(os.environ, PROBE_ENTRY_CALLS="150")
    r = subprocess.run([gstrace, "--script-output", "plain", "-s", script, "--", binary],
                       capture_output=True, text=True, timeout=120, env=env)
    m = re.search(r"^calls (\d+)$", r.stdout, re.M)
    ticks = len(re.findall(r"^\s*tick$", r.stdout, re.M))
    mains = len(re.findall(r"^\s*main$", r.stdout, re.M))
    print("%s: %s calls, %d tui_tick events, %d main events (gstrace exit %d)" %
          (os.path.basename(binary), m.group(1) if m else "no", ticks, mains, r.returncode))
    ok = r.returncode == 0 and m and ticks == int(m.group(1)) and mains == 1
    if not ok:
        print("FAIL: want one tui_tick event a call and one main event\n%s" % r.stderr[-2000:])
    # A probe that cannot fire is refused, saying why: the second byte of
    # tui_tick's first instruction (`mov (%rdi),%eax`, 8b 07).
    d = subprocess.run([gstrace, "--dry-run", "-t", binary, "-s", 'trace tui_tick { print "x"; }'],
                       capture_output=True, text=True, timeout=60).stdout
    entry = int(re.search(r" 0x([0-9a-f]+) \(file offset", d).group(1), 16)
    r = subprocess.run([gstrace, "-s", 'trace 0x%x { print "mid"; }' % (entry + 1), "--", binary],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PROBE_ENTRY_CALLS="5"))
    refused = r.returncode == 2 and "not an instruction's first byte" in r.stderr
    print("a probe inside an instruction (0x%x): exit %d, %s" %
          (entry + 1, r.returncode, r.stderr.strip().splitlines()[0] if r.stderr.strip() else "-"))
    if not refused:
        print("FAIL: want exit 2 and the reason")
    return ok and refused


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    gstrace, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if shutil.which("gdb") is None:
        print("skipped: gdb is not installed; it is the reference for probe addresses")
        return SKIP
    source, qualified = None, False
    if mode == "functions" and args[0] == "--qualified":
        qualified, args = True, args[1:]
    if mode == "functions" and args[0] == "--source":
        source, args = args[1], args[2:]
    elif mode == "lines":
        source, count, args = args[0], int(args[1]), args[2:]
    elif mode == "sample":
        count, args = int(args[0]), args[1:]
    binaries = [b for b in args if os.path.exists(b)]
    for b in args:
        if b not in binaries:
            print("not compared: %s is not there (its compiler or package is not installed)" % b)
    if not binaries:
        print("skipped: none of %s was built" % " ".join(args))
        return SKIP
    if mode == "events":
        return 0 if events(gstrace, binaries[0]) else 1
    ok = True
    for binary in binaries:
        if mode == "functions" and qualified:
            specs = qualified_names(binary, source)
        elif mode == "functions":
            specs = function_names(gstrace, binary, source)
        elif mode == "lines":
            base = os.path.basename(source)
            specs = ["%s:%d" % (base, line) for line in source_lines(source, count, 32)]
        elif mode == "sample":
            names = function_names(gstrace, binary)
            specs = random.Random(32).sample(names, min(count, len(names)))
        else:
            raise SystemExit("unknown mode %s\n%s" % (mode, __doc__))
        ok = compare(gstrace, binary, specs) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
