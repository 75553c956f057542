#!/usr/bin/env python3
"""Jobs under Slurm: each case starts a one-host Slurm cluster of its own in a
scratch directory (munged, slurmctld and slurmd with a generated slurm.conf,
own ports, state and spool directories), runs its jobs through
`srun --mpi=pmix` (PMI-2 is not spoken by gexx: the case says so and skips
where Slurm offers no pmix), and tears the cluster down. Skipped, with the
reason, where the tools are missing or the machine does not allow it
(slurmd runs as root here).

usage: slurmtests.py --bin-dir DIR CASE | --list
"""
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobtests  # noqa: E402
import pmixtests  # noqa: E402
from jobtests import Job, check, shm_entries, SKIP  # noqa: E402


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def tool(name):
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":") + ["/usr/sbin", "/sbin"]:
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    return None


class Cluster:
    """One host's Slurm: started by __enter__, gone after __exit__."""

    def __enter__(self):
        if not pmixtests.built_with_pmix():
            skip("this build has no PMIx (libpmix-dev was not found at configure time)")
        missing = [t for t in ("munged", "slurmctld", "slurmd", "srun", "scontrol", "sinfo")
                   if not tool(t)]
        if missing:
            skip("%s not installed here (scripts/install-deps.sh installs slurm-wlm and munge)"
                 % " and ".join(missing))
        if os.geteuid() != 0:
            skip("slurmd must run as root to start jobs, and this test is not root")
        # A port picked free may be taken before the daemon binds it (other
        # tests open connections meanwhile): a failed start is retried with
        # fresh ports, twice, and reported with the daemons' logs.
        for attempt in range(3):
            self.dir = tempfile.mkdtemp(prefix="gexx-slurm-")
            os.chmod(self.dir, 0o700)
            self.pids = []
            try:
                self._start()
                return self
            except jobtests.Failure as e:
                self.__exit__(None, None, None)
                if attempt == 2:
                    raise
                print("cluster start failed (attempt %d), retrying: %s" % (attempt + 1, e))
            except BaseException:
                self.__exit__(None, None, None)
                raise

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _start(self):
        for sub in ("munge", "state", "spool", "log", "pmix"):
            os.mkdir(self.path(sub), 0o700)
        with open(self.path("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.path("munge", "munge.key"), 0o400)
        self.munge_socket = self.path("munge", "munge.sock")
        self._daemon([tool("munged"), "-f", "--key-file=" + self.path("munge", "munge.key"),
                      "--socket=" + self.munge_socket, "--pid-file=" + self.path("munged.pid"),
                      "--log-file=" + self.path("log", "munged.log"),
                      "--seed-file=" + self.path("munge", "seed")], self.path("munged.pid"))
        host = socket.gethostname().split(".")[0]
        self.conf = self.path("slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=gexx%d" % random.randrange(1 << 20),
                "SlurmctldHost=%s(127.0.0.1)" % host,
                "SlurmctldPort=%d" % free_port(), "SlurmdPort=%d" % free_port(),
                "SlurmUser=root", "SlurmdUser=root",
                "AuthType=auth/munge", "CredType=cred/munge",
                "AuthInfo=socket=" + self.munge_socket,
                "StateSaveLocation=" + self.path("state"),
                "SlurmdSpoolDir=" + self.path("spool"),
                "SlurmctldPidFile=" + self.path("slurmctld.pid"),
                "SlurmdPidFile=" + self.path("slurmd.pid"),
                "SlurmctldLogFile=" + self.path("log", "slurmctld.log"),
                "SlurmdLogFile=" + self.path("log", "slurmd.log"),
                "PlugStackConfig=" + self.path("plugstack.conf"),
                # No cgroups: processes are tracked by their parentage.
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
                "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
                "SwitchType=switch/none", "MpiDefault=none",
                "JobAcctGatherType=jobacct_gather/none",
                "AccountingStorageType=accounting_storage/none",
                "ReturnToService=2", "InactiveLimit=0", "KillWait=5", "MinJobAge=5",
                # Job ids apart from any other cluster a side-by-side test runs.
                "FirstJobId=%d" % random.randrange(1000, 1 << 24),
                # More CPUs than the host has, so that 4 or 64 ranks fit.
                "SlurmdParameters=config_overrides",
                "NodeName=%s NodeAddr=127.0.0.1 CPUs=64 State=UNKNOWN" % host,
                "PartitionName=gexx Nodes=%s Default=YES MaxTime=INFINITE State=UP "
                "OverSubscribe=YES" % host, ""]))
        open(self.path("plugstack.conf"), "w").close()
        with open(self.path("mpi.conf"), "w") as f:
            f.write("PMIxCliTmpDirBase=%s\n" % self.path("pmix"))
        self.env = {"SLURM_CONF": self.conf}
        self._daemon([tool("slurmctld"), "-i", "-f", self.conf], self.path("slurmctld.pid"))
        self._daemon([tool("slurmd"), "-f", self.conf], self.path("slurmd.pid"))
        deadline = time.time() + 60
        state = ""
        while time.time() < deadline:
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.full_env(),
                               capture_output=True, text=True)
            state = (p.stdout + p.stderr).strip()
            if state in ("idle", "mixed", "allocated"):
                break
            time.sleep(0.3)
        check(state == "idle", "the Slurm node never became idle (sinfo: %r)%s" %
              (state, self.logs()))
        p = subprocess.run(["srun", "--mpi=list"], env=self.full_env(), capture_output=True,
                           text=True)
        if "pmix" not in p.stdout + p.stderr:
            skip("this Slurm offers no pmix MPI plugin (srun --mpi=list: %s); gexx speaks PMIx, "
                 "not PMI-2" % (p.stdout + p.stderr).strip().replace("\n", " "))

    def _daemon(self, argv, pid_file):
        p = subprocess.run(argv, env=self.full_env(), capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 0, "%s failed (%d): %s%s" % (os.path.basename(argv[0]),
                                                         p.returncode, p.stdout + p.stderr,
                                                         self.logs()))
        # The daemon creates its pid file and then writes it: wait for the number,
        # not only for the file.
        deadline = time.time() + 30
        while True:
            try:
                with open(pid_file) as f:
                    words = f.read().split()
                if words and words[0].isdigit():
                    self.pids.append(int(words[0]))
                    return
            except FileNotFoundError:
                pass
            check(time.time() < deadline, "%s wrote no pid to %s%s" % (
                os.path.basename(argv[0]), pid_file, self.logs()))
            time.sleep(0.05)

    def full_env(self):
        env = dict(os.environ)
        env.update(getattr(self, "env", {}))
        return env

    def logs(self):
        out = ""
        for name in ("munged.log", "slurmctld.log", "slurmd.log"):
            try:
                with open(self.path("log", name)) as f:
                    out += "\n--- %s (tail):\n%s" % (name, "".join(f.readlines()[-15:]))
            except OSError:
                pass
        return out

    def __exit__(self, *exc):
        # Jobs first (a step outlives slurmd), then the daemons this case
        # started, by pid, newest first; last, any process that still runs
        # with this cluster's configuration (a step's slurmstepd or ranks).
        if getattr(self, "env", None):
            subprocess.run(["scancel", "--full", "--quiet", "--user=root"], env=self.full_env(),
                           capture_output=True, timeout=30)
            deadline = time.time() + 15
            while time.time() < deadline:
                p = subprocess.run(["squeue", "-h"], env=self.full_env(), capture_output=True,
                                   text=True, timeout=30)
                if p.returncode != 0 or not p.stdout.strip():
                    break
                time.sleep(0.2)
        for pid in reversed(self.pids):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.time() + 10
        for pid in self.pids:
            while time.time() < deadline and os.path.exists("/proc/%d" % pid):
                time.sleep(0.05)
            if os.path.exists("/proc/%d" % pid):
                os.kill(pid, signal.SIGKILL)
        if getattr(self, "conf", None):
            for pid in jobtests.pids_with_env("SLURM_CONF=" + self.conf):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def srun(self, n, argv, env=None):
        full = dict(self.env)
        full.update(env or {})
        return Job(["srun", "--mpi=pmix", "-n", str(n)] + argv, env=full, launcher=False)

    def spawner_pmi(self, n, argv, env=None):
        full = dict(self.env)
        full.update(env or {})
        return Job([os.path.join(jobtests.ARGS.bin_dir, "gasnetrun"), "-n", str(n),
                    "-spawner=pmi"] + argv, env=full, launcher=False)


