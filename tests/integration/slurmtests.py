#!/usr/bin/env python3
"""Jobs under Slurm: each case starts a one-host Slurm cluster of its own in a
scratch directory (munged, slurmctld and slurmd with a generated slurm.conf,
own ports, state and spool directories), runs its jobs through
`srun --mpi=pmix` or `srun --mpi=pmi2` (a case skips, saying so, where Slurm
offers not the plugin it needs), and tears the cluster down. Skipped, with the
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
    """One host's Slurm: started by __enter__, gone after __exit__. `mpi`: the
    srun plugin the jobs use (pmix or pmi2)."""

    def __init__(self, mpi="pmix"):
        self.mpi = mpi

    def __enter__(self):
        if self.mpi == "pmix" and not pmixtests.built_with_pmix():
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

    def common_conf(self, ctld_host, per_node):
        """slurm.conf lines every cluster of these tests shares: its own ports,
        munge socket and state folder; `per_node` ("" or "-%n") names the
        slurmd spool, pid and log files apart when one host runs several."""
        return [
            "ClusterName=gexx%d" % random.randrange(1 << 20),
            "SlurmctldHost=" + ctld_host,
            "SlurmctldPort=%d" % free_port(), "SlurmdPort=%d" % free_port(),
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge",
            "AuthInfo=socket=" + self.munge_socket,
            "StateSaveLocation=" + self.path("state"),
            "SlurmdSpoolDir=" + self.path("spool" + per_node),
            "SlurmctldPidFile=" + self.path("slurmctld.pid"),
            "SlurmdPidFile=" + self.path("slurmd%s.pid" % per_node),
            "SlurmctldLogFile=" + self.path("log", "slurmctld.log"),
            "SlurmdLogFile=" + self.path("log", "slurmd%s.log" % per_node),
            "PlugStackConfig=" + self.path("plugstack.conf"),
            # No cgroups: processes are tracked by their parentage.
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
            "SwitchType=switch/none", "MpiDefault=none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "ReturnToService=2", "InactiveLimit=0", "KillWait=5", "MinJobAge=5",
            # Job ids apart from any other cluster a side-by-side test runs.
            "FirstJobId=%d" % random.randrange(1000, 1 << 24)]

    def _start_munge(self):
        """munged with a fresh key and its own socket in the scratch folder."""
        with open(self.path("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.path("munge", "munge.key"), 0o400)
        self.munge_socket = self.path("munge", "munge.sock")
        self._daemon([tool("munged"), "-f", "--key-file=" + self.path("munge", "munge.key"),
                      "--socket=" + self.munge_socket, "--pid-file=" + self.path("munged.pid"),
                      "--log-file=" + self.path("log", "munged.log"),
                      "--seed-file=" + self.path("munge", "seed")], self.path("munged.pid"))

    def _start(self):
        for sub in ("munge", "state", "spool", "log", "pmix"):
            os.mkdir(self.path(sub), 0o700)
        self._start_munge()
        host = socket.gethostname().split(".")[0]
        self.conf = self.path("slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                *self.common_conf("%s(127.0.0.1)" % host, ""),
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
        if self.mpi not in p.stdout + p.stderr:
            skip("this Slurm offers no %s MPI plugin (srun --mpi=list: %s)" %
                 (self.mpi, (p.stdout + p.stderr).strip().replace("\n", " ")))
        if self.mpi == "pmi2" and not have_libpmi2():
            skip("Slurm's libpmi2 is not installed (Debian: libpmi2-0; scripts/install-deps.sh "
                 "installs it), so ranks cannot speak PMI-2")

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
        env.update(getattr(self, "env", None) or {})
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
        return Job(["srun", "--mpi=" + self.mpi, "-n", str(n)] + argv, env=full,
                   launcher=False)

    def spawner_pmi(self, n, argv, env=None):
        full = dict(self.env)
        full.update(env or {})
        return Job([os.path.join(jobtests.ARGS.bin_dir, "gasnetrun"), "-n", str(n),
                    "-spawner=pmi"] + argv, env=full, launcher=False)


class TwoHostCluster(Cluster):
    """Two Slurm "hosts" on this machine: network namespaces ha and hb joined
    by a veth pair (10.x.0.1 and 10.x.0.2), each with its own host name (a
    UTS namespace) and slurmd (-N); slurmctld runs in ha, munged outside
    (its socket is a file both reach). A private tmpfs per host holds the
    PMIx server's directory, as a real host's /tmp would. srun runs in ha."""

    def __init__(self, mpi="pmix"):
        super().__init__(mpi)
        tag = "%06x" % random.randrange(1 << 24)
        self.ns = {"ha": "gexx-sl%s-a" % tag, "hb": "gexx-sl%s-b" % tag}
        self.link = {"ha": "gs%sa" % tag, "hb": "gs%sb" % tag}
        net = 200 + random.randrange(50)
        self.ip = {"ha": "10.%d.%d.1" % (net, random.randrange(256)), "hb": None}
        self.ip["hb"] = self.ip["ha"][:-1] + "2"
        self.made = []

    def _netns(self):
        if not tool("ip") or not tool("unshare") or not tool("nsenter"):
            skip("ip (iproute2), unshare or nsenter is missing")
        self.made = []
        for h in ("ha", "hb"):
            r = subprocess.run(["ip", "netns", "add", self.ns[h]], capture_output=True, text=True)
            if r.returncode != 0:
                skip("this machine does not allow network namespaces (ip netns add: %s)"
                     % r.stderr.strip())
            self.made.append(h)
        r = subprocess.run(["ip", "link", "add", self.link["ha"], "type", "veth", "peer", "name",
                            self.link["hb"]], capture_output=True, text=True)
        if r.returncode != 0:
            skip("this machine does not allow veth pairs (%s)" % r.stderr.strip())
        for h in ("ha", "hb"):
            for cmd in (["ip", "link", "set", self.link[h], "netns", self.ns[h]],
                        ["ip", "-n", self.ns[h], "addr", "add", self.ip[h] + "/24", "dev",
                         self.link[h]],
                        ["ip", "-n", self.ns[h], "link", "set", "lo", "up"],
                        ["ip", "-n", self.ns[h], "link", "set", self.link[h], "up"]):
                r = subprocess.run(cmd, capture_output=True, text=True)
                check(r.returncode == 0, "%s: %s" % (" ".join(cmd), r.stderr))

    def on(self, h, argv):
        """argv run as on host h: its network, its host name, its own PMIx directory."""
        script = ("hostname %s && mount -t tmpfs tmpfs %s && exec \"$@\"" %
                  (h, self.path("pmix")))
        # nsenter, not `ip netns exec`: that one mounts a sysfs of its own,
        # without the cgroup file systems slurmd needs.
        return ["nsenter", "--net=/run/netns/" + self.ns[h], "unshare", "-u", "-m",
                "--propagation", "private", "sh", "-c", script, "sh"] + argv

    def _start(self):
        self._netns()
        for sub in ("munge", "state", "log", "pmix"):
            os.mkdir(self.path(sub), 0o700)
        self._start_munge()
        self.conf = self.path("slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                *self.common_conf("ha(%s)" % self.ip["ha"], "-%n"),
                "SlurmdParameters=config_overrides",
                "NodeName=ha NodeHostname=ha NodeAddr=%s CPUs=8 State=UNKNOWN" % self.ip["ha"],
                "NodeName=hb NodeHostname=hb NodeAddr=%s CPUs=8 State=UNKNOWN" % self.ip["hb"],
                "PartitionName=gexx Nodes=ha,hb Default=YES MaxTime=INFINITE State=UP "
                "OverSubscribe=YES", ""]))
        open(self.path("plugstack.conf"), "w").close()
        with open(self.path("mpi.conf"), "w") as f:
            f.write("PMIxCliTmpDirBase=%s\n" % self.path("pmix"))
        self.env = {"SLURM_CONF": self.conf}
        self._daemon(self.on("ha", [tool("slurmctld"), "-i", "-f", self.conf]),
                     self.path("slurmctld.pid"))
        for h in ("ha", "hb"):
            os.mkdir(self.path("spool-" + h), 0o700)
            self._daemon(self.on(h, [tool("slurmd"), "-N", h, "-f", self.conf]),
                         self.path("slurmd-%s.pid" % h))
        deadline = time.time() + 60
        state = ""
        while time.time() < deadline:
            p = subprocess.run(self.on("ha", ["sinfo", "-h", "-o", "%T"]), env=self.full_env(),
                               capture_output=True, text=True)
            state = (p.stdout + p.stderr).split()
            if state == ["idle"]:
                break
            time.sleep(0.3)
        check(state == ["idle"], "the two Slurm nodes never became idle (sinfo: %r)%s" %
              (state, self.logs()))
        p = subprocess.run(self.on("ha", ["srun", "--mpi=list"]), env=self.full_env(),
                           capture_output=True, text=True)
        if self.mpi not in p.stdout + p.stderr:
            skip("this Slurm offers no %s MPI plugin (srun --mpi=list: %s)" %
                 (self.mpi, (p.stdout + p.stderr).strip().replace("\n", " ")))

    def logs(self):
        out = ""
        for name in ("munged.log", "slurmctld.log", "slurmd-ha.log", "slurmd-hb.log"):
            try:
                with open(self.path("log", name)) as f:
                    out += "\n--- %s (tail):\n%s" % (name, "".join(f.readlines()[-15:]))
            except OSError:
                pass
        return out

    def srun(self, n, argv, env=None, extra=()):
        full = dict(self.env)
        full.update(env or {})
        return Job(self.on("ha", ["srun", "--mpi=" + self.mpi, "-N", "2", "-n", str(n)] +
                           list(extra) + argv), env=full, launcher=False)

    def __exit__(self, *exc):
        # The jobs through ha's slurmctld; then the base class ends the
        # daemons and any process left with this configuration, and removes
        # the scratch directory; last, the namespaces, with anything still in them.
        if getattr(self, "env", None):
            subprocess.run(self.on("ha", ["scancel", "--full", "--quiet", "--user=root"]),
                           env=self.full_env(), capture_output=True, timeout=30)
            deadline = time.time() + 15
            while time.time() < deadline:
                p = subprocess.run(self.on("ha", ["squeue", "-h"]), env=self.full_env(),
                                   capture_output=True, text=True, timeout=30)
                if p.returncode != 0 or not p.stdout.strip():
                    break
                time.sleep(0.2)
        self.env = None
        super().__exit__(*exc)
        for h in self.made:
            r = subprocess.run(["ip", "netns", "pids", self.ns[h]], capture_output=True,
                               text=True)
            for pid in [int(p) for p in r.stdout.split()]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            subprocess.run(["ip", "netns", "del", self.ns[h]], capture_output=True)
        self.made = []
        return False

def have_libpmi2():
    if os.environ.get("GEXX_PMI2_LIBRARY"):
        return os.path.exists(os.environ["GEXX_PMI2_LIBRARY"])
    p = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True)
    return "libpmi2.so" in p.stdout


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


def case_pmi2():
    """srun --mpi=pmi2 (PMI-2 through Slurm's libpmi2): 1-, 2- and 4-rank jobs
    with data checked (the 4 MiB exchange spans many PMI-2 values), AM, RMA
    and barrier conformance on 4 ranks of smp and of ofi (tcp)."""
    with Cluster("pmi2") as c:
        for n in (1, 2, 4):
            pmixtests.case_check(c.srun, "jobcheck", n, args=["data", "1048576"],
                                 started="PMI-2")()
        for program in ("amcheck", "rmacheck", "barrierconf"):
            pmixtests.case_check(c.srun, program, 4, started="PMI-2")()
        pmixtests.case_check(c.srun, "amcheck", 4, ofi="tcp", started="PMI-2")()
        pmixtests.case_check(c.srun, "rmacheck", 4, ofi="tcp", args=["1048576"],
                             started="PMI-2")()


def case_pmi2_exits():
    """exitcheck under srun --mpi=pmi2, and a rank killed with SIGKILL: the job's
    code right, every rank gone, /dev/shm clean."""
    with Cluster("pmi2") as c:
        pmixtests.case_exits(c.srun, 4)()
        pmixtests.case_kill(c.srun, 4)()


def case_two_hosts(mpi="pmix", programs=(("amcheck_ofi", ()), ("rmacheck_ofi", ("1048576",)),
                                          ("barrierconf_ofi", ()))):
    """Two Slurm hosts in network namespaces (TwoHostCluster), one srun job of
    4 ranks placed cyclically (0 and 2 on ha, 1 and 3 on hb) on the ofi
    conduit with the default supernode: peers on one host share memory,
    the others talk tcp across the veth link. Checked: each rank's host and
    neighbourhood, AM, RMA (1 MiB) and barrier conformance with data, and an
    exit on hb that ends the ranks of both hosts with its code. Both PMIx's
    per-host exchanges and the exit datagrams between hosts' first ranks are
    exercised here."""
    prog = pmixtests.prog("topocheck_ofi")
    if not os.path.exists(prog):
        skip("the ofi conduit is not built here (no libfabric found at configure time)")
    with TwoHostCluster(mpi) as c:
        env = {"GASNET_OFI_PROVIDER": jobtests.OFI_PROVIDERS["tcp"], "GASNET_VERBOSEENV": "1"}
        cyclic = ["--ntasks-per-node=2", "--distribution=cyclic"]

        def run(program, args=()):
            before = shm_entries()
            job = c.srun(4, [pmixtests.prog(program)] + list(args), env, cyclic)
            job.wait(timeout=200).expect(0)
            check("started by " + {"pmix": "PMIx", "pmi2": "PMI-2"}[mpi] in job.stderr,
                  job.show())
            job.assert_nothing_left(before)
            return job
        job = run("topocheck_ofi")
        want = {0: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]",
                1: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]",
                2: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]",
                3: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]"}
        for r, line in want.items():
            check("topo rank %d: %s" % (r, line) in job.stdout,
                  "rank %d placement%s" % (r, job.show()))
        for program, args in programs:
            job = run(program, args)
            pmixtests.passed(job, program[:-len("_ofi")], 4)
        # Rank 1 (on hb) calls gasnet_exit(3); the others (two on ha) catch
        # SIGQUIT and exit 4; the job's code is the first exit's.
        before = shm_entries()
        job = c.srun(4, [pmixtests.prog("exitcheck_ofi"), "sigquit", "3", "1", "4"], env, cyclic)
        job.wait(timeout=60)
        job.expect(3)
        caught = sorted(int(r) for r in re.findall(r"exitcheck rank (\d+): caught SIGQUIT",
                                                   job.stdout))
        check(caught == [0, 2, 3], "ranks that caught SIGQUIT: %s%s" % (caught, job.show()))
        job.assert_nothing_left(before)
        # Rank 1, hb's first rank, vanishes (_exit(9), telling nobody): rank 3
        # notices it and tells ha, and every rank ends; srun alone would wait.
        before = shm_entries()
        job = c.srun(4, [pmixtests.prog("exitcheck_ofi"), "vanish", "9", "1"], env, cyclic)
        job.wait(timeout=60)
        check(job.code != 0, "job exit 0 after a rank vanished%s" % job.show())
        check(job.took() < pmixtests.HANG_SECONDS, "took %.1f s%s" % (job.took(), job.show()))
        job.assert_nothing_left(before)

def case_two_hosts_pmi2():
    """two_hosts under srun --mpi=pmi2: placement, AM conformance and the remote
    exit (PMI-2's one KVS space, keys per rank, across two hosts)."""
    if not have_libpmi2():
        skip("Slurm's libpmi2 is not installed (Debian: libpmi2-0)")
    case_two_hosts("pmi2", (("amcheck_ofi", ()),))


CASES = {"jobs": case_jobs, "ofi": case_ofi, "exits": case_exits, "spawner": case_spawner,
         "pmi2": case_pmi2, "pmi2_exits": case_pmi2_exits, "two_hosts": case_two_hosts,
         "two_hosts_pmi2": case_two_hosts_pmi2}


def main():
    # A test stopped with SIGTERM or SIGINT still tears its cluster down.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    if sys.argv[1:] == ["--list"]:
        for name in sorted(CASES):
            ofi = name in ("ofi", "pmi2", "two_hosts", "two_hosts_pmi2")
            print("%s %s" % (name, "integration,slurm,ofi" if ofi else "integration,slurm"))
        return 0

    def take_args(args):
        jobtests.ARGS = args
    return jobtests.run_case(CASES, take_args)


if __name__ == "__main__":
    sys.exit(main())
