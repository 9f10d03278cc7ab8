"""What the CPU profiling e2e test (profile_e2e.py) and its benchmark
(bench/profile_sampling_bench.py) share: the split fixture run and ended,
gdb's backtrace at each busy loop, and the stacks of gstrace's folded
output, perf script's and bpftrace's ustack maps, all as root-to-leaf
lists of function names with a count, judged the same way.

A stack is complete when its outermost user frame is where a thread
starts: `_start` for the main thread, `clone3` (or `clone`) for the
others. glibc's assembly functions carry several ELF names at one address
(clone3, __clone3, __GI___clone3): names are compared without the
`__GI_` and `__` prefixes, as the C e2e suite does (e2e_check.c).
"""
import collections
import os
import re
import signal
import subprocess
import time

SPINS = {"a": "spin_a", "b": "spin_b", "c": "spin_c"}
SHARES = {"a": 60.0, "b": 30.0, "c": 10.0}
ROOTS = {"_start", "clone3", "clone"}
KERNEL_SUFFIX = "_[k]"


def base_name(name):
    if name.startswith("__GI_"):
        name = name[5:]
    while name.startswith("__"):
        name = name[2:]
    return name


def same_name(a, b):
    return a == b or base_name(a) == base_name(b)


# ---- the fixture ---------------------------------------------------------

class Fixture:
    """A fixture process started with its stdout piped, past its
    `ready <pid>` line."""

    def __init__(self, argv, env=None):
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        if not line.startswith("ready "):
            self.proc.kill()
            raise RuntimeError("%s did not print its ready line (%r)" % (argv[0], line))
        self.pid = self.proc.pid

    def finish(self, timeout=30, wait=False):
        """Ends it (SIGUSR1 unless it has exited already, or with wait
        until it exits by itself) and returns its work line as a dict
        (profile_split), or {}."""
        if not wait and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        m = re.search(r"work (\d+) cpu_ns (\d+) wall_ns (\d+) per_cpu_s (\d+)", out or "")
        if not m:
            return {}
        return {"work": int(m.group(1)), "cpu_ns": int(m.group(2)),
                "wall_ns": int(m.group(3)), "per_cpu_s": int(m.group(4))}

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


# ---- gdb ----------------------------------------------------------------

GDB_MARK = "@@profile "


