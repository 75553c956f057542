#!/usr/bin/env python3
"""Two "hosts" on one machine, for the ssh spawner's tests.

Each host is a network namespace with its own sshd on a private port and a
private configuration; a veth pair joins them. Keys (host and user) are made
for the run in a temporary directory, and nothing of the system's is touched:
each sshd runs in a private mount namespace with its own /run. Everything is
torn down on every path out, and a case then checks that neither namespace
held a process any more.

Exit status 77 (CTest's skip) with a message when the machine allows no
namespaces, or sshd or ssh is missing.

usage: multihost.py --bin-dir DIR CASE
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

SKIP = 77
PORT = 2222
HANG_BOUND = 60  # seconds; a generous bound on any step: past it the case fails
# A job whose ranks must be ended early runs ranks that would sleep this long
# (far past HANG_BOUND), so a launcher that waits for them instead fails.
RANK_SLEEP = 600
# Measured from each such job's own start (or the cut): the launcher ends it
# within a few seconds (about 4 s after a cut: ssh's ServerAliveInterval=1 x 3);
# PROMPT_BOUND is well above that and well below HANG_BOUND and RANK_SLEEP.
PROMPT_BOUND = 20


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_BOUND, **kw)


def find_sshd():
    for path in (shutil.which("sshd"), "/usr/sbin/sshd"):
        if path and os.access(path, os.X_OK):
            return path
    return None


SSHD_CONFIG = """\
HostKey {dir}/hostkey
AuthorizedKeysFile {dir}/authorized_keys
PidFile none
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
AcceptEnv *
ClientAliveInterval 1
ClientAliveCountMax 3
"""


class TwoHosts:
    """Hosts 'a' (10.x.0.1, where the launcher runs) and 'b' (10.x.0.2)."""

    def __init__(self):
        tag = uuid.uuid4().hex[:6]
        self.ns = {"a": "gexx-%s-a" % tag, "b": "gexx-%s-b" % tag}
        self.link = {"a": "gx%sa" % tag, "b": "gx%sb" % tag}
        net = 200 + int(tag[:2], 16) % 50
        self.ip = {"a": "10.%d.0.1" % net, "b": "10.%d.0.2" % net}
        self.dir = None
        self.sshd = {}
        self.made = []
        self.leftover = {}  # host -> pids still in its namespace once sshd was gone

    def __enter__(self):
        sshd = find_sshd()
        if not sshd or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
            raise Skip("sshd, ssh or ssh-keygen is missing (scripts/install-deps.sh installs them)")
        if not shutil.which("ip") or not shutil.which("unshare"):
            raise Skip("ip (iproute2) or unshare is missing")
        try:
            self._setup(sshd)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _setup(self, sshd):
        self.dir = tempfile.mkdtemp(prefix="gexx-multihost-")
        for name in ("hostkey", "userkey"):
            r = run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                     os.path.join(self.dir, name)])
            check(r.returncode == 0, "ssh-keygen failed: " + r.stderr)
        shutil.copy(os.path.join(self.dir, "userkey.pub"),
                    os.path.join(self.dir, "authorized_keys"))
        with open(os.path.join(self.dir, "sshd_config"), "w") as f:
            f.write(SSHD_CONFIG.format(dir=self.dir))
        for h in ("a", "b"):
            r = run(["ip", "netns", "add", self.ns[h]])
            if r.returncode != 0:
                raise Skip("this machine does not allow network namespaces (ip netns add: %s)"
                           % r.stderr.strip())
            self.made.append(h)
        r = run(["ip", "link", "add", self.link["a"], "type", "veth", "peer", "name",
                 self.link["b"]])
        if r.returncode != 0:
            raise Skip("this machine does not allow veth pairs (%s)" % r.stderr.strip())
        for h in ("a", "b"):
            for cmd in (["ip", "link", "set", self.link[h], "netns", self.ns[h]],
                        ["ip", "-n", self.ns[h], "addr", "add", self.ip[h] + "/24", "dev",
                         self.link[h]],
                        ["ip", "-n", self.ns[h], "link", "set", "lo", "up"],
                        ["ip", "-n", self.ns[h], "link", "set", self.link[h], "up"]):
                r = run(cmd)
                check(r.returncode == 0, "%s: %s" % (" ".join(cmd), r.stderr))
        for h in ("a", "b"):
            # A private /run gives sshd the directory it needs without touching ours.
            script = ("mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && "
                      "exec %s -D -e -p %d -f %s/sshd_config" % (sshd, PORT, self.dir))
            log = open(os.path.join(self.dir, "sshd-%s.log" % h), "w")
            self.sshd[h] = subprocess.Popen(
                ["ip", "netns", "exec", self.ns[h], "unshare", "-m", "--propagation",
                 "private", "sh", "-c", script], stdout=log, stderr=log)
        for h in ("a", "b"):
            self._wait_for_sshd(h)

    def _wait_for_sshd(self, h):
        deadline = time.monotonic() + HANG_BOUND
        while time.monotonic() < deadline:
            if self.sshd[h].poll() is not None:
                with open(os.path.join(self.dir, "sshd-%s.log" % h)) as f:
                    raise Failure("sshd on host %s ended: %s" % (h, f.read()))
            if self.ssh("a", h, "true").returncode == 0:
                return
            time.sleep(0.1)
        raise Failure("sshd on host %s never answered" % h)

    def ssh_options(self):
        """GASNET_SSH_OPTIONS for this pair of hosts."""
        return ("-i %s/userkey -p %d -o StrictHostKeyChecking=no "
                "-o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR "
                "-o ConnectTimeout=3" % (self.dir, PORT))

    def on(self, h, cmd, **kw):
        """Runs `cmd` in host h's namespace."""
        return run(["ip", "netns", "exec", self.ns[h]] + cmd, **kw)

    def ssh(self, src, dst, remote):
        return self.on(src, ["ssh"] + self.ssh_options().split() + [self.ip[dst], remote])

    def cut(self):
        """Cuts the link between the hosts (both ends go down)."""
        self.on("a", ["ip", "link", "set", self.link["a"], "down"])

    def pids(self, h):
        r = run(["ip", "netns", "pids", self.ns[h]])
        return [int(p) for p in r.stdout.split()]

    def __exit__(self, *exc):
        for h, proc in self.sshd.items():
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(timeout=HANG_BOUND)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for h in self.made:
            self.leftover[h] = self.pids(h)
            for pid in self.leftover[h]:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            run(["ip", "netns", "del", self.ns[h]])
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


