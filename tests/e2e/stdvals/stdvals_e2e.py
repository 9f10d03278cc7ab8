#!/usr/bin/env python3
"""C++ and Rust standard-library values against gdb.

One fixture process per build variant: gdb attaches at its probe with the
printers a user has (libstdc++'s for C++, rust-gdb's for Rust) and prints
every name the fixture lists in its `@names FUNC:` comment lines; gstrace
then traces the same process and prints the same names. Same process, same
values on every call, so the two texts must be equal, heap addresses too.
A JSON pass checks that the JSON parses and names every value.

gdb runs with `set print elements 200`, gstrace with its default (200,
`--max-elements`). gstrace prints the names in traces of CHUNK values each,
so that every value has the room its 200 elements take in one event (a
trace printing more lowers its element cap until they fit).

usage: stdvals_e2e.py GSTRACE KIND VARIANT BINARY SOURCE [--gdb-seen FILE]
  KIND: cpp (gdb with libstdc++'s printers) or rust:PATH-TO-RUST-GDB
  --gdb-seen FILE: also write what gdb printed for every name to FILE,
                  with the printers and without
Exit status: 0 all EQUAL (or a known spelling difference), 1 a DIFF,
77 skipped (the variant's compiler is missing: BINARY is absent).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

ELEMENTS = 200
CHUNK = 2

# Differences of spelling only, accepted: (variant or "*", name) -> why.
# Start empty; every entry says why gdb's text is not the one to match.
KNOWN_SPELLING = {
    ("*", "bag.bad.v"): "a vector whose pointers are garbage: gdb stops printing at the "
                        "error (`{Cannot access memory at address X` and nothing after); "
                        "gstrace writes the error as `<error: ...>` and closes the braces",
    ("*", "bag.boxed_str"): "Box<str>: rust-gdb's printers do not recognize it and show its "
                            "bytes as numbers; gstrace shows the text, as for &str",
}


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def names_of(source):
    """{function: [names]} from the fixture's `@names FUNC: a b c` lines,
    in their order."""
    out = {}
    for m in re.finditer(r"@names (\w+): (.*)", open(source).read()):
        out.setdefault(m.group(1), []).extend(m.group(2).split())
    if not out:
        raise SystemExit("%s has no @names lines" % source)
    return out


# ---- gdb ---------------------------------------------------------------

MARK = "@@stdvals "


def gdb_commands(probes, fake_plain):
    """gdb's commands: at each probe function in turn, every name printed,
    each command after a marker line that says whose output follows (`-`:
    none of interest). fake_plain: functions whose names are printed again
    with the pretty-printers disabled (the expected text there)."""
    cmds = []

    def other(c):
        cmds.extend(["echo \\n%s-\\n" % MARK, c])

    def show(key, n):
        cmds.extend(["echo \\n%s%s\\n" % (MARK, key), "print %s" % n])

    # symbol off, repeats unlimited: as the C values differential runs gdb
    # (e2e_gdb.c); gstrace prints neither `<symbol>` nor `<repeats N times>`.
    for c in ["set pagination off", "set confirm off", "set print pretty off",
              "set print elements %d" % ELEMENTS, "set print repeats unlimited",
              "set print symbol off", "set width 0", "set height 0"]:
        other(c)
    for fn, names in probes.items():
        for c in ["delete", "break %s" % fn, "continue"]:
            other(c)
        for n in names:
            show("%s %s" % (fn, n), n)
        if fn in fake_plain:
            other("disable pretty-printer")
            for n in names:
                show("%s %s plain" % (fn, n), n)
            other("enable pretty-printer")
    cmds.extend(["echo \\n%send\\n" % MARK, "delete", "detach"])
    return cmds


def run_gdb(gdb_argv, pid, probes, fake_plain):
    # -ex per command, not a command file: a print that fails (the garbage
    # vector) must not end the session.
    argv = gdb_argv + ["-nx", "-batch", "-p", str(pid)]
    for c in gdb_commands(probes, fake_plain):
        argv += ["-ex", c]
    r = subprocess.run(argv,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    seen = {}
    key = None
    for line in r.stdout.split("\n"):
        if line.startswith(MARK):
            key = tuple(line[len(MARK):].split(" "))
            seen[key] = []
        elif key is not None and line:
            seen[key].append(line)
    got = {}
    for key, lines in seen.items():
        if key == ("-",):
            continue
        # gdb's warnings (stderr, "RTTI symbol not found" in clang's
        # builds) land anywhere in the value's text: dropped.
        text = re.sub(r"warning: [^\n]*\n?", "", "\n".join(lines))
        got[key] = re.sub(r"^\$\d+ = ", "", text)
    if ("end",) not in got:
        print(r.stdout)
        raise SystemExit("gdb did not reach the end of its commands")
    return got


def canon_gdb(text):
    """What only gdb shows in C's rendering, gstrace's C renderer never (the
    rules of the C values differential, values_canon.h): the cast before a
    value printed alone (`(int *) 0x...`, `(unsigned char *) 0x... "text"`,
    Rust's `(*mut i32) 0x...`), and a reference's `(T &) @0x...: ` prefix
    (gstrace prints the referent, as gdb does for a pretty-printed one)."""
    text = re.sub(r'^\([^()]*\) @0x[0-9a-f]+: ', "", text)
    return re.sub(r'^\([^()]*\) (0x[0-9a-f]+)( "|$)', r"\1\2", text)


# ---- gstrace -----------------------------------------------------------

def chunks(probes):
    """[(fn, names)]: each probe's names, CHUNK at a time, one trace each."""
    return [(fn, names[i:i + CHUNK]) for fn, names in probes.items()
            for i in range(0, len(names), CHUNK)]


def gstrace_script(probes):
    return " ".join("trace %s { %s }" % (fn, " ".join("print %s;" % n for n in names))
                    for fn, names in chunks(probes))


def run_gstrace(gstrace, pid, probes, fmt):
    """gstrace's output until every trace's first event is whole: in JSON
    an event is a line; in text, a trace's event ends at the next header,
    so its second header says its first is there. The traces attach one
    after the other while the fixture runs (on a busy machine, seconds
    apart): counting each trace's own events, not all of them, waits for
    the last one however long the first ones printed meanwhile."""
    n = len(chunks(probes))
    want = 1 if fmt == "json" else 2
    # --duration: a probe that never fires ends the pass, not the test's time
    argv = [gstrace, "-p", str(pid), "-s", gstrace_script(probes), "--duration", "30",
            "--script-output", fmt]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = {}
    lines = []
    for line in proc.stdout:
        lines.append(line)
        m = re.match(r'\{"trace_id":(\d+),' if fmt == "json" else r"\[.*\] TraceID:(\d+) ",
                     line)
        if m:
            seen[int(m.group(1))] = seen.get(int(m.group(1)), 0) + 1
            if len(seen) == n and min(seen.values()) >= want:
                proc.send_signal(signal.SIGINT)
                break
    # the rest through the same file object: it may hold lines read ahead
    lines.append(proc.stdout.read())
    err = proc.stderr.read()
    if proc.wait(timeout=60) != 0:
        print("gstrace (%s) exited %d:\n%s" % (fmt, proc.returncode, err.rstrip()))
    return "".join(lines)


def gstrace_texts(out, probes):
    """{(fn, name): text} from the first event of each trace (pretty output:
    a `[time] TraceID:N PID:.. TID:..` header, then `  name = value`)."""
    traces = chunks(probes)
    got = {}
    seen = set()
    trace = None
    pending = []
    for line in out.split("\n"):
        m = re.match(r"\[.*\] TraceID:(\d+) ", line)
        if m:
            trace = int(m.group(1))
            pending = list(traces[trace][1]) if trace not in seen else []
            seen.add(trace)
            continue
        if trace is None or not pending or not line.startswith("  "):
            continue
        name = pending[0]
        prefix = "  %s = " % name
        if line.startswith(prefix):
            got[(traces[trace][0], name)] = line[len(prefix):]
            pending.pop(0)
    return got


def check_json(out, probes):
    """The JSON parses, line by line, and each trace's first event names
    every value. Returns a list of problems."""
    problems = []
    traces = chunks(probes)
    seen = {}
    for line in out.split("\n"):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError as e:
            problems.append("JSON line does not parse (%s): %s" % (e, line[:200]))
            continue
        if "trace_id" not in ev or ev["trace_id"] in seen:
            continue
        seen[ev["trace_id"]] = [it.get("name") for it in ev.get("items", [])
                                if isinstance(it, dict) and it.get("kind") == "value"]
    for i, (fn, names) in enumerate(traces):
        if i not in seen:
            problems.append("JSON: no event of trace %d (%s)" % (i, fn))
            continue
        missing = [n for n in names if n not in seen[i]]
        if missing:
            problems.append("JSON: trace %s lacks %s" % (fn, ", ".join(missing)))
    return problems


# ---- the comparison ----------------------------------------------------

def main():
    args = sys.argv[1:]
    gdb_seen_out = None
    if "--gdb-seen" in args:
        i = args.index("--gdb-seen")
        gdb_seen_out = args[i + 1]
        del args[i:i + 2]
    gstrace, kind, variant, binary, source = args
    if not os.path.exists(binary):
        skip("%s: %s was not built (its compiler is missing)" % (variant, binary))
    if kind == "cpp":
        gdb_argv = ["gdb"]
    elif kind.startswith("rust:"):
        gdb_argv = [kind[5:]]
        if not os.access(gdb_argv[0], os.X_OK):
            skip("%s: no %s" % (variant, gdb_argv[0]))
    else:
        raise SystemExit("unknown kind %s" % kind)
    probes = names_of(source)
    # The fake std::string's probe: gdb's printers may choke on it; the
    # expected text is gdb's with the printers off.
    fake_plain = [fn for fn in probes if "fake" in fn]

    started = time.monotonic()
    fx = subprocess.Popen([binary], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        # With --gdb-seen every name is printed raw too: the layouts behind
        # the printers, per compiler, for whoever writes the renderer.
        raw = list(probes) if gdb_seen_out else fake_plain
        gdb = run_gdb(gdb_argv, fx.pid, probes, raw)
        pretty = run_gstrace(gstrace, fx.pid, probes, "pretty")
        js = run_gstrace(gstrace, fx.pid, probes, "json")
    finally:
        fx.kill()
        fx.wait()
    ours = gstrace_texts(pretty, probes)

    if gdb_seen_out:
        with open(gdb_seen_out, "w") as f:
            f.write("== %s (%s)\n" % (variant, " ".join(gdb_argv)))
            for fn, names in probes.items():
                for n in names:
                    f.write("%s = %s\n" % (n, gdb.get((fn, n), "<not printed>")))
                    if (fn, n, "plain") in gdb:
                        f.write("%s [printers disabled] = %s\n"
                                % (n, gdb.get((fn, n, "plain"), "<not printed>")))
            f.write("\n")

    rows = []
    for fn, names in probes.items():
        for n in names:
            want = gdb.get((fn, n, "plain") if fn in fake_plain else (fn, n))
            want = "<gdb printed nothing>" if want is None else canon_gdb(want)
            have = ours.get((fn, n), "<gstrace printed nothing>")
            known = KNOWN_SPELLING.get((variant, n)) or KNOWN_SPELLING.get(("*", n))
            verdict = "EQUAL" if want == have else ("KNOWN" if known else "DIFF")
            rows.append((n, verdict, want, have, known))

    def cell(text):
        return text.replace("\n", "\\n")

    width = max(len(r[0]) for r in rows)
    print("stdvals %s: gdb (%s) against gstrace, same process" % (variant, " ".join(gdb_argv)))
    for n, verdict, want, have, known in rows:
        print("%-*s  %-5s  gdb:     %s" % (width, n, verdict, cell(want)))
        if verdict != "EQUAL":
            print("%-*s         gstrace: %s" % (width, "", cell(have)))
        if known:
            print("%-*s         (known: %s)" % (width, "", known))
    problems = check_json(js, probes)
    for p in problems:
        print("JSON  FAIL  " + p)
    diffs = [r for r in rows if r[1] == "DIFF"]
    print("stdvals %s: %d EQUAL, %d KNOWN, %d DIFF, JSON %s, %.1f s"
          % (variant, sum(r[1] == "EQUAL" for r in rows), sum(r[1] == "KNOWN" for r in rows),
             len(diffs), "ok" if not problems else "FAIL", time.monotonic() - started))
    sys.exit(1 if diffs or problems else 0)


if __name__ == "__main__":
    main()
