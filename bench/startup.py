#!/usr/bin/env python3
"""Job start-up cost against rank count and segment size.

For each configuration, runs `gasnetrun -n N startup_probe SIZE` several
times and prints medians of: the whole job's wall time (launch to exit),
gasnet_init, gasnet_attach, and touching every page of the segment once.
Prints figures only; never fails on speed.

With --scaling, runs instead `gasnetrun -n N startup_probe 64KiB` for N up
to --max-ranks (default 1024), doubling from 64, and prints the job's wall
time and the CPU time of the launcher and its ranks (user, system): a
figure that grows faster than N is the part of start-up that is not linear.

usage: bench/startup.py [--build build] [--runs 7] [--scaling [--max-ranks 1024]]
"""
import argparse
import os
import re
import statistics
import subprocess
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--scaling", action="store_true")
    p.add_argument("--max-ranks", type=int, default=1024)
    a = p.parse_args()
    run = os.path.join(a.build, "gasnetrun")
    probe = os.path.join(a.build, "bench", "startup_probe")
    if a.scaling:
        scaling(run, probe, a.runs, a.max_ranks)
        return
    print("%-6s %-9s %10s %10s %10s %10s" % ("ranks", "segment", "job_ms", "init_ms",
                                             "attach_ms", "touch_ms"))
    for ranks in (1, 2, 4, 8):
        for mib in (1, 64, 1024):
            if ranks * mib > 8192:
                continue
            rows = []
            for _ in range(a.runs):
                t = time.perf_counter()
                out = subprocess.run([run, "-n", str(ranks), probe, str(mib << 20)],
                                     capture_output=True, text=True, check=True).stdout
                job = (time.perf_counter() - t) * 1e3
                m = re.search(r"init_ms ([\d.]+) attach_ms ([\d.]+) touch_ms ([\d.]+)", out)
                rows.append((job,) + tuple(float(x) for x in m.groups()))
            med = [statistics.median(col) for col in zip(*rows)]
            print("%-6d %-9s %10.2f %10.2f %10.2f %10.2f" % ((ranks, "%d MiB" % mib) + tuple(med)))


def scaling(run, probe, runs, max_ranks):
    """Start-up (init, attach, three barriers, exit) against the rank count."""
    print("%-6s %10s %10s %10s %10s %10s" % ("ranks", "job_ms", "user_s", "sys_s", "init_ms",
                                             "attach_ms"))
    ranks = 64
    while ranks <= max_ranks:
        rows = []
        for _ in range(runs):
            before = os.times()
            t = time.perf_counter()
            out = subprocess.run([run, "-n", str(ranks), probe, str(64 << 10)],
                                 capture_output=True, text=True, check=True).stdout
            job = (time.perf_counter() - t) * 1e3
            after = os.times()
            m = re.search(r"init_ms ([\d.]+) attach_ms ([\d.]+)", out)
            rows.append((job, after.children_user - before.children_user,
                         after.children_system - before.children_system,
                         float(m.group(1)), float(m.group(2))))
        med = [statistics.median(col) for col in zip(*rows)]
        print("%-6d %10.1f %10.2f %10.2f %10.1f %10.1f" % ((ranks,) + tuple(med)), flush=True)
        ranks *= 2


if __name__ == "__main__":
    main()