def case_hosts(hosts):
    """The two hosts reach each other through ssh, and the cut separates them."""
    for src in ("a", "b"):
        for dst in ("a", "b"):
            r = hosts.ssh(src, dst, "ip -br addr")
            check(r.returncode == 0, "ssh %s -> %s failed: %s" % (src, dst, r.stderr))
            check(hosts.ip[dst] in r.stdout,
                  "ssh %s -> %s landed elsewhere: %s" % (src, dst, r.stdout))
    hosts.cut()
    r = hosts.ssh("a", "b", "true")
    check(r.returncode == 255, "ssh across the cut link returned %d" % r.returncode)


def shm_files():
    return {f for f in os.listdir("/dev/shm") if f.startswith("gexx-")}


def check_no_new_shm_files(before):
    """No gexx file in /dev/shm that was not there before, other than those of
    jobs still running beside this test (ctest -j); a launcher that is
    sweeping its own gets a few seconds."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jobtests import foreign_shm_entry

    def leftovers():
        return sorted(f for f in shm_files() - before if not foreign_shm_entry(f))
    deadline = time.monotonic() + 5
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.1)
    check(not leftovers(), "shared-memory files left: %s" % leftovers())


def launch(hosts, bin_dir, args, env_extra=None, **kw):
    """Runs gasnetrun on host a with the ssh spawner over both hosts."""
    env = dict(os.environ, GASNET_SSH_SERVERS="%s,%s" % (hosts.ip["a"], hosts.ip["b"]),
               GASNET_SSH_OPTIONS=hosts.ssh_options(), GASNET_SPAWNFN="S")
    env.update(env_extra or {})
    cmd = ["ip", "netns", "exec", hosts.ns["a"], os.path.join(bin_dir, "gasnetrun")] + args
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def settle(hosts):
    """Waits until each namespace holds only its sshd (sessions end once
    their client is gone), then checks it."""
    deadline = time.monotonic() + HANG_BOUND
    while time.monotonic() < deadline:
        extra = {h: [p for p in hosts.pids(h) if p != hosts.sshd[h].pid] for h in ("a", "b")}
        if not any(extra.values()):
            return
        time.sleep(0.2)
    raise Failure("processes still running in the host namespaces: %s" % extra)


def case_job(hosts, bin_dir):
    """Four ranks over the two hosts: the bootstrap collectives carry real
    data across, each rank is where the placement says, exit codes hold."""
    before = shm_files()
    check_prog = os.path.join(bin_dir, "tests", "integration", "bootstrap_check")
    p = launch(hosts, bin_dir, ["-n", "4", check_prog, "--no-fds"])
    out, err = p.communicate(timeout=HANG_BOUND)
    check(p.returncode == 0, "job failed (%d): %s%s" % (p.returncode, out, err))
    for r in range(4):
        check("bootstrap rank %d of 4: PASS" % r in out, "rank %d did not pass: %s%s"
              % (r, out, err))
    # Round-robin: ranks 0 and 2 on host a, 1 and 3 on host b.
    p = launch(hosts, bin_dir, ["-n", "4", "sh", "-c",
                                "echo rank $GEXX_BOOT_RANK host $GEXX_BOOT_HOST "
                                "at $(ip -br addr | grep -o '10\\.[0-9]*\\.[0-9]*\\.[0-9]*' | head -1)"])
    out, err = p.communicate(timeout=HANG_BOUND)
    check(p.returncode == 0, "placement job failed: %s" % err)
    for r in range(4):
        h = "ab"[r % 2]
        check("rank %d host %d at %s" % (r, r % 2, hosts.ip[h]) in out,
              "rank %d not on host %s: %s" % (r, h, out))
    # -N 1: every rank in one block on host a.
    p = launch(hosts, bin_dir, ["-N", "1", "-n", "2", "sh", "-c", "echo host $GEXX_BOOT_HOST"])
    out, err = p.communicate(timeout=HANG_BOUND)
    check(p.returncode == 0 and out.count("host 0") == 2, "-N 1 job: %s%s" % (out, err))
    # A rank on host b fails: its code is the job's; the others are ended.
    start = time.monotonic()
    p = launch(hosts, bin_dir, ["-n", "4", "sh", "-c",
                                "[ $GEXX_BOOT_RANK = 3 ] && exit 5; exec sleep %d" % RANK_SLEEP])
    out, err = p.communicate(timeout=HANG_BOUND)
    took = time.monotonic() - start
    check(took < PROMPT_BOUND, "the job took %.1f s to end after rank 3 failed" % took)
    check(p.returncode == 5, "a failing rank gave %d: %s" % (p.returncode, err))
    check("rank 3" in err and "exited with status 5" in err, "no report of rank 3: " + err)
    settle(hosts)
    check_no_new_shm_files(before)


def case_cut(hosts, bin_dir):
    """The link to host b is cut mid-run: the job ends with a clear error
    naming the host, and nothing is left running on either host."""
    before = shm_files()
    p = launch(hosts, bin_dir, ["-n", "4", "sh", "-c",
                                "echo up $GEXX_BOOT_RANK; sleep %d" % RANK_SLEEP])
    seen = set()
    deadline = time.monotonic() + HANG_BOUND
    while len(seen) < 4 and time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        seen.add(line.strip())
    check(len(seen) == 4, "the ranks did not all start: %s" % seen)
    cut_and_check(hosts, p, before)


def cut_and_check(hosts, p, shm_before):
    """Cuts the link under the running job `p`: it must end with 1 and a
    'lost host' report within the bound, leaving nothing behind."""
    start = time.monotonic()
    hosts.cut()
    out, err = p.communicate(timeout=HANG_BOUND)
    took = time.monotonic() - start
    check(p.returncode == 1, "the job ended with %d after the cut: %s" % (p.returncode, err))
    check("lost host %s" % hosts.ip["b"] in err, "no 'lost host' report: " + err)
    check(took < PROMPT_BOUND, "the job took %.1f s to end after the cut" % took)
    print("ended %.1f s after the cut: %s" % (took, err.strip().splitlines()[-1]))
    settle(hosts)
    check_no_new_shm_files(shm_before)


def case_cut_ofi(hosts, bin_dir):
    """The link is cut while an ofi job has AMs, puts and gets in flight
    across it (threadstress, 2 threads a rank, over the default provider):
    the ranks blocked in libfabric are ended too, with a clear error, and
    nothing is left on either host."""
    prog = os.path.join(bin_dir, "tests", "integration", "threadstress_ofi")
    if not os.path.exists(prog):
        raise Skip("the ofi conduit is not built here (no libfabric found at configure time)")
    before = shm_files()
    p = launch(hosts, bin_dir, ["-n", "4", prog, "100000000", "1", "2", "0"],
               env_extra={"GASNET_VERBOSEENV": "1"})
    # Wait until the job is past start-up (rank 0's verbose report), then
    # give the traffic a moment to fill the link.
    deadline = time.monotonic() + HANG_BOUND
    said = []
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        said.append(line)
        if "libfabric provider" in line:
            break
    check(any("libfabric provider" in l for l in said), "the job did not start: %s" % said)
    time.sleep(1.5)
    check(p.poll() is None, "the job ended before the cut: %s" % "".join(said))
    cut_and_check(hosts, p, before)


def run_net_job(hosts, bin_dir, program, args, env, said):
    """Runs tests/integration/<program> (a network conduit's build:
    <name>_ofi or <name>_udp) on 4 ranks over the two hosts, placed
    round-robin (ranks 0 and 2 on host a, 1 and 3 on b): peers on one host
    share memory (unless `env` says otherwise), the others talk across the
    veth link. Checks every rank passed and rank 0's verbose line `said`
    (GASNET_VERBOSEENV is set); returns stdout."""
    prog = os.path.join(bin_dir, "tests", "integration", program)
    if not os.path.exists(prog):
        raise Skip("%s is not built here (its conduit was not configured)" % program)
    p = launch(hosts, bin_dir, ["-n", "4", prog] + args,
               env_extra=dict(env, GASNET_VERBOSEENV="1"))
    out, err = p.communicate(timeout=3 * HANG_BOUND)  # slow under load, never hung
    check(p.returncode == 0, "%s failed (%d): %s%s" % (program, p.returncode, out, err))
    base = program.rsplit("_", 1)[0]
    passed = sorted(int(r) for r in re.findall(r"^%s rank (\d+) of 4: PASS" % base, out, re.M))
    check(passed == [0, 1, 2, 3], "%s: ranks passed %s: %s%s" % (program, passed, out, err))
    check(said in err, "%s: no %r in what the ranks said: %s" % (program, said, err))
    return out


def run_ofi_job(hosts, bin_dir, program, args, provider="tcp;ofi_rxm"):
    """run_net_job for the ofi conduit over `provider` (None: nobody names
    one, and the conduit's Ethernet default, net, is expected)."""
    env = {"GASNET_OFI_PROVIDER": provider} if provider else {}
    said = ("libfabric provider %s (" % provider if provider else
            "libfabric provider net (our default for Ethernet;")
    return run_net_job(hosts, bin_dir, program, args, env, said)


def case_ofi(hosts, bin_dir):
    """The ofi conduit across the two hosts: locality (two hosts, each its
    own neighbourhood, memory really shared within one), the AM and RMA
    conformance programs and the barrier conformance, with data checked;
    the first two over the default provider, the others over tcp;ofi_rxm;
    then a remote exit that raises SIGQUIT on both hosts."""
    before = shm_files()
    out = run_ofi_job(hosts, bin_dir, "topocheck_ofi", [], provider=None)
    want = {0: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]", 1: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]",
            2: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]", 3: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]"}
    for r, line in want.items():
        check("topo rank %d: %s" % (r, line) in out, "rank %d placement: %s" % (r, out))
    run_ofi_job(hosts, bin_dir, "amcheck_ofi", [], provider=None)
    run_ofi_job(hosts, bin_dir, "rmacheck_ofi", ["262144"])
    run_ofi_job(hosts, bin_dir, "barrierconf_ofi", [])
    # A remote exit across hosts: rank 1 (host b) calls gasnet_exit(3); the
    # others, two of them on host a, catch SIGQUIT and exit 4; the job's code
    # is the first caller's.
    prog = os.path.join(bin_dir, "tests", "integration", "exitcheck_ofi")
    p = launch(hosts, bin_dir, ["-n", "4", prog, "sigquit", "3", "1", "4"])
    out, err = p.communicate(timeout=3 * HANG_BOUND)
    check(p.returncode == 3, "sigquit job ended %d: %s%s" % (p.returncode, out, err))
    caught = sorted(int(r) for r in re.findall(r"exitcheck rank (\d+): caught SIGQUIT", out))
    check(caught == [0, 2, 3], "ranks that caught SIGQUIT: %s: %s%s" % (caught, out, err))
    settle(hosts)
    check_no_new_shm_files(before)


