#!/usr/bin/env python3
"""Jobs started without gasnetrun's own spawners: by Open MPI's mpirun (which
serves PMIx) and by gasnetrun -spawner=mpi / -spawner=pmi, each case a CTest
test (issue 24). The rank side is src/bootstrap/pmix.cpp.

Every job carries a unique GEXX_TEST_TAG (jobtests.Job), so a case proves no
process is left, and that /dev/shm holds nothing new. A case skips (77) with
the reason when mpirun or PMIx support is absent.

usage: pmixtests.py --bin-dir DIR CASE | --list
"""
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobtests  # noqa: E402
from jobtests import Job, check, shm_entries, SKIP  # noqa: E402

# Open MPI refuses root without these; harmless otherwise.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
HANG_SECONDS = 20


def prog(name):
    return os.path.join(jobtests.ARGS.bin_dir, "tests", "integration", name)


def built_with_pmix():
    try:
        with open(os.path.join(jobtests.ARGS.bin_dir, "CMakeCache.txt")) as f:
            return "PMIX_FOUND:INTERNAL=1" in f.read()
    except OSError:
        return False


def need_mpirun():
    if not built_with_pmix():
        print("SKIP: this build has no PMIx (libpmix-dev was not found at configure time)")
        sys.exit(SKIP)
    if not jobtests.have_tool("mpirun"):
        print("SKIP: mpirun is not installed here (scripts/install-deps.sh installs openmpi-bin)")
        sys.exit(SKIP)


def mpirun(n, argv, env=None):
    """A job of n ranks started by mpirun itself: no gasnetrun anywhere."""
    need_mpirun()
    full = dict(MPI_ENV)
    full.update(env or {})
    return Job(["mpirun", "--oversubscribe", "-n", str(n)] + argv, env=full, launcher=False)


def gasnetrun(n, spawner, argv, env=None):
    full = dict(MPI_ENV)
    full.update(env or {})
    return Job([os.path.join(jobtests.ARGS.bin_dir, "gasnetrun"), "-n", str(n), "-spawner",
                spawner] + argv, env=full, launcher=False)


def spawner_mpi(n, argv, env=None):
    """gasnetrun -spawner=mpi: gasnetrun runs mpirun."""
    need_mpirun()
    return gasnetrun(n, "mpi", argv, env)


def spawner_pmi(n, argv, env=None):
    """gasnetrun -spawner=pmi with GASNET_PMI_LAUNCHER naming another PMIx
    launcher (mpirun here; srun in slurmtests.py)."""
    need_mpirun()
    full = {"GASNET_PMI_LAUNCHER": "mpirun --oversubscribe"}
    full.update(env or {})
    return gasnetrun(n, "pmi", argv, full)


def case_spawner_errors():
    """The mpi and pmi spawners with a launcher that is not there: a clear message,
    status 127; GASNET_SPAWNFN=M picks the mpi spawner."""
    jobcheck = prog("jobcheck")
    job = gasnetrun(2, "pmi", [jobcheck, "data", "65536"],
                    {"GASNET_PMI_LAUNCHER": "no-such-srun --mpi=pmix"}).wait(timeout=30)
    job.expect(127, stderr_has=[r"'no-such-srun' was not found in PATH \(GASNET_PMI_LAUNCHER"])
    job = gasnetrun(2, "mpi", [jobcheck, "data", "65536"],
                    {"GASNET_MPIRUN_CMD": "/nonexistent/mpirun"}).wait(timeout=30)
    job.expect(127, stderr_has=[r"GASNET_MPIRUN_CMD names the command"])
    if jobtests.have_tool("mpirun") and built_with_pmix():
        before = shm_entries()
        job = Job([os.path.join(jobtests.ARGS.bin_dir, "gasnetrun"), "-v", "-n", "2",
                   jobcheck, "data", "65536"], env=dict(MPI_ENV, GASNET_SPAWNFN="M"),
                  launcher=False).wait(timeout=60).expect(0)
        passed(job, "jobcheck", 2)
        check(re.search(r"gasnetrun: running: \S*mpirun -n 2 --oversubscribe", job.stderr),
              job.show())
        job.assert_nothing_left(before)


def passed(job, program, n):
    ranks = sorted(int(r) for r in re.findall(r"%s rank (\d+) of %d: PASS" % (program, n),
                                              job.stdout))
    check(ranks == list(range(n)), "PASS lines from ranks %s%s" % (ranks, job.show()))


