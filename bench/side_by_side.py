#!/usr/bin/env python3
"""side_by_side: the metrics of issue 23, gexx against GASNet-EX 2020.10 (the
anchor), from GASNet's own testsmall, testlarge, testam and testbarrier.

Each test of the EX suite tarball (../shared/suites) is compiled twice with
nothing but the install's <conduit>-seq.mak fragment (bench/vs_anchor.py's
build), so both sides run the very same client code. Runs alternate (gexx,
anchor, anchor, gexx, ...); each metric is the median of the runs of a side
and the table prints both medians, the spreads (min-max) and the ratio
gexx/anchor for times (below 1: gexx faster) or gexx/anchor for rates (above
1: gexx faster), and a verdict against the issue's target.

    python3 bench/side_by_side.py --gexx install [--anchor /tmp/gexx-anchor/install]
        [--net] [--runs 5] [--provider net] [--conduit ofi|udp]

Without --net both sides run their smp conduit with 2 ranks. With --net
every peer is behind the network (GASNET_SUPERNODE_MAXSIZE=1): gexx's ofi
conduit over --provider (default net), or its udp conduit with --conduit udp,
and the anchor's udp conduit.
The script never fails on speed; it fails when a build or a run fails or a
metric is missing from a program's output.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile
import subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vs_anchor  # noqa: E402  (build() and run())


def small_latency(size, name):
    """ns per op from testsmall's "latency T us total" over its iteration count."""
    pat = re.compile(r"^\w:\s+0 -\s+%d byte :\s+(\d+) iters, latency\s+(\d+) us total.*\(%s\)"
                     % (size, re.escape(name)))

    def get(text):
        for line in text.splitlines():
            m = pat.match(line.strip())
            if m:
                return int(m.group(2)) * 1000.0 / int(m.group(1))
        return None
    return get


def large_rate(size, name):
    """GB/s (10^9) from testlarge -m (MB = 2^20)."""
    pat = re.compile(r"^\w:\s+0 -\s+%d byte :.*throughput\s+([\d.]+) MB/sec \(%s\)"
                     % (size, re.escape(name)))

    def get(text):
        for line in text.splitlines():
            m = pat.match(line.strip())
            if m:
                return float(m.group(1)) * 1048576 / 1e9
        return None
    return get


def am_time(desc):
    """us per op from one of testam's lines."""
    pat = re.compile(r"^\w:\s+%s\s*:\s+[\d.]+ sec\s+([\d.]+) us" % desc)

    def get(text):
        for line in text.splitlines():
            m = pat.match(line.strip())
            if m:
                return float(m.group(1))
        return None
    return get


def am_flood_rate(text):
    """GB/s of the largest AMMedium one-way flood testam printed."""
    best = None
    pat = re.compile(r"^\w:\s+(\d+) AMMedium\s+flood\s+one-way\s+Req\s*:.*us\s+([\d.]+) MB/s")
    for line in text.splitlines():
        m = pat.match(line.strip())
        if m and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), float(m.group(2)))
    return best[1] * 1048576 / 1e9 if best else None


def barrier_time(text):
    m = re.search(r"Avg Anon\. Barrier latency:\s+([\d.]+) us", text)
    return float(m.group(1)) if m else None


# (program, args smp, args net)
PROGRAMS = {
    "small": ("testsmall", "1000000 1024 A", "2000 1024 A"),
    "large": ("testlarge", "-m 50 1048576 A", "-m 20 4194304 A"),
    "am": ("testam", "2000 1024 AB", "500 65536 ABD"),
    "barrier": ("testbarrier", "20000", "2000"),
}