def case_udp(hosts, bin_dir):
    """The udp conduit across the two hosts: each rank publishes its host's
    own address (not loopback) and the ranks of the other host reach it over
    the veth link; locality, then the AM, RMA and barrier conformance
    programs with data checked, the last with every peer through UDP
    (GASNET_SUPERNODE_MAXSIZE=1: same-host peers over loopback, the others
    across the link)."""
    before = shm_files()
    said = "conduit udp: UDP port"
    out = run_net_job(hosts, bin_dir, "topocheck_udp", [], {}, said)
    want = {0: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]", 1: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]",
            2: "host 0 of 2 [0,2] nbrhd 0 of 2 [0,2]", 3: "host 1 of 2 [1,3] nbrhd 1 of 2 [1,3]"}
    for r, line in want.items():
        check("topo rank %d: %s" % (r, line) in out, "rank %d placement: %s" % (r, out))
    run_net_job(hosts, bin_dir, "amcheck_udp", [], {}, said)
    run_net_job(hosts, bin_dir, "rmacheck_udp", ["262144"], {}, said)
    run_net_job(hosts, bin_dir, "barrierconf_udp", [], {"GASNET_SUPERNODE_MAXSIZE": "1"}, said)
    settle(hosts)
    check_no_new_shm_files(before)


