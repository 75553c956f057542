#!/usr/bin/env python3
"""coll_vs_anchor: the EX collectives of gexx beside GASNet-EX 2020.10's (the
anchor), bench/coll_bench.c built against both installs and run in turns.

For each rank count (default 2, 4, 8) the runs alternate (gexx, anchor,
anchor, gexx, ...); the table gives, per metric, the median of each side
and the ratio (above 1: gexx faster; anchor/gexx for latencies, gexx/anchor
for bandwidths). The metrics are the issue's: broadcast and reduce-to-all
latency at 8 bytes and bandwidth at 1 MiB, with reduce-to-one and the
barrier beside them, on the job team (--team split: the team gex_TM_Split
makes of every rank).

    python3 bench/coll_vs_anchor.py --gexx install [--net] [--ranks 2,4,8]
        [--runs 3] [--reps 200] [--pairs] [--conduit ofi|udp]

--pairs times each metric by itself (coll_bench's third argument): per rank
count and metric, --runs pairs of runs, one of each side back to back (the
order alternating), and the ratio is the median of the pairs' ratios. On a
host whose speed drifts (a VM that has fast and slow periods of minutes) a
pair sees the same period where whole-program runs, minutes long over the
network, do not.

Without --net both sides run their smp conduit (GASNET_PSHM_NODES=N for the
anchor, gasnetrun for gexx). --net puts every peer behind the network:
gexx's ofi conduit over GASNET_OFI_PROVIDER (default net: the provider the
conduit picks by itself on an Ethernet-only host, docs/ofi.md; --provider tcp
for tcp;ofi_rxm), or gexx's udp conduit with --conduit udp, and the anchor's
udp conduit, both with GASNET_SUPERNODE_MAXSIZE=1 (--supernode M for
another neighbourhood size on both sides).

Figures only: the script fails when a build or a run fails, never on speed.
On a loaded host take the ratios from several runs (the medians).
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(job|split)\s+(\S+)\s+(\d+) B\s+([\d.eE+-]+) us(?:\s+([\d.eE+-]+) MB/s)?")
METRICS = [  # (collective, bytes, bandwidth?)
    ("broadcast", 8, False), ("reduce-to-all", 8, False),
    ("broadcast", 1 << 20, True), ("reduce-to-all", 1 << 20, True),
    ("reduce-to-one", 8, False), ("reduce-to-one", 1 << 20, True), ("barrier", 0, False)]


def die(msg):
    print("coll_vs_anchor: " + msg, file=sys.stderr)
    sys.exit(2)


def build(prefix, conduit, out):
    frag = os.path.join(prefix, "include", "%s-conduit" % conduit, "%s-seq.mak" % conduit)
    if not os.path.exists(frag):
        die("no %s (is the %s conduit installed in %s?)" % (frag, conduit, prefix))
    mk = out + ".mk"
    with open(mk, "w") as f:
        f.write("include %s\n%s: %s\n\t$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) "
                "-o $@.o -c $<\n\t$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $@.o $(GASNET_LIBS)\n"
                % (frag, out, os.path.join(HERE, "coll_bench.c")))
    r = subprocess.run(["make", "-s", "-f", mk, out], capture_output=True, text=True)
    if r.returncode != 0:
        die("building coll_bench against %s failed:\n%s%s" % (prefix, r.stdout, r.stderr[-3000:]))


def run(side, prog, a, ranks, prefix, only=None):
    env = dict(os.environ)
    args = [str(a.reps), a.team] + ([only] if only else [])
    if a.net:
        env["GASNET_SUPERNODE_MAXSIZE"] = str(a.supernode)
        if side == "gexx":
            env["GASNET_OFI_PROVIDER"] = a.provider
            cmd = [os.path.join(prefix, "bin", "gasnetrun_" + a.conduit), "-n", str(ranks),
                   prog] + args
        else:
            env["GASNET_SPAWNFN"] = "L"
            cmd = [prog, str(ranks)] + args
    else:
        if side == "gexx":
            cmd = [os.path.join(prefix, "bin", "gasnetrun"), "-n", str(ranks), prog] + args
        else:
            env["GASNET_PSHM_NODES"] = str(ranks)
            cmd = [prog] + args
    # A session of its own, so that a run past --timeout goes with all its
    # processes; the figures it printed by then still count.
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        print("# %s, %d ranks: past %d s, stopped (its figures so far count)"
              % (side, ranks, a.timeout))
    else:
        if p.returncode != 0:
            die("%s run failed (%d): %s\n%s%s" % (side, p.returncode, " ".join(cmd),
                                                out[-2000:], err[-2000:]))
    got = {}
    for line in out.splitlines():
        m = LINE.match(line.strip())
        if m and m.group(1) == a.team:
            us, mbs = float(m.group(4)), m.group(5)
            got[(m.group(2), int(m.group(3)))] = (us, float(mbs) if mbs else None)
    return got


def metric_name(name, nbytes):
    return "%s %s" % (name, "1 MiB" if nbytes == 1 << 20 else "%d B" % nbytes)


def print_row(a, ranks, name, nbytes, bw, r, g, ratio, spread=None):
    """One metric's line: the anchor's and gexx's medians (r, g) and the
    ratio, with the pairs' spread of ratios when given."""
    what, unit = metric_name(name, nbytes), "MB/s" if bw else "us"
    pairs_note = " (%s)" % spread if spread else ""
    if a.markdown:
        print("| %d | %s | %.4g %s | %.4g %s | %.2f%s |" % (ranks, what, r, unit, g, unit, ratio,
                                                             pairs_note))
    else:
        print("%2d ranks  %-20s anchor %10.4g %-4s  gexx %10.4g %-4s  ratio %6.2f%s%s"
              % (ranks, what, r, unit, g, unit, ratio,
                 " (pairs %s)" % spread if spread else "", "" if ratio >= 1 else "  <"))
    sys.stdout.flush()


