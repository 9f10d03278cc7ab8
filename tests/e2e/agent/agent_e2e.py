#!/usr/bin/env python3
"""The agent end to end (`gstrace --serve`, docs/agent.md), against the
real engines, on loopback only: no other address is ever contacted.

Scenarios (one meson test each):
  prometheus  two agents, each tracing its own agent_work fixture, scraped
              by Debian's prometheus every second: PromQL through its HTTP
              API gives each fixture's own count of calls (the fixtures
              stopped, so within one call), histogram_quantile() over the
              latency histogram falls in the fixture's 3 ms bucket,
              `sum by (instance)` shows both agents, and promtool's
              `check metrics` finds no lint problem in a scrape (text and
              OpenMetrics)
  pprof       --profile 99 --serve: `go tool pprof -top` of
              /debug/pprof/profile?seconds=2 names agent_spin; two requests
              at once both answered, each a whole profile
  ondemand    a script agent without --profile: the profile endpoint's
              sampler runs only while a profile is asked for, and its
              profile names agent_spin
  security    off loopback without a token: refused before binding (exit
              2); with --serve-token: no token or a wrong one 401, the
              right one 200; an unknown path 404 with nothing of the
              process; a bad ?seconds= 400; --config with an unknown key
              refused naming its line

usage: agent_e2e.py GSTRACE SCENARIO BUILD_DIR
Exit status: 0 passed, 1 failed, 77 skipped (saying why).
"""
import concurrent.futures
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from e2e_lib import fail, problems, skip  # noqa: E402

GSTRACE, SCENARIO, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
FIXTURE = os.path.join(BUILD, "agent_work")
READY = "gstrace-agent-ready"
children = []


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(argv, **kw):
    p = subprocess.Popen(argv, **kw)
    children.append(p)
    return p


def stop_all():
    for p in reversed(children):
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def start_fixture(tmp, name):
    count_file = os.path.join(tmp, name + ".count")
    p = spawn([FIXTURE, count_file], stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        fail("fixture %s did not start" % name)
    return p, count_file


def fixture_count(path):
    for _ in range(50):
        try:
            with open(path) as f:
                return int(f.read())
        except (OSError, ValueError):
            time.sleep(0.02)
    fail("cannot read the fixture's count " + path)
    return -1


def start_agent(args, errfile):
    """gstrace with args, waiting for its ready marker on stderr."""
    p = spawn([GSTRACE, "--emit-ready-marker", READY] + args, stdout=subprocess.DEVNULL,
              stderr=open(errfile, "w"))
    deadline = time.time() + 60
    while time.time() < deadline:
        with open(errfile) as f:
            if READY in f.read():
                return p
        if p.poll() is not None:
            with open(errfile) as f:
                fail("gstrace %s ended (%d): %s" % (" ".join(args), p.returncode, f.read()))
            return None
        time.sleep(0.05)
    fail("gstrace %s never became ready" % " ".join(args))
    return None


def get(url, headers=None, timeout=60):
    """(status, headers, body bytes) of a GET on loopback."""
    assert url.startswith("http://127.0.0.1:")
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def promtool_check(text, what):
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                       text=True)
    if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
        fail("promtool check metrics on %s: exit %d: %s %s" %
             (what, r.returncode, r.stdout.strip(), r.stderr.strip()))


def prom_query(port, q):
    status, _, body = get("http://127.0.0.1:%d/api/v1/query?query=%s" %
                          (port, urllib.parse.quote(q)))
    if status != 200:
        fail("prometheus query %s: HTTP %d" % (q, status))
        return []
    doc = json.loads(body)
    return doc.get("data", {}).get("result", [])


SCRIPT = ("trace agent_work return { @calls = count(); @lat = hist($duration); "
          "@by_ret[$retval] = count(); }")