FAKE_SSH = {
    "unreachable": ("echo \"ssh: connect to host $H port 22: No route to host\" >&2; exit 255",
                    1, "cannot reach host hostb"),
    "denied": ("echo \"user@$H: Permission denied (publickey).\" >&2; exit 255",
               1, "host hostb refused the login"),
    "missing": ("echo \"sh: exec: /x/gasnetrun: not found\" >&2; exit 127",
                127, "cannot start the job on host hostb: a program was not found there"),
}


def case_fake_ssh(bin_dir):
    """A GASNET_SSH_CMD that fails for host 'hostb' (and runs the agent here
    for 'hosta'): each failure is named, with its exit code, within seconds."""
    with tempfile.TemporaryDirectory(prefix="gexx-fakessh-") as d:
        for name, (fail, code, text) in FAKE_SSH.items():
            script = os.path.join(d, name)
            with open(script, "w") as f:
                f.write("#!/bin/sh\nfor H; do [ \"$H\" = hostb ] && break; done\n"
                        "for last; do :; done\n"
                        "if [ \"$H\" = hostb ]; then %s; fi\nexec sh -c \"$last\"\n" % fail)
            os.chmod(script, 0o755)
            env = dict(os.environ, GASNET_SSH_CMD=script, GASNET_SSH_SERVERS="hosta hostb",
                       GASNET_MASTERIP="127.0.0.1")
            start = time.monotonic()
            r = run([os.path.join(bin_dir, "gasnetrun"), "--spawner", "ssh", "-n", "4", "sleep",
                     str(RANK_SLEEP)], env=env)
            check(r.returncode == code, "%s: exit %d, not %d: %s" % (name, r.returncode, code,
                                                                     r.stderr))
            check(text in r.stderr, "%s: no '%s' in: %s" % (name, text, r.stderr))
            took = time.monotonic() - start
            check(took < PROMPT_BOUND, "%s: took %.1f s to end" % (name, took))
        # Bad usage of the spawner's own settings.
        r = run([os.path.join(bin_dir, "gasnetrun"), "--spawner", "ssh", "-n", "2", "true"],
                env={k: v for k, v in os.environ.items()
                     if k not in ("GASNET_SSH_SERVERS", "GASNET_SSH_NODEFILE")})
        check(r.returncode == 2 and "set GASNET_SSH_SERVERS" in r.stderr, "no hosts: " + r.stderr)
        r = run([os.path.join(bin_dir, "gasnetrun"), "-N", "3", "-n", "2", "true"],
                env=dict(os.environ, GASNET_SPAWNFN="S", GASNET_SSH_SERVERS="a,b"))
        check(r.returncode == 2 and "-N 3 asks for more hosts" in r.stderr, "-N: " + r.stderr)