def pairs(a, progs, sides):
    """Each metric by itself, in back-to-back pairs; the ratio of each pair."""
    for ranks in [int(x) for x in a.ranks.split(",")]:
        for name, nbytes, bw in METRICS:
            key = (name, nbytes)
            only = "%s:%d" % key
            if a.metrics and only not in a.metrics.split(","):
                continue
            vals = {"gexx": [], "anchor": []}
            ratios = []
            for i in range(a.runs):
                pair = {}
                for side in (["gexx", "anchor"] if i % 2 == 0 else ["anchor", "gexx"]):
                    r = run(side, progs[side], a, ranks, sides[side], only)
                    if key in r:
                        pair[side] = r[key][1 if bw else 0]
                        vals[side].append(pair[side])
                if len(pair) == 2 and pair["gexx"] and pair["anchor"]:
                    g, r = pair["gexx"], pair["anchor"]
                    ratios.append(g / r if bw else r / g)
            if not ratios:
                print("%2d ranks  %-20s no pair finished" % (ranks, metric_name(name, nbytes)))
                continue
            print_row(a, ranks, name, nbytes, bw, statistics.median(vals["anchor"]),
                      statistics.median(vals["gexx"]), statistics.median(ratios),
                      "%.2f-%.2f" % (min(ratios), max(ratios)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gexx", required=True, help="gexx install prefix")
    ap.add_argument("--anchor", default="/tmp/gexx-anchor/install", help="anchor install prefix")
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=200, help="8-byte repetitions (1 MiB: 1/20)")
    ap.add_argument("--team", default="job", choices=["job", "split"])
    ap.add_argument("--net", action="store_true")
    ap.add_argument("--supernode", type=int, default=1)
    ap.add_argument("--provider", default="net")
    ap.add_argument("--conduit", default="ofi", choices=["ofi", "udp"],
                    help="gexx's network conduit with --net (default ofi)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    ap.add_argument("--pairs", action="store_true",
                    help="each metric by itself, in back-to-back pairs (ratio: median of the "
                    "pairs')")
    ap.add_argument("--metrics", default="",
                    help="with --pairs, only these metrics, comma-separated, each as coll_bench's "
                    "third argument names it (e.g. reduce-to-all:1048576,broadcast:8)")
    a = ap.parse_args()
    known = ["%s:%d" % (name, nbytes) for name, nbytes, _ in METRICS]
    unknown = [m for m in a.metrics.split(",") if m and m not in known]
    if unknown:
        die("--metrics: no metric %s (known: %s)" % (", ".join(unknown), ", ".join(known)))
    sides = {"gexx": os.path.abspath(a.gexx), "anchor": os.path.abspath(a.anchor)}
    conduits = {"gexx": a.conduit if a.net else "smp", "anchor": "udp" if a.net else "smp"}
    work = tempfile.mkdtemp(prefix="gexx-coll-vs-anchor.")
    progs = {}
    for side, prefix in sides.items():
        progs[side] = os.path.join(work, "coll_bench-" + side)
        build(prefix, conduits[side], progs[side])
    gexx_net = "ofi/%s" % a.provider if a.conduit == "ofi" else a.conduit
    where = ("net: gexx %s vs anchor udp, GASNET_SUPERNODE_MAXSIZE=%d"
             % (gexx_net, a.supernode)) if a.net else "smp: gexx smp vs anchor smp"
    load = os.getloadavg()[0]
    print("# coll_bench, %s team, %s; %d runs each, alternated, medians; %d reps (1 MiB: %d)"
          % (a.team, where, a.runs, a.reps, max(5, a.reps // 20)))
    print("# ratio above 1: gexx faster (anchor/gexx for us, gexx/anchor for MB/s); "
          "load average at start %.1f" % load)
    if a.markdown:
        print("| ranks | metric | GASNet-EX | gexx | ratio |\n| --- | --- | --- | --- | --- |")
    t0 = time.time()
    if a.pairs:
        pairs(a, progs, sides)
        print("# %.0f s" % (time.time() - t0))
        subprocess.run(["rm", "-rf", work])
        return
    for ranks in [int(x) for x in a.ranks.split(",")]:
        got = {"gexx": [], "anchor": []}
        for i in range(a.runs):
            for side in (["gexx", "anchor"] if i % 2 == 0 else ["anchor", "gexx"]):
                got[side].append(run(side, progs[side], a, ranks, sides[side]))
        for name, nbytes, bw in METRICS:
            vals = {}
            for side in got:
                xs = [r[(name, nbytes)][1 if bw else 0] for r in got[side] if (name, nbytes) in r]
                vals[side] = statistics.median(xs) if xs else None
            g, r = vals["gexx"], vals["anchor"]
            if g is None and r is None:
                continue
            if g is None or r is None:
                print("%2d ranks  %-20s %s" % (ranks, metric_name(name, nbytes),
                      "only the anchor finished" if g is None else "only gexx finished"))
                continue
            ratio = (g / r if bw else r / g) if g and r else float("nan")
            print_row(a, ranks, name, nbytes, bw, r, g, ratio)
    print("# %.0f s" % (time.time() - t0))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