def gdb_backtraces(pid, functions, timeout=90):
    """{function: [frame names, root to leaf]}: gdb attached to pid, stopped
    at each function in turn. gdb's frames are all kept, inline ones
    included (gstrace's folded stacks show inline calls as frames); each
    is (name, inline) where inline means gdb synthesized it for a call
    inlined into the frame after it (the same pc, another function)."""
    argv = ["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
            "-iex", "set pagination off", "-iex", "set width 0", "-iex", "set confirm off",
            "-iex", "set print frame-arguments none", "-iex", "set backtrace past-main on",
            "-iex", "handle SIGUSR1 nostop noprint pass", "-p", str(pid)]
    for fn in functions:
        argv += ["-ex", "break %s" % fn, "-ex", "continue",
                 "-ex", "echo \\n%sbt %s\\n" % (GDB_MARK, fn), "-ex", "bt",
                 "-ex", "echo \\n%spcs %s\\n" % (GDB_MARK, fn),
                 "-ex", "frame apply all -q p/x $pc", "-ex", "delete"]
    argv += ["-ex", "echo \\n%send\\n" % GDB_MARK, "-ex", "detach"]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    parts = {}
    key = None
    for line in r.stdout.split("\n"):
        if line.startswith(GDB_MARK):
            key = tuple(line[len(GDB_MARK):].split(" "))
            parts[key] = []
        elif key is not None and line.strip():
            parts[key].append(line)
    if ("end",) not in parts:
        raise RuntimeError("gdb did not reach its last command:\n" + r.stdout[-3000:])
    out = {}
    for fn in functions:
        names = []
        for line in parts.get(("bt", fn), []):
            m = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(", line)
            if m:
                names.append(m.group(1))
        pcs = [int(m.group(1), 16) for m in
               (re.search(r"= (0x[0-9a-f]+)", l) for l in parts.get(("pcs", fn), [])) if m]
        if not names or len(pcs) != len(names):
            raise RuntimeError("gdb's backtrace at %s unreadable:\n%s" %
                               (fn, "\n".join(parts.get(("bt", fn), []))))
        frames = [(names[i], i + 1 < len(names) and pcs[i] == pcs[i + 1] and
                   names[i] != names[i + 1]) for i in range(len(names))]
        out[fn] = list(reversed(frames))
    return out


def gdb_groups(frames):
    """gdb's root-to-leaf frames as [(physical, [inline calls in it, outer
    first])]."""
    groups = []
    for name, inline in frames:
        if inline and groups:
            groups[-1][1].append(name)
        else:
            groups.append((name, []))
    return groups


def compare_with_gdb(stack, frames):
    """None when stack (root to leaf, user frames) begins with gdb's frames
    at its leaf function: the same physical frames in order, and at each
    the same inline calls (in either order, as e2e_check.c accepts).
    Else a sentence saying where they differ."""
    groups = gdb_groups(frames)
    i = 0
    for phys, inl in groups:
        if i >= len(stack) or not same_name(stack[i], phys):
            return "frame %d is %s, gdb has %s (gdb: %s)" % (
                i, stack[i] if i < len(stack) else "nothing", phys,
                ";".join(n for n, _ in frames))
        i += 1
        got = stack[i:i + len(inl)]
        if inl and not (all(same_name(a, b) for a, b in zip(got, inl)) or
                        all(same_name(a, b) for a, b in zip(got, reversed(inl)))):
            return "inline calls in %s are %s, gdb has %s" % (phys, got, inl)
        i += len(inl)
    return None


# ---- stacks -------------------------------------------------------------

def parse_folded(text):
    """[(frames root to leaf, count)] from `a;b;c COUNT` lines."""
    out = []
    for line in text.split("\n"):
        m = re.match(r"^(.*) (\d+)$", line.strip())
        if m and m.group(1):
            out.append((m.group(1).split(";"), int(m.group(2))))
    return out


def parse_perf_script(text):
    """perf script -F ip,sym output (a sample's frames leaf first, a blank
    line between samples) as [(frames root to leaf, 1)]; inlined frames
    kept without perf's ` (inlined)`."""
    out = []
    for block in text.strip().split("\n\n"):
        names = []
        for line in block.strip().split("\n"):
            parts = line.split(None, 1)
            if not parts:
                continue
            name = parts[1] if len(parts) > 1 else "[unknown]"
            name = name.replace(" (inlined)", "")
            name = re.sub(r"\+0x[0-9a-f]+$", "", name)
            if parts[0].startswith("ffffffff"):
                name += KERNEL_SUFFIX
            names.append(name)
        if names:
            out.append((list(reversed(names)), 1))
    return out


def parse_bpftrace_map(text):
    """bpftrace's `@[ustack] = count()` map at exit as [(frames root to
    leaf, count)]; a frame is `name+off` or a bare address."""
    out = []
    for m in re.finditer(r"@\[\n(.*?)\n\]: (\d+)", text, re.S):
        names = []
        for line in m.group(1).split("\n"):
            line = line.strip()
            if line:
                names.append(re.sub(r"\+\d+$", "", line))
        out.append((list(reversed(names)), int(m.group(2))))
    return out


def user_part(stack):
    return [f for f in stack if not f.endswith(KERNEL_SUFFIX)]


def complete(stack):
    user = user_part(stack)
    return bool(user) and base_name(user[0]) in ROOTS


def path_of(stack, spins=SPINS):
    for key, fn in spins.items():
        if fn in stack:
            return key
    return None


def summarize(stacks, spins=SPINS):
    """total samples, {path: samples}, complete samples."""
    total = sum(n for _, n in stacks)
    per = collections.Counter()
    done = 0
    for st, n in stacks:
        per[path_of(st, spins)] += n
        if complete(st):
            done += n
    return total, per, done


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


# ---- processes ----------------------------------------------------------

def cpu_seconds(rusage):
    return rusage.ru_utime + rusage.ru_stime


def run_timed(argv, timeout, **kw):
    """(CompletedProcess, CPU seconds it and its children used)."""
    before = os.times()
    r = subprocess.run(argv, timeout=timeout, **kw)
    after = os.times()
    return r, (after.children_user - before.children_user +
               after.children_system - before.children_system)


def proc_cpu_seconds(pid):
    """User + system CPU time of every thread of pid so far (/proc stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3): utime and stime are fields 14, 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(cond, seconds, step=0.05):
    end = time.time() + seconds
    while time.time() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


# ---- the tracers' BPF programs ---------------------------------------------

PERF_EVENT_PROG = 7  # BPF_PROG_TYPE_PERF_EVENT


def perf_event_prog_stats(pid):
    """(run_time_ns summed, largest run_cnt) over the perf_event programs
    pid holds, each program once."""
    seen = {}
    fddir = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(fddir):
        try:
            text = open(os.path.join(fddir, fd)).read()
        except OSError:
            continue
        f = dict(re.findall(r"^(\w+):\s+(\S+)$", text, re.M))
        if f.get("prog_type") == str(PERF_EVENT_PROG) and "run_time_ns" in f:
            seen[f["prog_id"]] = (int(f["run_time_ns"]), int(f["run_cnt"]))
    return (sum(t for t, _ in seen.values()), max([c for _, c in seen.values()] or [0]))
