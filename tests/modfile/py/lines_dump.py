# For test_pylines: every code object of the functions below (and those
# nested in them), one line each:
#   C <qualified name> <co_firstlineno> <line table in hex> <offset>:<line>,...
# where each line is the interpreter's own answer for that byte offset
# (co_lines() from 3.10, dis.findlinestarts before), -1 for none.
import dis
import sys


def decorate(f):
    return f


@decorate
@decorate
def loops(n):
    total = 0
    for i in range(n):
        while i > 0:
            i -= 1
            total += i
    return total


def multi_line(a, b):
    return (a +
            b *
            (a - b)
            if a else
            [x
             for x in range(b)])


def with_lambda(xs):
    key = lambda x: (x,
                     -x)
    try:
        return sorted(xs, key=key)
    except TypeError:
        return None
    finally:
        pass


class Box:
    def method(self, v):
        def inner(w):
            return w + v
        return inner(v)


# Far apart lines and long bodies: line deltas past a byte and address
# jumps past 255, the long and continued entries of each format.
SRC = "def far():\n    x = 0\n" + "\n" * 300 + "    x += 1\n" + \
      "".join("    x += %d\n" % i for i in range(200)) + "\n" * 1000 + "    return x\n"
ns = {}
exec(compile(SRC, "far.py", "exec"), ns)


def table_of(co):
    if sys.version_info >= (3, 10):
        return co.co_linetable
    return co.co_lnotab


def lines_of(co):
    n = len(co.co_code)
    out = {}
    if sys.version_info >= (3, 10):
        for start, end, line in co.co_lines():
            for off in range(start, end, 2):
                out[off] = -1 if line is None else line
    else:
        starts = list(dis.findlinestarts(co))
        for off in range(0, n, 2):
            line = co.co_firstlineno
            for addr, ln in starts:
                if addr <= off:
                    line = ln
            out[off] = line
    return [out.get(off, -1) for off in range(0, n, 2)]


def dump(co, prefix=""):
    name = prefix + co.co_name
    lines = lines_of(co)
    print("C %s %d %s %s" % (name, co.co_firstlineno, table_of(co).hex(),
                             ",".join("%d:%d" % (2 * i, l) for i, l in enumerate(lines))))
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            dump(c, name + ".")


for f in (loops, multi_line, with_lambda, Box.method, ns["far"]):
    dump(f.__code__)
