#!/usr/bin/python3
"""Redis CPU per admission of the redis backend's script (build/gen/redis_script.lua), from INFO
commandstats (usec_per_call: time inside the command, preemption included on a loaded machine) and from
INFO cpu (the server's user + system CPU time over the calls, per call: the command's share and the
connection's handling, preemption excluded), on a redis-server of its own:
usage: redis_script_cpu.py SCRIPT.lua [SCRIPT.lua ...]

For each script, alternating, ROUNDS times: CALLS 'admit' calls on one account of a 2 s window (buckets of
~32 ms, so the hash holds a whole window of buckets), (a) limits never reached (every admission fits at
once: the common case), (b) a full window (rpm 40, deadline 0: each call finds no room now, nothing
written), and (c) CALLS 'lease' calls of a machine asking for both accounts of a 200-per-2-s key, 25
requests in all, nothing given back: the window fills as far ahead as grants go, then each call grants what freed up
or nothing (the fleet bench's saturated state). Prints the medians per script and case."""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CALLS = int(os.environ.get("CALLS", "3000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))


class Redis:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))
        return self.read()

    def read(self):
        line = self.f.readline()
        t, rest = line[:1], line[1:-2]
        if t in (b"+", b"-"):
            if t == b"-":
                raise RuntimeError(rest.decode())
            return rest.decode()
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data.decode()
        if t == b"*":
            return [self.read() for _ in range(int(rest))]
        raise RuntimeError("bad reply %r" % line)


def usec_per_call(r):
    for line in r.call("INFO", "commandstats").splitlines():
        if line.startswith("cmdstat_evalsha:"):
            return float(dict(kv.split("=") for kv in line.split(":", 1)[1].split(","))["usec_per_call"])
    return 0.0


def cpu_seconds(r):
    f = dict(line.split(":", 1) for line in r.call("INFO", "cpu").splitlines() if ":" in line)
    return float(f["used_cpu_user"]) + float(f["used_cpu_sys"])


def run(r, sha, rpm, deadline, key):
    args = ["admit", 600000, rpm, 0, 2000, 40, 50, -1, deadline, 0, 0, 0, 0, 0, 600000, "1", "", "h.1.1", ""]
    return measure(r, sha, ["cpu:p", key], args)


def run_lease(r, sha):
    args = ["lease", 600000, 200, 0, 2000, 40, 37, 0.5, 600000, "machine", 0, 25, "none", "0,0,0", 1, 25, "none",
            "0,0,0"]
    return measure(r, sha, ["cpu:p", "cpu:a", "cpu:b"], args)


def measure(r, sha, keys, args):
    """usec_per_call and server CPU per call of CALLS calls, after 2.2 s of the same calls (a window of
    buckets first, not counted)."""
    end = time.time() + 2.2
    while time.time() < end:
        r.call("EVALSHA", sha, len(keys), *keys, *args)
    r.call("CONFIG", "RESETSTAT")
    cpu = cpu_seconds(r)
    for _ in range(CALLS):
        r.call("EVALSHA", sha, len(keys), *keys, *args)
    return usec_per_call(r), (cpu_seconds(r) - cpu) * 1e6 / CALLS


def main():
    scripts = sys.argv[1:]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = tempfile.mkdtemp()
    srv = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                            "--appendonly", "no", "--dir", d], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                r = Redis(port)
                r.call("PING")
                break
            except OSError:
                time.sleep(0.05)
        shas = [r.call("SCRIPT", "LOAD", open(p).read()) for p in scripts]
        res = {(p, c): [] for p in scripts for c in ("fits", "full", "lease")}
        for rnd in range(ROUNDS):
            for p, sha in zip(scripts, shas):
                r.call("FLUSHALL")
                res[(p, "fits")].append(run(r, sha, 100000000, 100000000, "cpu:a"))
                r.call("FLUSHALL")
                res[(p, "full")].append(run(r, sha, 40, 0, "cpu:a"))
                r.call("FLUSHALL")
                res[(p, "lease")].append(run_lease(r, sha))
        for p in scripts:
            m = {c: (statistics.median(x[0] for x in res[(p, c)]), statistics.median(x[1] for x in res[(p, c)]))
                 for c in ("fits", "full", "lease")}
            print("%s: admission that fits %.1f us in the command, %.1f us of server CPU; full window %.1f us, "
                  "%.1f us; lease %.1f us, %.1f us (a call, medians of %d rounds of %d)" %
                  (p, m["fits"][0], m["fits"][1], m["full"][0], m["full"][1], m["lease"][0], m["lease"][1],
                   ROUNDS, CALLS))
    finally:
        srv.kill()
        srv.wait()


main()
