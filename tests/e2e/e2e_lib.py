"""How the Python e2e scripts (agent/, jit/, profile/, python/) report a
scenario: skip() ends it with meson's exit 77, saying why; fail() records
a problem, says it and lets the scenario go on; the script exits 1 when
`problems` is not empty at its end.

Imported with the scripts' folder's parent on sys.path:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from e2e_lib import fail, problems, skip
"""
import sys

problems = []


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def fail(msg):
    problems.append(msg)
    print("FAIL: " + msg, flush=True)