def conduit(ofi, name):
    return prog(name + ("_ofi" if ofi else ""))


def case_check(start, program, n, ofi=None, args=(), started="PMIx"):
    """A conformance program on n ranks, started by `start`; data checked by the
    program (its PASS lines), the ranks joined through `started` (PMIx, PMI-2),
    nothing left behind."""
    def run():
        env = jobtests.ofi_env(ofi) if ofi else {}
        env["GASNET_VERBOSEENV"] = "1"  # rank 0 says how the job started
        before = shm_entries()
        job = start(n, [conduit(ofi, program)] + list(args), env).wait(timeout=200).expect(0)
        passed(job, program, n)
        check("started by " + started in job.stderr, job.show())
        if ofi:
            check("libfabric provider %s" % jobtests.OFI_PROVIDERS[ofi] in job.stderr,
                  job.show())
        job.assert_nothing_left(before)
    return run


def case_exits(start, n, ofi=None):
    """exitcheck: one rank calls gasnet_exit(3) from a barrier, a polling wait, a
    spin, a thread or a handler; a rank leaves with 0 from a spin; every rank
    exits collectively (5), returns 6 from main, calls exit(7). The job's code
    is the exit's, every rank started and ended, nothing is left."""
    def run():
        env = jobtests.ofi_env(ofi) if ofi else {}
        who = str(n - 1)
        runs = [([m, "3", who], 3) for m in ("barrier", "wait", "spin", "thread", "handler")]
        runs += [(["spin", "0", who], 0), (["collective", "5"], 5), (["return", "6"], 6),
                 (["exit", "7"], 7)]
        for args, code in runs:
            before = shm_entries()
            job = start(n, [conduit(ofi, "exitcheck")] + args, env)
            job.wait(timeout=60)
            job.expect(code)
            ready = sorted(int(r) for r in re.findall(r"exitcheck rank (\d+) of %d: ready" % n,
                                                      job.stdout))
            check(ready == list(range(n)), "%s: ranks ready %s%s" % (args, ready, job.show()))
            check("FAIL" not in job.stdout, job.show())
            check(job.took() < HANG_SECONDS, "%s took %.1f s%s" % (args, job.took(), job.show()))
            job.assert_nothing_left(before)
    return run


def case_kill(start, n, ofi=None):
    """A rank killed with SIGKILL while every rank spins without polling: the
    launcher ends the job with a failure, every rank is gone, /dev/shm clean."""
    def run():
        env = jobtests.ofi_env(ofi) if ofi else {}
        before = shm_entries()
        with tempfile.TemporaryDirectory(prefix="gexx-ready.") as folder:
            # The pids from files, not from the launcher's forwarded output.
            env["EXITCHECK_READY_DIR"] = folder
            job = start(n, [conduit(ofi, "exitcheck"), "ready", "0"], env)
            ready = job.wait_ready_files(folder, n)
            os.kill(int(ready["1"]), signal.SIGKILL)
            job.wait(timeout=60)
        check(job.code != 0, "job exit 0 after a rank was killed%s" % job.show())
        # The launcher names the signal, unless the ranks that saw rank 1 go
        # ended first (exit 1) and mpirun reports one of them instead: then
        # their warning names the rank and its pid.
        check(re.search(r"signal 9|SIGKILL|Killed|rank 1 \(pid %s\) of this host ended without "
                        r"gasnet_exit" % ready["1"], job.stdout + job.stderr), job.show())
        job.assert_nothing_left(before)
    return run


