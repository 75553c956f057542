#!/usr/bin/env python3
"""before_after: two gexx builds side by side, alternated, in one run.

Runs the same benchmarks (bench/am_bench, bench/rma_bench and their ofi
builds) from two build trees, in turns (old, new, new, old, ...), and prints
the median of each figure per build and the ratio new/old. For a change that
should not move speed (a restructuring), the ratios should stay within the
run-to-run spread, which the table also prints (min-max of each side).

    python3 bench/before_after.py --old /path/to/old/build --new build [--runs 5]

It never fails on speed; it fails when a benchmark fails (bad data ends
am_bench with code 3) or prints no figure it looks for.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

# (label, conduit, program, args, env, [(figure, regex, unit, higher_is_better)])
OFI_ENV = {"GASNET_SUPERNODE_MAXSIZE": "1"}
CASES = [
    ("smp am", "smp", "am_bench", ["2000"], {}, [
        ("AMShort round trip", r"^AMShort\s+round trip\s+0 B:\s+([\d.]+) us", "us", False),
        ("AMMedium 512 B round trip", r"^AMMedium round trip\s+512 B:\s+([\d.]+) us", "us", False),
        ("AMShort flood", r"^AMShort\s+flood\s+0 B:\s+([\d.]+) us", "us/msg", False),
        ("AMMedium 4 KiB flood", r"^AMMedium flood\s+4096 B:\s+[\d.]+ us/msg\s+([\d.]+) MB/s",
         "MB/s", True),
    ]),
    ("smp rma", "smp", "rma_bench", ["100000"], {}, [
        ("put 8 B", r"^8\s+[\d.]+\s+([\d.]+)", "ns", False),
        ("get 8 B", r"^8\s+(?:[\d.]+\s+){5}([\d.]+)", "ns", False),
        ("put_bulk 1 MiB", r"^1048576\s+\d+\s+(\d+)", "MB/s", True),
        ("barrier", r"anonymous ([\d.]+)", "us", False),
    ]),
    ("ofi am", "ofi", "am_bench_ofi", ["300"], OFI_ENV, [
        ("AMShort round trip", r"^AMShort\s+round trip\s+0 B:\s+([\d.]+) us", "us", False),
        ("AMMedium 512 B round trip", r"^AMMedium round trip\s+512 B:\s+([\d.]+) us", "us", False),
        ("AMShort flood", r"^AMShort\s+flood\s+0 B:\s+([\d.]+) us", "us/msg", False),
        ("AMMedium 4 KiB flood", r"^AMMedium flood\s+4096 B:\s+[\d.]+ us/msg\s+([\d.]+) MB/s",
         "MB/s", True),
    ]),
    ("ofi rma", "ofi", "rma_bench_ofi", ["1000"], OFI_ENV, [
        ("put 8 B", r"^8\s+[\d.]+\s+([\d.]+)", "ns", False),
        ("get 8 B", r"^8\s+(?:[\d.]+\s+){5}([\d.]+)", "ns", False),
        ("put_bulk 1 MiB", r"^1048576\s+\d+\s+(\d+)", "MB/s", True),
        ("barrier", r"anonymous ([\d.]+)", "us", False),
    ]),
]


def launcher(build, conduit):
    name = "gasnetrun_ofi" if conduit == "ofi" else "gasnetrun"
    path = os.path.join(build, name)
    return path if os.path.exists(path) else os.path.join(build, "gasnetrun")


def run_case(build, case, ranks):
    label, conduit, prog, args, env, figures = case
    exe = os.path.join(build, "bench", prog)
    if not os.path.exists(exe):
        return None
    full = dict(os.environ)
    full.update(env)
    cmd = [launcher(build, conduit), "-n", str(ranks), exe] + args
    p = subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("before_after: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                        p.stderr))
    out = {}
    for name, rx, _unit, _hib in figures:
        m = re.search(rx, p.stdout, re.M)
        if not m:
            sys.exit("before_after: no '%s' in the output of %s:\n%s" % (name, " ".join(cmd),
                                                                       p.stdout))
        out[name] = float(m.group(1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True, help="build tree before the change")
    ap.add_argument("--new", required=True, help="build tree after the change")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--only", default="", help="run only cases whose label contains this")
    a = ap.parse_args()
    cases = [c for c in CASES if a.only in c[0]]
    data = {}  # (label, figure, side) -> [values]
    for i in range(a.runs):
        order = [("old", a.old), ("new", a.new)]
        if i % 2:
            order.reverse()
        for case in cases:
            for side, build in order:
                got = run_case(build, case, a.ranks)
                if got is None:
                    continue
                for name, v in got.items():
                    data.setdefault((case[0], name, side), []).append(v)
        print("# run %d of %d done" % (i + 1, a.runs), file=sys.stderr)
    print("| case | figure | old median (min-max) | new median (min-max) | new/old |")
    print("|---|---|---:|---:|---:|")
    for case in cases:
        for name, _rx, unit, hib in case[5]:
            o = data.get((case[0], name, "old"))
            n = data.get((case[0], name, "new"))
            if not o or not n:
                print("| %s | %s | %s | %s | - |" % (case[0], name, "n/a" if not o else "",
                                                      "n/a" if not n else ""))
                continue
            mo, mn = statistics.median(o), statistics.median(n)
            ratio = mn / mo if mo else float("nan")
            note = " (higher is better)" if hib else ""
            print("| %s | %s, %s%s | %.3g (%.3g-%.3g) | %.3g (%.3g-%.3g) | %.2f |" %
                  (case[0], name, unit, note, mo, min(o), max(o), mn, min(n), max(n), ratio))


if __name__ == "__main__":
    main()
