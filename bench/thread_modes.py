#!/usr/bin/env python3
"""The thread-mode table of docs/performance.md: am_bench built for
GASNET_SEQ, GASNET_PARSYNC and GASNET_PAR (bench/am_bench, am_bench_parsync,
am_bench_par, each linked with its mode's library), run in turns on 2 ranks
(SEQ, PARSYNC, PAR, PAR, PARSYNC, SEQ, ...), and the median over --runs runs
of each figure (each run's figure is itself a median of 5 timings).

    python3 bench/thread_modes.py --build build [--runs 3] [--iters 100000]

Prints a Markdown table. Never fails on speed; fails when a benchmark fails
(bad data ends am_bench with code 3) or prints no figure it looks for.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

MODES = [("SEQ", "am_bench"), ("PARSYNC", "am_bench_parsync"), ("PAR", "am_bench_par")]
# (figure, regex, unit, scale): scale turns the printed value into the unit shown.
FIGURES = [
    ("AMShort round trip", r"^AMShort\s+round trip\s+0 B:\s+([\d.]+) us", "µs", 1),
    ("AMMedium 64 B round trip", r"^AMMedium round trip\s+64 B:\s+([\d.]+) us", "µs", 1),
    ("AMShort flood", r"^AMShort\s+flood\s+0 B:\s+([\d.]+) us", "µs/msg", 1),
    ("AMMedium 64 KiB flood", r"^AMMedium flood\s+65536 B:\s+[\d.]+ us/msg\s+([\d.]+) MB/s",
     "GB/s", 1e-3),
    ("AMLong 64 KiB flood", r"^AMLong\s+flood\s+65536 B:\s+[\d.]+ us/msg\s+([\d.]+) MB/s",
     "GB/s", 1e-3),
]


def run(build, prog, iters):
    cmd = [os.path.join(build, "gasnetrun"), "-n", "2", os.path.join(build, "bench", prog),
           str(iters)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    got = {}
    for name, rx, _unit, scale in FIGURES:
        m = re.search(rx, p.stdout, re.M)
        if not m:
            sys.exit("no '%s' in the output of %s:\n%s" % (name, " ".join(cmd), p.stdout))
        got[name] = float(m.group(1)) * scale
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iters", type=int, default=100000)
    args = ap.parse_args()
    seen = {mode: [] for mode, _ in MODES}
    for i in range(args.runs):
        order = MODES if i % 2 == 0 else list(reversed(MODES))
        for mode, prog in order:
            seen[mode].append(run(args.build, prog, args.iters))
    print("| Figure | " + " | ".join(mode for mode, _ in MODES) + " |")
    print("| --- | " + " | ".join("---" for _ in MODES) + " |")
    for name, _rx, unit, _scale in FIGURES:
        cells = []
        for mode, _ in MODES:
            values = [r[name] for r in seen[mode]]
            med = statistics.median(values)
            digits = 1 if unit == "GB/s" else 3
            cells.append("%.*f %s (%.*f-%.*f)" % (digits, med, unit, digits, min(values),
                                                  digits, max(values)))
        print("| %s | %s |" % (name, " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