def case_jobs():
    """1-, 2- and 4-rank jobs through srun --mpi=pmix: data checked, then AM, RMA
    and barrier conformance on 4 ranks of the smp conduit."""
    with Cluster() as c:
        for n in (1, 2, 4):
            pmixtests.case_check(c.srun, "jobcheck", n, args=["data", "1048576"])()
        for program in ("amcheck", "rmacheck", "barrierconf"):
            pmixtests.case_check(c.srun, program, 4)()


def case_ofi():
    """The same conformance programs on the ofi conduit (tcp), 4 ranks under srun."""
    with Cluster() as c:
        pmixtests.case_check(c.srun, "amcheck", 4, ofi="tcp")()
        pmixtests.case_check(c.srun, "rmacheck", 4, ofi="tcp", args=["1048576"])()
        pmixtests.case_check(c.srun, "barrierconf", 4, ofi="tcp")()


def case_exits():
    """exitcheck under srun (every exit path, the job's code right, nothing
    left), then a rank killed with SIGKILL: the job ends, ranks gone, /dev/shm
    clean."""
    with Cluster() as c:
        pmixtests.case_exits(c.srun, 4)()
        pmixtests.case_kill(c.srun, 4)()


def case_spawner():
    """gasnetrun -spawner=pmi runs srun --mpi=pmix: AM conformance and exits on 4 ranks."""
    with Cluster() as c:
        pmixtests.case_check(c.spawner_pmi, "amcheck", 4)()
        pmixtests.case_exits(c.spawner_pmi, 4)()


CASES = {"jobs": case_jobs, "ofi": case_ofi, "exits": case_exits, "spawner": case_spawner}


def main():
    # A test stopped with SIGTERM or SIGINT still tears its cluster down.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    if sys.argv[1:] == ["--list"]:
        for name in sorted(CASES):
            print("%s %s" % (name, "integration,slurm,ofi" if name == "ofi"
                             else "integration,slurm"))
        return 0

    def take_args(args):
        jobtests.ARGS = args
    return jobtests.run_case(CASES, take_args)


if __name__ == "__main__":
    sys.exit(main())