# (label, program, extractor, unit, is_rate, target ratio gexx/anchor, net?)
SMP_METRICS = [
    ("smp: blocking put 8 B", "small", small_latency(8, "PutBlocking latency"), "ns", False, 1.0),
    ("smp: blocking get 8 B", "small", small_latency(8, "GetBlocking latency"), "ns", False, 1.0),
    ("smp: put 1 KiB", "small", small_latency(1024, "PutBlocking latency"), "ns", False, 1.0),
    ("smp: get 1 KiB", "small", small_latency(1024, "GetBlocking latency"), "ns", False, 1.0),
    ("smp: AMShort round trip", "am", am_time(r"AMShort\s+ping-pong roundtrip ReqRep"), "us",
     False, 1.0),
    ("smp: AMMedium 1 KiB round trip", "am",
     am_time(r"1024 AMMedium\s+ping-pong roundtrip ReqRep"), "us", False, 1.0),
    ("smp: bulk put 1 MiB", "large", large_rate(1048576, "PutBlocking throughput"), "GB/s",
     True, 1.0),
    ("smp: barrier", "barrier", barrier_time, "us", False, 1.0),
]
NET_METRICS = [
    ("network: AMShort round trip", "am", am_time(r"AMShort\s+ping-pong roundtrip ReqRep"), "us",
     False, 1.0),
    ("network: AMMedium 1 KiB round trip", "am",
     am_time(r"1024 AMMedium\s+ping-pong roundtrip ReqRep"), "us", False, 1.0),
    ("network: AMMedium flood bandwidth", "am", am_flood_rate, "GB/s", True, 1.5),
    ("network: bulk put 4 MiB", "large", large_rate(4194304, "PutBlocking throughput"), "GB/s",
     True, 1.0),
    ("network: barrier", "barrier", barrier_time, "us", False, 1.0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gexx", required=True, help="gexx install prefix")
    ap.add_argument("--anchor", default="/tmp/gexx-anchor/install", help="anchor install prefix")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--net", action="store_true")
    ap.add_argument("--provider", default="net")
    ap.add_argument("--conduit", default="ofi", choices=["ofi", "udp"],
                    help="gexx's network conduit with --net (default ofi)")
    ap.add_argument("--only", default="", help="regex over the metric labels to run")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--suites", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "..", "shared", "suites"))
    a = ap.parse_args()
    tar = os.path.join(a.suites, "gasnet-ex-2020.10.0-tests.tar.gz")
    if not os.path.exists(tar):
        vs_anchor.die("no EX suite tarball at %s" % tar)
    metrics = [m for m in (NET_METRICS if a.net else SMP_METRICS)
               if not a.only or re.search(a.only, m[0])]
    needed = sorted({m[1] for m in metrics})
    sides = {"gexx": os.path.abspath(a.gexx), "anchor": os.path.abspath(a.anchor)}
    conduits = {"gexx": a.conduit if a.net else "smp", "anchor": "udp" if a.net else "smp"}
    work = tempfile.mkdtemp(prefix="gexx-side-by-side.")
    tests = vs_anchor.suite_tests(tar, work)
    progs = {}
    for side, prefix in sides.items():
        for key in needed:
            test = PROGRAMS[key][0]
            progs[side, key] = os.path.join(work, "%s-%s" % (test, side))
            vs_anchor.build(prefix, conduits[side], tests, test, progs[side, key])
    got = {(side, m[0]): [] for side in sides for m in metrics}
    for i in range(a.runs):
        order = ["gexx", "anchor"] if i % 2 == 0 else ["anchor", "gexx"]
        for key in needed:
            args = PROGRAMS[key][2 if a.net else 1].split()
            for side in order:
                out = vs_anchor.run(side, progs[side, key], args, 2, a.net, a.provider,
                                    sides[side], a.timeout, a.conduit)
                for m in metrics:
                    if m[1] != key:
                        continue
                    v = m[2](out)
                    if v is None:
                        vs_anchor.die("%s: no figure for '%s' in %s's output:\n%s"
                                      % (PROGRAMS[key][0], m[0], side, out[-3000:]))
                    got[side, m[0]].append(v)
    gexx_net = "ofi/%s" % a.provider if a.conduit == "ofi" else a.conduit
    where = ("gexx %s vs anchor udp, GASNET_SUPERNODE_MAXSIZE=1" % gexx_net
             if a.net else "smp conduits")
    print("# side_by_side: 2 ranks, %s, %d alternated runs each; medians (min-max)"
          % (where, a.runs))
    print("# ratio = gexx/anchor (times: below 1 is gexx faster; rates: above 1 is gexx faster)")
    print("| metric | GASNet-EX 2020.10 | gexx | gexx/GASNet | target |")
    print("|---|---:|---:|---:|---|")
    for label, _, _, unit, rate, target in metrics:
        g, r = got["gexx", label], got["anchor", label]
        gm, rm = statistics.median(g), statistics.median(r)
        ratio = gm / rm if rm else float("nan")
        ok = ratio >= target if rate else ratio <= target
        want = (">= %.2g" % target) if rate else ("<= %.2g" % target)
        print("| %s | %.4g %s (%.4g-%.4g) | %.4g %s (%.4g-%.4g) | %.2f | %s %s |"
              % (label, rm, unit, min(r), max(r), gm, unit, min(g), max(g), ratio, want,
                 "met" if ok else "NOT met"))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