def scenario_prometheus(tmp):
    if not shutil.which("prometheus") or not shutil.which("promtool"):
        skip("Debian's prometheus is not installed (scripts/deps installs it)")
    agents = []
    for name in ("a", "b"):
        fx, count_file = start_fixture(tmp, name)
        port = free_port()
        # the fixture counts from its start, the agent from its attach:
        # the calls before it lie between these two counts
        before = fixture_count(count_file)
        p = start_agent(["-p", str(fx.pid), "-s", SCRIPT, "--quiet",
                         "--serve", "127.0.0.1:%d" % port, "--serve-label", "fixture=" + name],
                        os.path.join(tmp, "agent_%s.err" % name))
        if not p:
            return
        agents.append((name, fx, count_file, port, before, fixture_count(count_file)))
    for name, fx, count_file, port, _, _ in agents:
        status, hdr, body = get("http://127.0.0.1:%d/metrics" % port)
        if status != 200:
            fail("agent %s: /metrics HTTP %d" % (name, status))
            continue
        if not hdr.get("Content-Type", "").startswith("text/plain; version=0.0.4"):
            fail("agent %s: /metrics Content-Type %s" % (name, hdr.get("Content-Type")))
        promtool_check(body.decode(), "agent %s's text exposition" % name)
        status, hdr, body = get("http://127.0.0.1:%d/metrics" % port,
                                {"Accept": "application/openmetrics-text; version=1.0.0"})
        if not hdr.get("Content-Type", "").startswith("application/openmetrics-text"):
            fail("agent %s: OpenMetrics asked, got %s" % (name, hdr.get("Content-Type")))
        if not body.decode().rstrip().endswith("# EOF"):
            fail("agent %s: the OpenMetrics exposition does not end with # EOF" % name)
    prom_port = free_port()
    conf = os.path.join(tmp, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: gstrace\n    static_configs:\n"
                "      - targets: [%s]\n" %
                ", ".join("'127.0.0.1:%d'" % a[3] for a in agents))
    spawn(["prometheus", "--config.file=" + conf, "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
           "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=error"],
          stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prometheus.err"), "w"))
    # both agents up and scraped a few times
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            up = prom_query(prom_port, "sum(up)")
            if up and float(up[0]["value"][1]) == 2:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    else:
        fail("prometheus never saw both agents up")
        return
    time.sleep(4)
    # the fixtures stopped: what prometheus holds after two more scrapes is
    # their last count
    for a in agents:
        os.kill(a[1].pid, signal.SIGSTOP)
    time.sleep(3.5)
    for name, fx, count_file, port, before, after in agents:
        own = fixture_count(count_file)
        got = prom_query(prom_port, 'gstrace_calls_total{fixture="%s"}' % name)
        if len(got) != 1:
            fail("gstrace_calls_total{fixture=%s}: %d series" % (name, len(got)))
            continue
        value = float(got[0]["value"][1])
        # between the calls since the agent was ready and those since it
        # was started; one more or less where the stop fell inside a call
        if not own - after - 1 <= value <= own - before + 1:
            fail("agent %s: prometheus says %d calls, the fixture %d since the agent "
                 "started (%d since it was ready)" % (name, value, own - before, own - after))
        else:
            print("agent %s: prometheus %d calls, the fixture %d..%d" %
                  (name, value, own - after, own - before))
        q = prom_query(prom_port, 'histogram_quantile(0.5, gstrace_lat_seconds_bucket{fixture="%s"})'
                       % name)
        median = float(q[0]["value"][1]) if q else float("nan")
        if not 2.097152e-3 <= median <= 4.194304e-3:
            fail("agent %s: the median latency %s s is outside the fixture's bucket "
                 "[2.1 ms, 4.2 ms)" % (name, median))
        else:
            print("agent %s: median latency %.6f s" % (name, median))
    by_instance = prom_query(prom_port, "sum by (instance) (gstrace_calls_total)")
    instances = sorted(r["metric"].get("instance", "") for r in by_instance)
    want = sorted("127.0.0.1:%d" % a[3] for a in agents)
    if instances != want:
        fail("sum by (instance): %s, not both agents %s" % (instances, want))


def go_pprof_top(tmp, url):
    go = shutil.which("go") or "/usr/lib/go/bin/go"
    env = dict(os.environ, HOME=tmp, GOCACHE=os.path.join(tmp, "gocache"),
               GOPATH=os.path.join(tmp, "go"), GOFLAGS="")
    r = subprocess.run([go, "tool", "pprof", "-top", "-symbolize=none", url],
                       capture_output=True, text=True, env=env, timeout=120)
    return r.returncode, r.stdout + r.stderr


def check_profile_body(body, what):
    if body[:2] != b"\x1f\x8b":
        fail("%s: the profile is not gzipped" % what)


def profile_checks(tmp, port, label):
    if not (shutil.which("go") or os.path.exists("/usr/lib/go/bin/go")):
        skip("go is not installed (scripts/deps installs golang-go)")
    url = "http://127.0.0.1:%d/debug/pprof/profile?seconds=2" % port
    rc, out = go_pprof_top(tmp, url)
    if rc != 0 or "agent_spin" not in out:
        fail("%s: go tool pprof -top %s (exit %d) does not name agent_spin:\n%s" %
             (label, url, rc, out))
    else:
        print("%s: go tool pprof names agent_spin" % label)
    # two at once: each answered with a whole profile after its seconds
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        t0 = time.time()
        futs = [ex.submit(get, "http://127.0.0.1:%d/debug/pprof/profile?seconds=%d" % (port, s))
                for s in (2, 3)]
        for s, fut in zip((2, 3), futs):
            status, hdr, body = fut.result()
            if status != 200:
                fail("%s: concurrent profile of %d s: HTTP %d" % (label, s, status))
                continue
            check_profile_body(body, "%s: concurrent profile of %d s" % (label, s))
        if time.time() - t0 > 3 + 2:
            fail("%s: two profiles of 2 and 3 s took %.1f s" % (label, time.time() - t0))
    status, _, body = get("http://127.0.0.1:%d/debug/pprof/" % port)
    if status != 200 or b"profile" not in body:
        fail("%s: /debug/pprof/ index: HTTP %d" % (label, status))


def scenario_pprof(tmp):
    fx, _ = start_fixture(tmp, "p")
    port = free_port()
    if start_agent(["--profile", "99", "-p", str(fx.pid), "--quiet", "--serve",
                    "127.0.0.1:%d" % port], os.path.join(tmp, "agent.err")):
        profile_checks(tmp, port, "--profile --serve")


def scenario_ondemand(tmp):
    fx, _ = start_fixture(tmp, "o")
    port = free_port()
    if start_agent(["-p", str(fx.pid), "-s", SCRIPT, "--quiet", "--serve",
                    "127.0.0.1:%d" % port], os.path.join(tmp, "agent.err")):
        status, _, body = get("http://127.0.0.1:%d/metrics" % port)
        samples = [l for l in body.decode().splitlines()
                   if l.startswith("gstrace_profile_samples_total")]
        if status != 200 or not samples or float(samples[0].split()[-1]) != 0:
            fail("before any profile was asked for, the sampler counted: %s" % samples)
        profile_checks(tmp, port, "script agent")


def scenario_security(tmp):
    fx, _ = start_fixture(tmp, "s")
    port = free_port()
    # off loopback without a token: refused before anything binds
    r = subprocess.run([GSTRACE, "-p", str(fx.pid), "-s", SCRIPT, "--serve",
                        "0.0.0.0:%d" % port], capture_output=True, text=True, timeout=60)
    if r.returncode != 2 or "--serve-token" not in r.stderr:
        fail("--serve 0.0.0.0 without a token: exit %d, %r" % (r.returncode, r.stderr))
    token = os.path.join(tmp, "token")
    with open(token, "w") as f:
        f.write("s3cr3t-token-for-the-e2e-test\n")
    os.chmod(token, 0o644)
    r = subprocess.run([GSTRACE, "-p", str(fx.pid), "-s", SCRIPT, "--serve",
                        "127.0.0.1:%d" % port, "--serve-token", token],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 2 or "chmod 600" not in r.stderr:
        fail("a token file of mode 0644: exit %d, %r" % (r.returncode, r.stderr))
    os.chmod(token, 0o600)
    if not start_agent(["-p", str(fx.pid), "-s", SCRIPT, "--quiet", "--serve",
                        "127.0.0.1:%d" % port, "--serve-token", token],
                       os.path.join(tmp, "agent.err")):
        return
    base = "http://127.0.0.1:%d" % port
    good = {"Authorization": "Bearer s3cr3t-token-for-the-e2e-test"}
    for headers, want in (({}, 401), ({"Authorization": "Bearer wrong"}, 401),
                          ({"Authorization": "Bearer s3cr3t-token-for-the-e2e-tesT"}, 401),
                          (good, 200)):
        status, _, _ = get(base + "/metrics", headers)
        if status != want:
            fail("/metrics with %s: HTTP %d, want %d" % (headers or "no token", status, want))
    status, _, body = get(base + "/no/such/path/" + str(fx.pid), good)
    if status != 404 or str(fx.pid).encode() in body or b"agent" in body:
        fail("an unknown path: HTTP %d, body %r" % (status, body[:200]))
    for q in ("seconds=-1", "seconds=abc", "seconds=99999999999", "seconds=%zz"):
        status, _, _ = get(base + "/debug/pprof/profile?" + q, good)
        if status != 400:
            fail("?%s: HTTP %d, want 400" % (q, status))
    status, _, _ = get(base + "/metrics", good)
    if status != 200:
        fail("after the bad requests /metrics answers HTTP %d" % status)
    conf = os.path.join(tmp, "agent.yaml")
    with open(conf, "w") as f:
        f.write("pid: %d\nserve: 127.0.0.1:%d\nserv-label: a=b\n" % (fx.pid, free_port()))
    r = subprocess.run([GSTRACE, "--config", conf, "-s", SCRIPT], capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 2 or ":3:" not in r.stderr or "serv-label" not in r.stderr:
        fail("--config with an unknown key on line 3: exit %d, %r" % (r.returncode, r.stderr))


def main():
    if os.geteuid() != 0:
        skip("not root: the agent loads BPF programs and attaches uprobes")
    if not os.path.exists(FIXTURE):
        fail("no fixture " + FIXTURE)
        return 1
    tmp = tempfile.mkdtemp(prefix="gs_e2e_agent_")
    try:
        {"prometheus": scenario_prometheus, "pprof": scenario_pprof,
         "ondemand": scenario_ondemand, "security": scenario_security}[SCENARIO](tmp)
    finally:
        stop_all()
        if problems:
            for name in os.listdir(tmp):
                if name.endswith(".err"):
                    with open(os.path.join(tmp, name)) as f:
                        text = f.read().strip()
                    if text:
                        print("--- %s:\n%s" % (name, text[-3000:]))
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print("%d problem(s)" % len(problems))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
