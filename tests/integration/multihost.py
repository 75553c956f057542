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
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

SKIP = 77
PORT = 2222
HANG_BOUND = 60  # seconds; a generous bound, never a timing assertion


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


CASES = {"hosts": case_hosts}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin-dir", required=True)
    p.add_argument("case", choices=sorted(CASES))
    args = p.parse_args()
    if os.geteuid() != 0:
        print("SKIP: network namespaces need root here (run as root, or in a container "
              "that allows them)")
        return SKIP
    hosts = TwoHosts()
    try:
        with hosts:
            CASES[args.case](hosts)
    except Skip as e:
        print("SKIP: " + str(e))
        return SKIP
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