CASES = {"hosts": case_hosts, "job": case_job, "cut": case_cut, "ofi": case_ofi,
         "cut_ofi": case_cut_ofi, "udp": case_udp}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin-dir", required=True)
    p.add_argument("case", choices=sorted(CASES) + ["fake_ssh"])
    args = p.parse_args()
    if args.case == "fake_ssh":
        try:
            case_fake_ssh(args.bin_dir)
        except subprocess.TimeoutExpired as e:
            print("FAIL: %s still running after %s s" % (e.cmd, e.timeout))
            return 1
        except Failure as e:
            print("FAIL: " + str(e))
            return 1
        print("PASS")
        return 0
    if os.geteuid() != 0:
        print("SKIP: network namespaces need root here (run as root, or in a container "
              "that allows them)")
        return SKIP
    hosts = TwoHosts()
    try:
        with hosts:
            if args.case == "hosts":
                case_hosts(hosts)
            else:
                CASES[args.case](hosts, args.bin_dir)
    except Skip as e:
        print("SKIP: " + str(e))
        return SKIP
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s still running after %s s" % (e.cmd, e.timeout))
        return 1
    except Failure as e:
        print("FAIL: " + str(e))
        return 1
    if any(hosts.leftover.values()):
        print("FAIL: processes left behind in the host namespaces: %s" % hosts.leftover)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
