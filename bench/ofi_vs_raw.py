#!/usr/bin/env python3
"""ofi_vs_raw: the ofi conduit beside raw libfabric, in the same run.

    python3 bench/ofi_vs_raw.py [--bin-dir build] [--providers 'tcp;ofi_rxm,net']
                                [--rounds 5] [--reps 3000]

For each provider, alternating the programs round after round so that both
see the same machine: the AMShort round trip (bench/am_bench_ofi ... short)
against libfabric's 8-byte send/receive round trip (bench/fi_raw_bench rt),
and bulk put bandwidth at 4 MiB (bench/rma_bench_ofi ... bandwidth) against
fi_write's (bench/fi_raw_bench write: one write in flight and eight).
Every peer goes through the provider (GASNET_SUPERNODE_MAXSIZE=1). Prints
medians over the rounds and the ratios the ofi issue sets targets for
(round trip at most 1.2x raw; put at least 80% of raw). Figures only: it
never fails on speed, only when a program fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

PUT_SIZE = 4194304


def run(argv, env=None, timeout=600):
    full = dict(os.environ, **(env or {}))
    p = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit("ofi_vs_raw: %s failed (%d):\n%s%s" % (" ".join(argv), p.returncode, p.stdout,
                                                        p.stderr))
    return p.stdout


def grab(pattern, text, what):
    m = re.search(pattern, text, re.M)
    if not m:
        sys.exit("ofi_vs_raw: no %s in:\n%s" % (what, text))
    return [float(g) for g in m.groups()]


def one_round(b, provider, reps):
    env = {"GASNET_SUPERNODE_MAXSIZE": "1", "GASNET_OFI_PROVIDER": provider}
    launcher = os.path.join(b, "gasnetrun_ofi")
    out = {}
    text = run([launcher, "-n", "2", os.path.join(b, "bench", "am_bench_ofi"), str(reps), "short"],
               env)
    out["am_rt"] = grab(r"^AMShort\s+round trip\s+0 B:\s+([\d.]+) us", text, "AMShort round trip")[0]
    text = run([os.path.join(b, "bench", "fi_raw_bench"), "-p", provider, "-n", str(reps), "rt"])
    out["raw_rt"] = grab(r"round trip 8 B:\s+([\d.]+) us", text, "raw round trip")[0]
    text = run([launcher, "-n", "2", os.path.join(b, "bench", "rma_bench_ofi"), "1000",
                "bandwidth", str(PUT_SIZE)], env)
    out["put"] = grab(r"^%d\s+\d+\s+(\d+)" % PUT_SIZE, text, "put_bulk at 4 MiB")[0]
    text = run([os.path.join(b, "bench", "fi_raw_bench"), "-p", provider, "-s",
                str(PUT_SIZE), "write"])
    out["raw_w1"], out["raw_w8"] = grab(r"^%d\s+(\d+)\s+(\d+)" % PUT_SIZE, text, "fi_write at 4 MiB")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", default="build")
    ap.add_argument("--providers", default="tcp;ofi_rxm,net")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3000)
    args = ap.parse_args()
    for prog in ("am_bench_ofi", "rma_bench_ofi", "fi_raw_bench"):
        if not os.path.exists(os.path.join(args.bin_dir, "bench", prog)):
            sys.exit("ofi_vs_raw: %s/bench/%s is missing: build with libfabric (the ofi conduit)"
                     % (args.bin_dir, prog))
    providers = []
    for p in (p for p in args.providers.split(",") if p):
        probe = subprocess.run(["fi_info", "-p", p, "-t", "FI_EP_RDM"], capture_output=True)
        if probe.returncode == 0:
            providers.append(p)
        else:
            print("# provider %s is not offered here (fi_info -p); left out" % p)
    if not providers:
        print("SKIP: none of the providers is offered here")
        sys.exit(77)
    seen = {p: [] for p in providers}
    for r in range(args.rounds):
        for p in providers:
            seen[p].append(one_round(args.bin_dir, p, args.reps))
        print("# round %d of %d done" % (r + 1, args.rounds), file=sys.stderr, flush=True)
    print("# ofi conduit beside raw libfabric, 2 processes on this host, medians of %d rounds"
          % args.rounds)
    print("%-13s %9s %9s %6s | %9s %9s %9s %7s" % ("provider", "AM RT us", "raw RT us", "ratio",
                                                  "put MB/s", "write x1", "write x8", "put/raw"))
    for p in providers:
        med = {k: statistics.median(x[k] for x in seen[p]) for k in seen[p][0]}
        best = max(med["raw_w1"], med["raw_w8"])
        print("%-13s %9.2f %9.2f %5.2fx | %9.0f %9.0f %9.0f %6.0f%%" % (
            p, med["am_rt"], med["raw_rt"], med["am_rt"] / med["raw_rt"], med["put"],
            med["raw_w1"], med["raw_w8"], 100 * med["put"] / best))
    print("# targets (issue 7): AM RT at most 1.2x raw; put at least 80% of raw's best")


if __name__ == "__main__":
    main()