def case_detect():
    """How a rank decides it was started by a PMI launcher, without one: each
    wrong setting stops it with a message naming the cause (no hang, no 1-rank
    job pretending to be part of a bigger one)."""
    jobcheck = prog("jobcheck")
    cases = [
        ({"GASNET_SPAWNFN": "P"}, r"GASNET_SPAWNFN=P asks for a PMI launch, but no PMIx or PMI-2 "
                                  r"launcher started this process"),
        ({"GASNET_SPAWNFN": "m"}, r"gasnetrun -spawner=mpi"),
        ({"SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "4"},
         r"srun started 4 tasks without a PMI gexx speaks: run srun --mpi=pmix"),
        ({"OMPI_COMM_WORLD_SIZE": "3"}, r"mpirun started 3 ranks without PMIx"),
    ]
    for env, message in cases:
        job = Job([jobcheck, "data", "65536"], env=env, launcher=False).wait(timeout=30)
        job.expect(1, stderr_has=[message])
    # GASNET_SPAWNFN=L keeps a plain 1-rank run one rank despite launcher variables.
    job = Job([jobcheck, "data", "65536"], env={"GASNET_SPAWNFN": "L", "OMPI_COMM_WORLD_SIZE": "3"},
              launcher=False).wait(timeout=30)
    job.expect(0)
    passed(job, "jobcheck", 1)
    # PMI-2 variables with no server behind them: fails loudly, naming PMI-2.
    job = Job([jobcheck, "data", "65536"], env={"PMI_FD": "9", "PMI_RANK": "0", "PMI_SIZE": "2"},
              launcher=False).wait(timeout=30)
    check(job.code != 0 and re.search(r"PMI2_Init failed|cannot load libpmi2", job.stderr),
          job.show())
    if built_with_pmix():
        # PMIx variables with no server behind them: PMIx_Init fails, loudly.
        job = Job([jobcheck, "data", "65536"], env={"PMIX_RANK": "0", "PMIX_NAMESPACE": "none"},
                  launcher=False).wait(timeout=30)
        check(job.code != 0 and "PMIx" in job.stderr, job.show())


def case_spawnfn_forced():
    """GASNET_SPAWNFN=M under mpirun: the PMIx path, forced, says so."""
    def run():
        before = shm_entries()
        job = mpirun(2, [prog("jobcheck"), "data", "1048576"],
                     {"GASNET_SPAWNFN": "M", "GASNET_VERBOSEENV": "1"}).wait(timeout=60).expect(0)
        passed(job, "jobcheck", 2)
        check("started by PMIx (GASNET_SPAWNFN=M and PMIX_RANK/PMIX_NAMESPACE)" in job.stderr,
              job.show())
        job.assert_nothing_left(before)
    return run


CASES = {
    "detect": case_detect,
    "mpirun_spawnfn": case_spawnfn_forced(),
    "mpirun_data_1": case_check(mpirun, "jobcheck", 1, args=["data", "1048576"]),
    "mpirun_data_4": case_check(mpirun, "jobcheck", 4, args=["data", "1048576"]),
    "mpirun_am_4": case_check(mpirun, "amcheck", 4),
    "mpirun_rma_4": case_check(mpirun, "rmacheck", 4),
    "mpirun_barrier_4": case_check(mpirun, "barrierconf", 4),
    "mpirun_exits_4": case_exits(mpirun, 4),
    "mpirun_kill_4": case_kill(mpirun, 4),
    "ofi_mpirun_am_4_tcp": case_check(mpirun, "amcheck", 4, ofi="tcp"),
    "ofi_mpirun_rma_4_tcp": case_check(mpirun, "rmacheck", 4, ofi="tcp", args=["1048576"]),
    "ofi_mpirun_barrier_4_tcp": case_check(mpirun, "barrierconf", 4, ofi="tcp"),
    "ofi_mpirun_exits_4_tcp": case_exits(mpirun, 4, ofi="tcp"),
    "ofi_mpirun_kill_4_tcp": case_kill(mpirun, 4, ofi="tcp"),
    # libfabric's shm provider names files in /dev/shm: gone after a kill too.
    "ofi_mpirun_am_4_shm": case_check(mpirun, "amcheck", 4, ofi="shm"),
    "ofi_mpirun_kill_4_shm": case_kill(mpirun, 4, ofi="shm"),
    # gasnetrun -spawner=mpi and -spawner=pmi.
    "spawner_errors": case_spawner_errors,
    "spawner_mpi_am_4": case_check(spawner_mpi, "amcheck", 4),
    "spawner_mpi_rma_4": case_check(spawner_mpi, "rmacheck", 4),
    "spawner_mpi_exits_4": case_exits(spawner_mpi, 4),
    "spawner_mpi_kill_4": case_kill(spawner_mpi, 4),
    "spawner_pmi_barrier_4": case_check(spawner_pmi, "barrierconf", 4),
    "spawner_pmi_exits_2": case_exits(spawner_pmi, 2),
    "ofi_spawner_mpi_am_4_tcp": case_check(spawner_mpi, "amcheck", 4, ofi="tcp"),
}


def main():
    if sys.argv[1:] == ["--list"]:
        for name in sorted(CASES):
            print("%s %s" % (name, "integration,pmix,ofi" if name.startswith("ofi_")
                             else "integration,pmix"))
        return 0

    def take_args(args):
        jobtests.ARGS = args
    return jobtests.run_case(CASES, take_args)


if __name__ == "__main__":
    sys.exit(main())
