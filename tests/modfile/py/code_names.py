# For test_pycode: code objects whose names the test reads from this
# process's memory. Prints, tab-separated, one per line:
#   F <id(code)> <name as gstrace shows it> <co_filename> <co_firstlineno> <offset>:<line>,...
# (the name is co_qualname from 3.11, co_name before), then
#   V <id(code)> <name> <first line>   a code object about to be freed
#   READY
# then waits for a line on stdin, frees V's code object, makes code
# objects of the same shape until one takes its address, and prints
#   R <id(code)> <name> <first line>   or   NOREUSE
# then waits for stdin to close.
import dis
import sys

QUAL = sys.version_info >= (3, 11)


def outer():
    def nested(x):
        return [x,
                x * 2]
    return nested


class Shape:
    def area(self, w, h):
        total = 0
        for i in range(w):
            total += h
        return total


def größe(a):
    return a + 1


def λ_kind2(a):
    return a - 1


def lines(co):
    out = []
    if sys.version_info >= (3, 10):
        for start, end, line in co.co_lines():
            out.extend((off, -1 if line is None else line) for off in range(start, end, 2))
    else:
        starts = list(dis.findlinestarts(co))
        for off in range(0, len(co.co_code), 2):
            line = co.co_firstlineno
            for addr, ln in starts:
                if addr <= off:
                    line = ln
            out.append((off, line))
    return ",".join("%d:%d" % p for p in out)


def renamed(code, name, first):
    kw = dict(co_name=name, co_firstlineno=first)
    if QUAL:
        kw["co_qualname"] = name
    return code.replace(**kw)


def show(tag, co):
    name = co.co_qualname if QUAL else co.co_name
    print("%s\t%d\t%s\t%s\t%d\t%s" % (tag, id(co), name, co.co_filename, co.co_firstlineno,
                                      lines(co)))


kind4 = renamed(größe.__code__, "emoji_\U0001F600_name", 7)
long_name = renamed(größe.__code__, "n" * 3000, 8)
for co in (outer.__code__, outer().__code__, Shape.area.__code__, größe.__code__,
           λ_kind2.__code__, kind4, long_name):
    show("F", co)

victim = renamed(größe.__code__, "victim", 500)
print("V\t%d\tvictim\t500" % id(victim))
print("READY", flush=True)
sys.stdin.readline()
address = id(victim)
del victim
keep = []
for i in range(2000):
    c = renamed(größe.__code__, "other%d" % i, 700 + i)
    if id(c) == address:
        print("R\t%d\tother%d\t%d" % (id(c), i, 700 + i), flush=True)
        break
    keep.append(c)
else:
    print("NOREUSE", flush=True)
sys.stdin.read()
