#!/usr/bin/env python3
"""visperf_vs_anchor: GASNet's testvisperf built against gexx and against the
reference GASNet-EX 2020.10 (the anchor), run in turns, and its bandwidth
tables compared cell by cell.

testvisperf prints tables (a section per shape and payload layout, rows of
payload sizes, columns of densities, MiB/s), which bench/vs_anchor.py's line
matcher does not read; this script builds and runs the two sides the same way
(vs_anchor's build and run helpers) and reads the tables instead. Per section
it prints the median over the cells of gexx/anchor (above 1: gexx faster),
the lowest cell ratio and where it is.

    python3 bench/visperf_vs_anchor.py --gexx install [--net [--provider P | --conduit udp]] [--runs 3] \\
        [--cells] [--stack-scan] [--args "-maxdata 131072 -maxcontig 512 10"]

With --stack-scan, run i of N starts both sides' stacks i*4096/N bytes further
into a page (address randomization off for the run, an environment variable
of that length before it). On smp the small cells depend on where the stack
sits: with it randomized (the default) one 512-byte put ran at one of two
speeds about 2x apart from run to run, the same for a given placement, so a
few runs compared whichever placements each side drew; the scan gives both
sides the same placements, evenly spread.

Never fails on speed; fails when a build or a run fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vs_anchor  # noqa: E402

SECTION = re.compile(r"^([A-Z]): (.*\S)\s*$")
ROW = re.compile(r"^\s*(\d+):\s+([\d.\s]+)$")


def tables(text):
    """{(section title, row size, column): MiB/s}"""
    out = {}
    title = None
    for line in text.splitlines():
        m = SECTION.match(line)
        if m and "density" not in line:
            title = m.group(2)
            continue
        m = ROW.match(line)
        if m and title:
            for col, v in enumerate(m.group(2).split()):
                out[(title, int(m.group(1)), col)] = float(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gexx", required=True)
    ap.add_argument("--anchor", default="/tmp/gexx-anchor/install")
    ap.add_argument("--args", default="-maxdata 131072 -maxcontig 512 10")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--net", action="store_true")
    ap.add_argument("--conduit", default="ofi", choices=["ofi", "udp"],
                    help="gexx's network conduit with --net (default ofi)")
    ap.add_argument("--provider", default="",
                    help="gexx's libfabric provider with --net (default: gexx's own choice, what "
                         "users get: net on plain Ethernet)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--stack-scan", action="store_true",
                    help="run i of N with the stack i*4096/N bytes further (same for both sides)")
    ap.add_argument("--cells", action="store_true",
                    help="also print each section's cell ratios (rows: bytes, columns: density)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--suites", default=os.path.join(here, "..", "..", "shared", "suites"))
    a = ap.parse_args()
    tar = os.path.join(a.suites, "gasnet-ex-2020.10.0-tests.tar.gz")
    sides = {"gexx": os.path.abspath(a.gexx), "anchor": os.path.abspath(a.anchor)}
    conduits = {"gexx": a.conduit if a.net else "smp", "anchor": "udp" if a.net else "smp"}
    work = tempfile.mkdtemp(prefix="gexx-visperf.")
    tests = vs_anchor.suite_tests(tar, work)
    progs = {}
    for side, prefix in sides.items():
        progs[side] = os.path.join(work, "testvisperf-%s" % side)
        vs_anchor.build(prefix, conduits[side], tests, "testvisperf", progs[side])
    got = {"gexx": {}, "anchor": {}}
    for i in range(a.runs):
        for side in (["gexx", "anchor"] if i % 2 == 0 else ["anchor", "gexx"]):
            pad = (i * 4096 // a.runs) if a.stack_scan else None
            out = vs_anchor.run(side, progs[side], a.args.split(), a.ranks, a.net, a.provider,
                                sides[side], a.timeout, a.conduit, pad)
            for key, v in tables(out).items():
                got[side].setdefault(key, []).append(v)
    gexx_net = ("ofi/%s" % (a.provider or "default provider")) if a.conduit == "ofi" \
        else a.conduit
    where = ("net: gexx %s vs anchor udp" % gexx_net) if a.net else "smp"
    print("# testvisperf %s, %d ranks, %s, %d runs each, alternated%s"
          % (a.args, a.ranks, where, a.runs, ", stack placements scanned" if a.stack_scan else ""))
    print("# per section: median over cells of gexx/anchor bandwidth (above 1: gexx faster), "
          "lowest cell")
    sections = []
    for key in got["gexx"]:
        if key[0] not in sections:
            sections.append(key[0])
    for title in sections:
        ratios = []
        for key, gv in got["gexx"].items():
            if key[0] != title or key not in got["anchor"]:
                continue
            g, r = statistics.median(gv), statistics.median(got["anchor"][key])
            if g > 0 and r > 0:
                ratios.append((g / r, key[1], key[2]))
        if not ratios:
            continue
        low = min(ratios)
        print("%-44s median %5.2f  lowest %5.2f (%d bytes, density column %d)"
              % (title[:44], statistics.median(x[0] for x in ratios), low[0], low[1], low[2]))
        if a.cells:
            cell = {(x[1], x[2]): x[0] for x in ratios}
            for row in sorted(set(x[1] for x in ratios)):
                print("    %8d  %s" % (row, "  ".join("%5.2f" % cell[(row, c)] if (row, c) in cell
                                                    else "   - " for c in range(4))))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
