#!/usr/bin/env python3
"""upcxx_vs_anchor: UPC++'s own benchmarks on UPC++ built over gexx and over
the reference GASNet-EX 2020.10 (the anchor), run in turns, medians side by
side.

Both sides are UPC++ 2020.10.0 installs (../shared/clients/upcxx-2020.10.0.tar.gz)
built the same way, each against its GASNet: --build makes them (opt code mode
only, smp, `nice -n 10`, about 20-30 minutes each on a loaded 2-core host):

    python3 bench/upcxx_vs_anchor.py --build \\
        --gexx-gasnet gexx-<version>.tar.gz (from `make dist`) \\
        --anchor-gasnet ../shared/anchors/GASNet-2020.10.0.tar.gz

which runs, for each, UPC++'s configure with --with-gasnet=<that> --enable-single=opt
--disable-auto-conduit-detect --enable-smp --with-default-network=smp, then
`make -j2 all` and `make install` into WORK/upcxx-{gexx,anchor}/inst. Then

    python3 bench/upcxx_vs_anchor.py [--runs 5] [--ranks 2] [--bench put_flood,...]

--conduit udp builds and runs both over their udp conduits instead (UPC++
configured with --enable-udp --with-default-network=udp, installs in
WORK/upcxx-{gexx,anchor}-udp; runs with GASNET_SUPERNODE_MAXSIZE=1, every
peer through UDP, and GASNET_SPAWNFN=L: both sides' spawners fork locally).

compiles bench/put_flood.cpp, misc_perf.cpp and nebr_exchange.cpp of UPC++'s
sources with each install's `upcxx -O3` (UPCXX_CODEMODE=opt, seq), runs each with
that install's `upcxx-run -n RANKS` alternately (gexx, anchor, anchor, gexx, ...)
and prints, per figure, the median of each side, the spread, and the ratio
(gexx/anchor for rates, anchor/gexx for times: above 1 means gexx is faster).

--gexx-lib DIR runs the gexx side against the shared libraries in DIR (a
gexx build folder, e.g. ./build) instead of the ones its UPC++ install was
built with (LD_LIBRARY_PATH comes before their RUNPATH): a tree's runtime
measured without rebuilding UPC++, valid while the tree's public headers
are the install's (the script checks they are; the anchor's GASNet is
linked statically and is not affected). Only for a UPC++ whose programs
link gexx's shared library: since gexx's configure front end makes its
fragments link the archive (as GASNet's do), a UPC++ built over a newer
release links gexx statically, and the script says so.

--bench probe adds bench/upcxx_probe.c, built with each install's GASNet
(gasnet.opt/include/smp-conduit/smp-seq.mak): the GASNet-EX calls under those
benchmarks (poll, PutNB + Test, AD ops, AMs to oneself), one at a time.

Figures: put_flood and nebr_exchange report bytes per second (report_file=-:
their emit(...) lines); misc_perf prints a time per operation (us). The
script never fails on speed; it fails when a build or a run fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.abspath(os.path.join(HERE, "..", "..", "shared"))
UPCXX_TAR = os.path.join(SHARED, "clients", "upcxx-2020.10.0.tar.gz")
BENCHES = ("put_flood", "misc_perf", "nebr_exchange")
EMIT = re.compile(r"^emit\(\[(.*?)\],\s*(.*)\)\s*$")
PAIR = re.compile(r'(\w+)=("(?:[^"]*)"|[^,]+)')
# misc_perf: "N: description     : total s   avg us"
# upcxx_probe: "name   12.3 ns"
PROBE = re.compile(r"^(\S.*?)\s+([0-9.]+) ns$")
MISC = re.compile(r"^\s*(\d+):\s*(.*?)\s*:\s*[0-9.]+\s*s\s+([0-9.]+)\s*us\s*$")


def die(msg):
    print("upcxx_vs_anchor: " + msg, file=sys.stderr)
    sys.exit(2)


def sh(cmd, log, cwd=None, env=None):
    with open(log, "w") as f:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        with open(log) as f:
            tail = f.read().splitlines()[-15:]
        die("%s failed (%d); last lines of %s:\n  %s" % (" ".join(cmd), r.returncode, log,
                                                         "\n  ".join(tail)))


def build_upcxx(gasnet, work, conduit):
    """UPC++ 2020.10, opt only, `conduit` (smp or udp), against GASNet source `gasnet`, into
    work/inst."""
    if not os.path.exists(UPCXX_TAR):
        die("no " + UPCXX_TAR)
    gasnet = os.path.abspath(gasnet)
    subprocess.run(["rm", "-rf", work], check=True)
    os.makedirs(os.path.join(work, "bld"))
    with tarfile.open(UPCXX_TAR) as t:
        t.extractall(work)
    os.rename(os.path.join(work, "upcxx-2020.10.0"), os.path.join(work, "src"))
    bld = os.path.join(work, "bld")
    nice = ["nice", "-n", "10"]
    sh(nice + [os.path.join(work, "src", "configure"), "--prefix=" + os.path.join(work, "inst"),
               "--with-gasnet=" + gasnet, "--enable-single=opt",
               "--disable-auto-conduit-detect", "--enable-smp", "--enable-" + conduit,
               "--with-default-network=" + conduit],
       os.path.join(work, "configure.log"), cwd=bld)
    sh(nice + ["make", "-j2", "all"], os.path.join(work, "make-all.log"), cwd=bld)
    sh(nice + ["make", "install"], os.path.join(work, "make-install.log"), cwd=bld)
    print("built %s" % os.path.join(work, "inst"))


def compile_benches(side, inst, out, benches, conduit):
    src = os.path.join(os.path.dirname(inst), "src", "bench")
    if not os.path.isdir(src):
        die("no UPC++ bench/ sources at " + src)
    env = dict(os.environ, UPCXX_CODEMODE="opt", UPCXX_THREADMODE="seq", UPCXX_NETWORK=conduit)
    exes = {}
    for b in benches:
        exe = os.path.join(out, "%s-%s-%s" % (b, side, conduit))
        sh([os.path.join(inst, "bin", "upcxx"), "-O3", "-o", exe, os.path.join(src, b + ".cpp")],
           exe + ".compile.log", env=env)
        exes[b] = exe
    return exes


def compile_probe(side, inst, out):
    """bench/upcxx_probe.c against the GASNet under this UPC++ install (its smp-seq.mak)."""
    frag = os.path.join(inst, "gasnet.opt", "include", "smp-conduit", "smp-seq.mak")
    if not os.path.exists(frag):
        die("no " + frag)
    exe = os.path.join(out, "upcxx_probe-" + side)
    mk = exe + ".mk"
    # The archive on both sides (GASNet installs no other library): gexx's
    # fragment names -lgasnet-smp-seq, which finds its shared library first,
    # and a call through the PLT costs an idle poll 1.5 ns (4.1 against 2.5).
    static = "$(subst -lgasnet-smp-seq,$(GASNET_PREFIX)/lib/libgasnet-smp-seq.a,$(GASNET_LIBS))"
    with open(mk, "w") as f:
        f.write("include %s\n%s: %s\n\t$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -o $@ $< "
                "$(GASNET_LDFLAGS) %s\n" % (frag, exe, os.path.join(HERE, "upcxx_probe.c"), static))
    sh(["make", "-s", "-B", "-f", mk, exe], exe + ".compile.log")
    return exe


def run_probe(exe, ranks, lib=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GASNET_")}
    if lib:
        env["LD_LIBRARY_PATH"] = lib
    env["GASNET_PSHM_NODES"] = str(ranks)
    r = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        die("%s failed (%d):\n%s%s" % (exe, r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    return r.stdout


def run_one(inst, exe, ranks, env_extra, args, lib=None):
    env = dict(os.environ, report_file="-", **env_extra)
    for k in [k for k in env if k.startswith("GASNET_") or k.startswith("UPCXX_")]:
        if k not in env_extra:
            del env[k]
    if lib:
        env["LD_LIBRARY_PATH"] = lib
    cmd = [os.path.join(inst, "bin", "upcxx-run"), "-n", str(ranks), exe] + args
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or "SUCCESS" not in r.stdout:
        die("%s failed (%d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:],
                                       r.stderr[-3000:]))
    return r.stdout


def figures(bench, text):
    """{key: (value, is_rate)} from one run's output."""
    out = {}
    for line in text.splitlines():
        m = EMIT.match(line.strip())
        if m:
            deps = [d.strip().strip('"') for d in m.group(1).split(",") if d.strip()]
            pairs = [(k, v.strip().strip('"')) for k, v in PAIR.findall(m.group(2))]
            keep = [(k, v) for k, v in pairs
                    if k not in deps and k not in ("app", "ranks", "progress_period")]
            for d in deps:
                vals = [v for k, v in pairs if k == d]
                if vals:
                    key = "%s %s %s" % (bench, " ".join("%s=%s" % kv for kv in keep), d)
                    out[key] = (float(vals[0]), True)
            continue
        m = PROBE.match(line)
        if m:
            out["%s %s" % (bench, m.group(1))] = (float(m.group(2)), False)
            continue
        m = MISC.match(line)
        if m:
            out["%s rank%s %s" % (bench, m.group(1), m.group(2))] = (float(m.group(3)), False)
    return out


