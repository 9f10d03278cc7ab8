"""The Python e2e fixture (python_e2e.py): CPython's own view of its stacks
is the oracle.

  pyfix.py LIB stack    outer -> middle -> inner call LIB's pyfix_leaf
                        through ctypes, in the main thread and in a second
                        thread (t_outer -> t_middle -> t_inner); before its
                        first call each thread prints
                        `expect TID FRAME|FRAME|...` with
                        traceback.extract_stack() at the call (innermost
                        last, each `name@file:line`), then `ready PID`.
  pyfix.py LIB profile  60/30/10 % of the CPU in spin_a / spin_b / spin_c,
                        pure Python loops; `ready PID` first.
  pyfix.py LIB cycle    (3.8 to 3.10) around each call, its own frame's f_back
                        points at itself: a hostile chain that never ends,
                        put back after the call; `ready PID` first.
SIGUSR1 or stdin closing ends it (it is killed otherwise).
"""
import ctypes
import os
import signal
import sys
import threading
import time
import traceback

lib = ctypes.CDLL(sys.argv[1])
lib.pyfix_leaf.argtypes = [ctypes.c_int]
lib.pyfix_leaf.restype = ctypes.c_int
stop = threading.Event()
printed = threading.Lock()
shown = set()


def expect(stack):
    """Prints this thread's stack at the call, once."""
    tid = threading.get_native_id()
    if tid in shown:
        return
    frames = ["%s@%s:%d" % (f.name, f.filename, f.lineno) for f in stack]
    with printed:
        print("expect %d %s" % (tid, "|".join(frames)), flush=True)
        shown.add(tid)


# The extract_stack and the call share one line: the innermost frame's line
# is the call's.
def inner(n):
    st = traceback.extract_stack(); lib.pyfix_leaf(n)  # noqa: E702  CALL-LINE
    return st


def middle(n):
    return inner(n + 1)


def outer(n):
    return middle(n + 1)


def t_inner(n):
    st = traceback.extract_stack(); lib.pyfix_leaf(n)  # noqa: E702  T-CALL-LINE
    return st


def t_middle(n):
    return t_inner(n + 1)


def t_outer(n):
    return t_middle(n + 1)


def calls(top):
    while not stop.is_set():
        expect(top(1))
        with printed:
            if len(shown) == 2 and "ready" not in shown:
                shown.add("ready")
                print("ready %d" % os.getpid(), flush=True)
        time.sleep(0.02)


def spin(seconds):
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


def spin_a():
    return spin(0.060)


def spin_b():
    return spin(0.030)


def spin_c():
    return spin(0.010)


def profile():
    while not stop.is_set():
        spin_a()
        spin_b()
        spin_c()


# PyFrameObject.f_back, after the object's header (ob_refcnt, ob_type,
# ob_size) in 3.8 to 3.10: the layout table's frame_back for them.
F_BACK = 24


def cycle():
    while not stop.is_set():
        frame = sys._getframe()
        back = ctypes.c_void_p.from_address(id(frame) + F_BACK)
        saved = back.value
        back.value = id(frame)
        try:
            lib.pyfix_leaf(3)
        finally:
            back.value = saved
        time.sleep(0.02)


signal.signal(signal.SIGUSR1, lambda *_: stop.set())
if sys.argv[2] == "stack":
    threading.Thread(target=calls, args=(t_outer,), daemon=True).start()
    calls(outer)
elif sys.argv[2] == "cycle":
    print("ready %d" % os.getpid(), flush=True)
    cycle()
else:
    print("ready %d" % os.getpid(), flush=True)
    profile()
