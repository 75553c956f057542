#!/usr/bin/env python3
"""Lists the gexx files in /dev/shm that outlived their job, and fails if any.

A file counts when it is named gexx-<job>-..., belongs to this user, was
changed at or after --since (seconds since the epoch: the start of the test
run, so that another run's files on a shared host are not counted), its
job's supervisor (the pid the job id starts with) is gone, and no live
process maps it or holds it open. Run by `make test` after the whole suite.

usage: shm_leftovers.py [--since SECONDS] [--dir DIR]
"""
import argparse
import os
import re
import sys


def in_use(keys):
    """The (dev, inode) pairs among `keys` that some live process maps or holds open."""
    used = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/maps" % pid) as f:
                for line in f:
                    cols = line.split()
                    if len(cols) < 5 or cols[4] == "0":
                        continue
                    major, minor = (int(x, 16) for x in cols[3].split(":"))
                    key = (os.makedev(major, minor), int(cols[4]))
                    if key in keys:
                        used.add(key)
        except OSError:
            pass
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat("/proc/%s/fd/%s" % (pid, fd))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in keys:
                used.add((st.st_dev, st.st_ino))
    return used


def supervisor_alive(job):
    m = re.match(r"([0-9a-f]{1,8})p", job)
    if not m:
        return False
    try:
        os.kill(int(m.group(1), 16), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--since", type=float, default=0)
    p.add_argument("--dir", default="/dev/shm")
    args = p.parse_args()
    candidates = {}
    try:
        names = os.listdir(args.dir)
    except FileNotFoundError:
        names = []
    for name in names:
        m = re.match(r"gexx-([^-]+)-", name)
        if not m:
            continue
        try:
            st = os.lstat(os.path.join(args.dir, name))
        except OSError:
            continue
        if st.st_uid != os.geteuid() or st.st_ctime < args.since:
            continue
        if supervisor_alive(m.group(1)):
            continue
        candidates[(st.st_dev, st.st_ino)] = name
    used = in_use(set(candidates))
    left = sorted(name for key, name in candidates.items() if key not in used)
    if left:
        print("shm_leftovers: %d file(s) in %s outlived their job: %s" % (
            len(left), args.dir, " ".join(left)))
        return 1
    print("shm_leftovers: nothing of ours left in %s" % args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
