#!/usr/bin/env python3
"""Wall time of a job that ends each way (the exit table of docs/performance.md).

Runs tests/integration/exitcheck under gasnetrun (or as GASNET_PSHM_NODES
ranks with --pshm) for every way a job can end, on 2 and 4 ranks, and prints
the median of --runs runs per row and rank count, in seconds:

* from launching gasnetrun to its exit, for the rows where the job ends by
  itself (start-up included);
* from the signal to the launcher's exit, for a rank killed with SIGKILL and
  the launcher sent SIGTERM;
* from the signal until the last rank is gone, for the launcher killed with
  SIGKILL.

Each job's exit status is checked against what the row expects; a wrong one
stops the script with the job's output. Figures only: nothing here fails on
speed.

usage: python3 bench/exit_timing.py --build build [--runs 5] [--ranks 2,4] [--pshm]
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time

# (label, [(exitcheck arguments, expected exit status, extra environment)]):
# a row with several variants prints the range of their medians.
ROWS = [
    ("one rank calls `gasnet_exit(3)`; the others wait in a barrier, poll in "
     "`GASNET_BLOCKUNTIL`, or spin without polling",
     [(["barrier", "3", "1"], 3), (["wait", "3", "1"], 3), (["spin", "3", "1"], 3)]),
    ("the same from a second thread, or from inside an AM handler",
     [(["thread", "3", "1"], 3), (["handler", "3", "1"], 3)]),
    ("one rank calls `gasnet_exit(0)`, the others spin", [(["spin", "0", "1"], 0)]),
    ("the others' own SIGQUIT handler notes it and calls `gasnet_exit`, or ends its spin",
     [(["sigquit_exit", "3", "1", "4"], 3), (["sigquit", "3", "1", "4"], 3)]),
    ("every rank calls `gasnet_exit(5)`, returns 6 from `main`, or calls `exit(7)`",
     [(["collective", "5"], 5), (["return", "6"], 6), (["exit", "7"], 7)]),
    ("a client SIGQUIT handler returns and its rank spins on (killed after "
     "`GASNET_EXITTIMEOUT`)", [(["sigquit_ignore", "3", "1", "4"], 3)]),
]
KILLS = [
    ("a rank is killed with SIGKILL (time from the kill)", "rank", 128 + 9),
    ("the launcher gets SIGTERM (time from the signal)", "SIGTERM", 128 + 15),
    ("the launcher gets SIGKILL (time from the signal until the last rank is gone)",
     "SIGKILL", -9),
]
READY = re.compile(r"exitcheck rank (\d+) of \d+: ready pid (\d+)")


def start(args, n, pshm):
    prog = os.path.join(ARGS.build, "tests", "integration", "exitcheck")
    env = dict(os.environ)
    if pshm:
        env["GASNET_PSHM_NODES"] = str(n)
        cmd = [prog] + args
    else:
        cmd = [os.path.join(ARGS.build, "gasnetrun"), "-n", str(n), prog] + args
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(p, expect, what):
    out, err = p.communicate(timeout=120)
    if p.returncode != expect:
        sys.exit("%s: exit %d, expected %d\n%s%s" % (what, p.returncode, expect, out, err))


def time_exit(args, expect, n):
    t0 = time.monotonic()
    p = start(args, n, ARGS.pshm)
    p.wait(timeout=120)
    took = time.monotonic() - t0
    finish(p, expect, " ".join(args))
    return took


def alive(pid):
    """True while the process exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def time_kill(what, expect, n):
    p = start(["ready", "0"], n, ARGS.pshm)
    ready = {}
    while len(ready) < n:
        line = p.stdout.readline()
        if not line:
            sys.exit("the ranks did not all start: %s" % p.stderr.read())
        m = READY.search(line)
        if m:
            ready[int(m.group(1))] = int(m.group(2))
    t0 = time.monotonic()
    if what == "rank":
        os.kill(ready[1], signal.SIGKILL)
    else:
        p.send_signal(getattr(signal, what))
    if what == "SIGKILL":
        while any(alive(pid) for pid in ready.values()):
            time.sleep(0.0005)
        took = time.monotonic() - t0
        p.wait(timeout=120)
    else:
        p.wait(timeout=120)
        took = time.monotonic() - t0
    finish(p, expect, "ready, %s" % what)
    return took


def fmt(values):
    lo, hi = min(values), max(values)
    digits = 4 if hi < 0.001 else 3 if hi < 0.1 else 2
    a, b = "%.*f" % (digits, lo), "%.*f" % (digits, hi)
    return a + " s" if a == b else "%s–%s s" % (a, b)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--pshm", action="store_true", help="GASNET_PSHM_NODES=N, no gasnetrun")
    ARGS = ap.parse_args()
    ranks = [int(x) for x in ARGS.ranks.split(",")]
    print("| How the job ends | " + " | ".join("%d ranks" % n for n in ranks) + " |")
    print("| --- | " + " | ".join("---" for _ in ranks) + " |")
    for label, variants in ROWS:
        cells = []
        for n in ranks:
            medians = [statistics.median(time_exit(args, code, n) for _ in range(ARGS.runs))
                       for args, code in variants]
            cells.append(fmt(medians))
        print("| %s | %s |" % (label, " | ".join(cells)), flush=True)
    for label, what, code in KILLS:
        cells = [fmt([statistics.median(time_kill(what, code, n) for _ in range(ARGS.runs))])
                 for n in ranks]
        print("| %s | %s |" % (label, " | ".join(cells)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
