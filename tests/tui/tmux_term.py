"""A terminal for the interactive mode's tests and benchmarks: one tmux
server and session (120x40 unless told) running a command under a shell
that records `stty -a` before and after it, its pid and its exit status,
driven with send-keys and read with capture-pane."""
import os
import re
import shlex
import subprocess
import time


class Fail(Exception):
    pass


class Term:
    """One tmux server and session running a shell command in 120x40."""

    def __init__(self, name, cmd, tmp, cols=120, rows=40):
        self.sock = "gstui-%d-%s" % (os.getpid(), name)
        self.tmp = tmp
        self.rc_file = os.path.join(tmp, name + ".rc")
        self.before = os.path.join(tmp, name + ".stty-before")
        self.after = os.path.join(tmp, name + ".stty-after")
        self.pid_file = os.path.join(tmp, name + ".pid")
        runner = os.path.join(tmp, name + ".sh")
        with open(runner, "w") as f:
            # the shell stays to take the terminal back and describe it
            f.write("stty -a > %s\n" % shlex.quote(self.before))
            f.write("sh -c 'echo $$ > %s; exec \"$0\" \"$@\"' env LANG=C.UTF-8 %s\n" %
                    (shlex.quote(self.pid_file), cmd))
            f.write("echo $? > %s\n" % shlex.quote(self.rc_file))
            f.write("stty -a > %s\n" % shlex.quote(self.after))
            f.write("sleep 600\n")
        shell = "sh " + shlex.quote(runner)
        self.tmux("new-session", "-d", "-s", "t", "-x", str(cols), "-y", str(rows), shell)

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null"] + list(args),
                              check=check, capture_output=True, text=True).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        # tmux ends a command at an argument's final ';': escape it
        if text.endswith(";"):
            text = text[:-1] + "\\;"
        self.tmux("send-keys", "-t", "t", "-l", text)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t")

    def command(self, line):
        """`:` then line and Enter: a command of the command panel."""
        self.keys(":")
        self.type(line)
        self.keys("Enter")

    def wait(self, pattern, timeout=15, absent=False, poll=0.05):
        deadline = time.time() + timeout
        while True:
            s = self.screen()
            found = re.search(pattern, s, re.M)
            if bool(found) != absent:
                return found if found else s
            if time.time() > deadline:
                raise Fail("screen %s /%s/ after %ds:\n%s" %
                           ("still has" if absent else "never showed", pattern, timeout, s))
            time.sleep(poll)

    def gstrace_pid(self):
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                return int(open(self.pid_file).read())
            except (OSError, ValueError):
                time.sleep(0.05)
        raise Fail("gstrace never started")

    def ended(self, timeout=15):
        """gstrace's exit status, once the shell wrote it and stty -a after it."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if os.path.exists(self.after) and os.path.getsize(self.after) > 0:
                time.sleep(0.1)
                return int(open(self.rc_file).read())
            time.sleep(0.1)
        raise Fail("gstrace did not end:\n" + self.screen())

    def check_restored(self):
        b, a = open(self.before).read(), open(self.after).read()
        if b != a:
            raise Fail("the terminal was not restored:\nbefore: %s\nafter:  %s" % (b, a))

    def close(self):
        self.tmux("kill-server", check=False)