def short(key):
    """A figure's name without the build constants UPC++'s reports repeat."""
    return re.sub(r" opnew(_inline)?=\S*", "", key)


def check_gexx_lib(lib, inst, conduit):
    """--gexx-lib: DIR holds the conduit's libraries and its tree's headers are the install's."""
    lib = os.path.abspath(lib)
    name = "libgasnet-%s-seq.so.2026" % conduit
    if not os.path.exists(os.path.join(lib, name)):
        die("no %s in %s" % (name, lib))
    tree_inc = os.path.join(os.path.dirname(HERE), "include")
    inst_inc = os.path.join(inst, "gasnet.opt", "include")
    for name in sorted(os.listdir(inst_inc)):
        mine = os.path.join(tree_inc, name)
        if name.endswith(".h") and os.path.exists(mine):
            with open(mine, "rb") as a, open(os.path.join(inst_inc, name), "rb") as b:
                if a.read() != b.read():
                    die("--gexx-lib: include/%s differs from the UPC++ install's; rebuild UPC++ "
                        "(--build) instead" % name)
    return lib


def human_rate(v):
    for unit, div in (("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3)):
        if v >= div:
            return "%.2f %s" % (v / div, unit)
    return "%.1f B/s" % v


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", default="/tmp/gexx-clients",
                   help="folder of the two UPC++ builds (upcxx-gexx/, upcxx-anchor/)")
    p.add_argument("--build", action="store_true", help="build both UPC++ installs first")
    p.add_argument("--gexx-gasnet", help="gexx source release (make dist tarball) for --build")
    p.add_argument("--anchor-gasnet", default=os.path.join(SHARED, "anchors",
                                                           "GASNet-2020.10.0.tar.gz"))
    p.add_argument("--gexx-lib", help="run the gexx side against the shared libraries in this "
                   "folder (a gexx build, e.g. ./build), not its install's")
    p.add_argument("--conduit", default="smp", choices=["smp", "udp"],
                   help="both UPC++ builds' network (udp: every peer through UDP)")
    p.add_argument("--runs", type=int, default=5, help="runs of each side per benchmark")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--bench", default=",".join(BENCHES),
                   help="comma-separated: put_flood, misc_perf, nebr_exchange, and probe "
                   "(bench/upcxx_probe.c: the gex calls under them, built with each side's "
                   "GASNet)")
    p.add_argument("--sizes", default="8 512 4096 65536 1048576",
                   help="put_flood's sizes (its env var `sizes`: separated by spaces; "
                   "UPC++'s parser reads '8,64' as 8)")
    p.add_argument("--nebr-sizes", default="1024 65536", help="nebr_exchange's sizes")
    p.add_argument("--misc-iters", default="20000", help="misc_perf's iterations")
    p.add_argument("--wait-secs", default="0.5",
                   help="put_flood's and nebr_exchange's seconds per figure")
    a = p.parse_args()
    tag = "" if a.conduit == "smp" else "-" + a.conduit
    sides = {"gexx": os.path.join(a.work, "upcxx-gexx" + tag),
             "anchor": os.path.join(a.work, "upcxx-anchor" + tag)}
    if a.build:
        if not a.gexx_gasnet:
            die("--build needs --gexx-gasnet (the tarball `make dist` writes)")
        build_upcxx(a.gexx_gasnet, sides["gexx"], a.conduit)
        build_upcxx(a.anchor_gasnet, sides["anchor"], a.conduit)
    benches = [b for b in a.bench.split(",") if b]
    for b in benches:
        if b not in BENCHES + ("probe",):
            die("unknown benchmark %s (one of %s)" % (b, ", ".join(BENCHES)))
        if b == "probe" and a.conduit != "smp":
            die("--bench probe is smp only")
    lib = (check_gexx_lib(a.gexx_lib, os.path.join(sides["gexx"], "inst"), a.conduit)
           if a.gexx_lib else None)
    out = os.path.join(a.work, "upcxx-bench")
    os.makedirs(out, exist_ok=True)
    exes = {}
    for side, w in sides.items():
        inst = os.path.join(w, "inst")
        if not os.path.exists(os.path.join(inst, "bin", "upcxx-run")):
            die("no UPC++ install at %s (run with --build first)" % inst)
        exes[side] = compile_benches(side, inst, out, [b for b in benches if b != "probe"],
                                     a.conduit)
        if "probe" in benches:
            exes[side]["probe"] = compile_probe(side, inst, out)
    if lib:
        for b, exe in exes["gexx"].items():
            if b == "probe":
                continue
            deps = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
            if "libgasnet-" not in deps:
                die("--gexx-lib: %s links gexx statically (a UPC++ built through ./configure, "
                    "whose fragments link the archive): rebuild UPC++ (--build) instead" % exe)
    env = {"put_flood": {"sizes": a.sizes, "wait_secs": a.wait_secs},
           "nebr_exchange": {"sizes": a.nebr_sizes, "nebrs": "1", "wait_secs": a.wait_secs},
           "misc_perf": {}, "probe": {}}
    if a.conduit != "smp":
        for e in env.values():
            e.update(GASNET_SUPERNODE_MAXSIZE="1", GASNET_SPAWNFN="L")
    args = {"misc_perf": [a.misc_iters]}
    results = {"gexx": {}, "anchor": {}}
    order = []
    for b in benches:
        for i in range(a.runs):
            for side in (("gexx", "anchor") if i % 2 == 0 else ("anchor", "gexx")):
                side_lib = lib if side == "gexx" else None
                if b == "probe":
                    text = run_probe(exes[side][b], a.ranks, side_lib)
                else:
                    text = run_one(os.path.join(sides[side], "inst"), exes[side][b], a.ranks,
                                   env[b], args.get(b, []), side_lib)
                for k, (v, rate) in figures(b, text).items():
                    if k not in results[side]:
                        results[side][k] = ([], rate)
                        if k not in order:
                            order.append(k)
                    results[side][k][0].append(v)
            print("%s: run %d of %d done" % (b, i + 1, a.runs), file=sys.stderr)
    print("UPC++ 2020.10 bench/, %d ranks %s, %d alternated runs per side, medians "
          "(spread min-max); ratio above 1: gexx faster" % (a.ranks, a.conduit, a.runs))
    print("%-70s %22s %22s %6s" % ("figure", "gexx", "anchor", "ratio"))
    for k in order:
        if k not in results["gexx"] or k not in results["anchor"]:
            continue
        g, rate = results["gexx"][k]
        n, _ = results["anchor"][k]
        mg, mn = statistics.median(g), statistics.median(n)
        unit = "ns" if k.startswith("probe ") else "us"
        fmt = human_rate if rate else (lambda v, u=unit: ("%.1f ns" if u == "ns" else "%.3f us") % v)
        ratio = (mg / mn if mn else float("nan")) if rate else (mn / mg if mg else float("nan"))
        print("%-70s %22s %22s %6.2f" % (short(k)[:70], fmt(mg), fmt(mn), ratio))
        print("%-70s %22s %22s" % ("", "(%s - %s)" % (fmt(min(g)), fmt(max(g))),
                                   "(%s - %s)" % (fmt(min(n)), fmt(max(n)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
