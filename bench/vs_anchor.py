#!/usr/bin/env python3
"""vs_anchor: one of GASNet's own test programs, built against gexx and
against the reference GASNet-EX 2020.10 (the anchor), run in turns in one
run, medians side by side.

The same source (from the EX suite tarball in ../shared/suites) is compiled
twice, each time with nothing but the install's <conduit>-seq.mak fragment,
so both sides run the very same client code. Runs alternate (gexx, anchor,
anchor, gexx, ...); each figure a line prints is keyed by the line with its
numbers blanked, and the table gives the median of each side, the spread
(min-max) and the ratio anchor/gexx for times (above 1: gexx is faster) or
gexx/anchor for rates.

    python3 bench/vs_anchor.py --gexx install --anchor /tmp/gexx-anchor/install \\
        --test testcollperf --args "-szfactor 4 8 1 1000 0" --ranks 4 [--net] [--runs 5]

--net puts every peer behind the network: gexx's ofi conduit over
GASNET_OFI_PROVIDER (default tcp), or with --conduit udp its udp conduit, and
the anchor's udp conduit, all with GASNET_SUPERNODE_MAXSIZE=1. Without it both run their smp conduit.
--grep REGEX keeps only the lines that match (the figures of interest).

Build the anchor with ../shared/anchors/build-gasnet-ex.sh. The script never
fails on speed; it fails when a program fails or a build fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile

# A number not glued to a name (U32, I64 stay words).
NUM = re.compile(r"(?<![A-Za-z_\d.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![A-Za-z_\d])")
# The figure of a line: the last number followed by one of these units.
FIGURE = re.compile(r"(?<![A-Za-z_\d.])([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*"
                    r"(us|usec|ms|sec|s|ns|ops/sec|ops/s|[KMG]i?B/s(?:ec)?|B/s)\b")
RATE_UNITS = ("/s", "/sec")


def die(msg):
    print("vs_anchor: " + msg, file=sys.stderr)
    sys.exit(2)


def suite_tests(src_tar, work):
    with tarfile.open(src_tar) as t:
        t.extractall(work)
    for root, dirs, files in os.walk(work):
        if "testcollperf.c" in files and "test.h" in files:
            return root
    die("no tests/ folder in " + src_tar)


def build(prefix, conduit, tests, test, out):
    frag = os.path.join(prefix, "include", "%s-conduit" % conduit, "%s-seq.mak" % conduit)
    if not os.path.exists(frag):
        die("no %s in %s (is the %s conduit built there?)" % (frag, prefix, conduit))
    src = os.path.join(tests, test + (".cc" if os.path.exists(os.path.join(tests, test + ".cc"))
                                      else ".c"))
    cc = "GASNET_CXX" if src.endswith(".cc") else "GASNET_CC"
    flags = ("$(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS)" if src.endswith(".cc")
             else "$(GASNET_CPPFLAGS) $(GASNET_CFLAGS)")
    amx = os.path.join(os.path.dirname(tests), "other", "amx")
    mk = os.path.join(os.path.dirname(out), os.path.basename(out) + ".mk")
    with open(mk, "w") as f:
        f.write("include %s\n%s: %s\n\t$(%s) %s -I%s -I%s -o $@.o -c $<\n"
                "\t$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $@.o $(GASNET_LIBS)\n"
                % (frag, out, src, cc, flags, tests, amx))
    r = subprocess.run(["make", "-s", "-f", mk, out], capture_output=True, text=True)
    if r.returncode != 0:
        die("building %s against %s failed:\n%s%s" % (test, prefix, r.stdout, r.stderr[-3000:]))


def run(side, prog, args, ranks, net, provider, prefix, timeout, conduit="ofi", stack_pad=None):
    """One run; with `net`, gexx's side on its network `conduit` (ofi over
    `provider`, or udp). With `stack_pad` (bytes), the run's stack is placed
    by hand: address randomization off for it (setarch -R) and an
    environment variable of that many bytes, which moves where the stack
    starts (bench/visperf_vs_anchor.py --stack-scan says why)."""
    env = dict(os.environ)
    wrap = []
    if stack_pad is not None:
        env["GEXX_BENCH_STACK_PAD"] = "x" * stack_pad
        wrap = ["setarch", os.uname().machine, "-R"]
    if net:
        env["GASNET_SUPERNODE_MAXSIZE"] = "1"
        if side == "gexx":
            if conduit == "ofi" and provider:
                env["GASNET_OFI_PROVIDER"] = provider
            elif conduit == "ofi":  # what users get: gexx's own choice (net on plain Ethernet)
                env.pop("GASNET_OFI_PROVIDER", None)
            cmd = [os.path.join(prefix, "bin", "gasnetrun_" + conduit), "-n", str(ranks),
                   prog] + args
        else:
            env["GASNET_SPAWNFN"] = "L"
            cmd = [prog, str(ranks)] + args
    else:
        env["GASNET_PSHM_NODES"] = str(ranks)
        cmd = [prog] + args
    cmd = wrap + cmd
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        die("%s run failed (%d): %s\n%s%s" % (side, r.returncode, " ".join(cmd),
                                            r.stdout[-2000:], r.stderr[-2000:]))
    return r.stdout


def figures(text, keep):
    """{key: [numbers]} for each line with numbers (and matching keep)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if keep and not re.search(keep, line):
            continue
        figs = FIGURE.findall(line)
        if not figs or "granularity" in line:
            continue
        value, unit = figs[-1]
        key = " ".join(NUM.sub("#", line).split())  # widths of numbers vary
        label = " ".join(line.split())
        out[key] = (label, float(value), unit)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gexx", required=True, help="gexx install prefix")
    ap.add_argument("--anchor", default="/tmp/gexx-anchor/install", help="anchor install prefix")
    ap.add_argument("--test", required=True)
    ap.add_argument("--args", default="")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--net", action="store_true")
    ap.add_argument("--conduit", default="ofi", choices=["ofi", "udp"],
                    help="gexx's network conduit with --net (default ofi)")
    ap.add_argument("--provider", default="",
                    help="GASNET_OFI_PROVIDER for gexx with --net (default: the conduit's own choice, net on Ethernet)")
    ap.add_argument("--grep", default="")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--suites", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "..", "shared", "suites"))
    a = ap.parse_args()
    tar = os.path.join(a.suites, "gasnet-ex-2020.10.0-tests.tar.gz")
    if not os.path.exists(tar):
        die("no EX suite tarball at %s" % tar)
    sides = {"gexx": os.path.abspath(a.gexx), "anchor": os.path.abspath(a.anchor)}
    conduits = {"gexx": a.conduit if a.net else "smp", "anchor": "udp" if a.net else "smp"}
    work = tempfile.mkdtemp(prefix="gexx-vs-anchor.")
    tests = suite_tests(tar, work)
    progs = {}
    for side, prefix in sides.items():
        progs[side] = os.path.join(work, "%s-%s" % (a.test, side))
        build(prefix, conduits[side], tests, a.test, progs[side])
    args = a.args.split()
    order = []
    for i in range(a.runs):
        order += ["gexx", "anchor"] if i % 2 == 0 else ["anchor", "gexx"]
    got = {"gexx": {}, "anchor": {}}
    for side in order:
        out = run(side, progs[side], args, a.ranks, a.net, a.provider, sides[side], a.timeout,
                  a.conduit)
        for key, fig in figures(out, a.grep).items():
            got[side].setdefault(key, []).append(fig)
    gexx_net = ("ofi/%s" % (a.provider or "default")) if a.conduit == "ofi" else a.conduit
    where = ("net: gexx %s vs anchor udp" % gexx_net) if a.net else "smp"
    print("# %s %s, %d ranks, %s, %d runs each, alternated; medians (min-max)"
          % (a.test, a.args, a.ranks, where, a.runs))
    print("# ratio: anchor/gexx for times, gexx/anchor for rates (above 1: gexx faster)")
    for key in got["gexx"]:
        if key not in got["anchor"]:
            continue
        g, r = got["gexx"][key], got["anchor"][key]
        gv, rv = [x[1] for x in g], [x[1] for x in r]
        unit = g[0][2]
        gm, rm = statistics.median(gv), statistics.median(rv)
        rate = unit.endswith(RATE_UNITS)
        ratio = (gm / rm if rate else rm / gm) if gm and rm else float("nan")
        label = FIGURE.sub(lambda m: "<" + m.group(2) + ">", g[0][0])
        print("%-72s gexx %11.4g (%.4g-%.4g)  anchor %11.4g (%.4g-%.4g)  %s  ratio %.2f"
              % (label[:72], gm, min(gv), max(gv), rm, min(rv), max(rv), unit, ratio))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
