#!/usr/bin/env python3
"""Job start-up cost against rank count and segment size.

For each configuration, runs `gasnetrun -n N startup_probe SIZE` several
times and prints medians of: the whole job's wall time (launch to exit),
gasnet_init, gasnet_attach, and touching every page of the segment once.
Prints figures only; never fails on speed.

usage: bench/startup.py [--build build] [--runs 7] [--scaling [--max-ranks 1024]]
       bench/startup.py --launcher srun|mpirun [--mpi pmix|pmi2] [--ranks 64] [--runs 7]

--launcher compares start-up under another launcher with gasnetrun's local
spawner: the same probe (1 MiB segment) on the same rank counts, the two
alternated run by run, medians of the whole job's wall time and of
gasnet_init, and (last column) the launcher alone starting as many
/bin/true, its own floor. srun (--mpi=pmix, or --mpi=pmi2 with `--mpi pmi2`) runs in a
one-host Slurm cluster started for the purpose (tests/integration/
slurmtests.py's, torn down after; needs root, slurm-wlm, munge, and
libpmi2 for pmi2); mpirun is Open MPI's (with --oversubscribe).

With --scaling, runs instead `gasnetrun -n N startup_probe 64KiB` for N up
to --max-ranks (default 1024), doubling from 64, and prints the job's wall
time and the CPU time of the launcher and its ranks (user, system): a
figure that grows faster than N is the part of start-up that is not linear.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time


def probe_once(argv, env=None):
    t = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout
    job = (time.perf_counter() - t) * 1e3
    m = re.search(r"init_ms ([\d.]+) attach_ms ([\d.]+) touch_ms ([\d.]+)", out)
    return job, float(m.group(1))


def compare_launchers(a):
    """--launcher: the other launcher against gasnetrun's local spawner."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests", "integration"))
    import jobtests  # noqa: E402
    import slurmtests  # noqa: E402

    class Args:
        bin_dir = os.path.abspath(a.build)
    jobtests.ARGS = Args
    run = os.path.join(a.build, "gasnetrun")
    probe = os.path.join(a.build, "bench", "startup_probe")
    size = str(1 << 20)
    env = dict(os.environ)
    cluster = None
    if a.launcher == "srun":
        cluster = slurmtests.Cluster(a.mpi).__enter__()
        env.update(cluster.env)
    else:
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    try:
        print("%-6s %12s %12s %8s %12s %12s %12s" % (
            "ranks", "local_job_ms", a.launcher + "_job_ms", "ratio", "local_init",
            a.launcher + "_init", a.launcher + "_true_ms"))
        for ranks in [int(r) for r in a.ranks.split(",")]:
            other = (["srun", "--mpi=" + a.mpi, "-n", str(ranks)] if a.launcher == "srun" else
                     ["mpirun", "--oversubscribe", "-n", str(ranks)])
            local_rows, other_rows, bare = [], [], []
            for _ in range(a.runs):
                local_rows.append(probe_once([run, "-n", str(ranks), probe, size]))
                other_rows.append(probe_once(other + [probe, size], env))
                # The launcher's own cost: the same ranks running /bin/true.
                t = time.perf_counter()
                subprocess.run(other + ["/bin/true"], env=env, check=True)
                bare.append((time.perf_counter() - t) * 1e3)
            lj, li = (statistics.median(c) for c in zip(*local_rows))
            oj, oi = (statistics.median(c) for c in zip(*other_rows))
            print("%-6d %12.1f %12.1f %8.2f %12.1f %12.1f %12.1f" % (
                ranks, lj, oj, oj / lj, li, oi, statistics.median(bare)))
    finally:
        if cluster:
            cluster.__exit__(None, None, None)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--launcher", choices=("srun", "mpirun"))
    p.add_argument("--mpi", choices=("pmix", "pmi2"), default="pmix",
                   help="with --launcher srun: the PMI srun serves")
    p.add_argument("--ranks", default="1,4,16,64", help="with --launcher: rank counts")
    p.add_argument("--scaling", action="store_true")
    p.add_argument("--max-ranks", type=int, default=1024)
    a = p.parse_args()
    if a.launcher:
        return compare_launchers(a)
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
