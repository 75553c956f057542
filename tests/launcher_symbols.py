#!/usr/bin/env python3
"""No libgasnet holds launcher code: the hub, the supervisor and the spawners
(src/launcher/, namespace gexx::launcher) are linked into gasnetrun only.

Runs `nm -C` on every libgasnet-<conduit>-<mode> archive and shared library
in the build directory (and in --install-dir/lib when it exists) and fails on
any symbol of the launcher; checks on gasnetrun that the same pattern does
find them there, so that a rename cannot make this test pass by matching
nothing.

usage: launcher_symbols.py --bin-dir DIR [--install-dir DIR]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

# Demangled names that only launcher code defines.
LAUNCHER = re.compile(r"gexx::launcher::|\bSupervisor\b|run_ssh_agent|run_local_job|"
                      r"supervise_pshm|\bHub::")


def defined_symbols(path):
    out = subprocess.run(["nm", "-C", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return [line for line in out.splitlines() if line and not line.endswith(":")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--install-dir")
    args = parser.parse_args()
    dirs = [args.bin_dir]
    if args.install_dir and os.path.isdir(os.path.join(args.install_dir, "lib")):
        dirs.append(os.path.join(args.install_dir, "lib"))
    libs = []
    for d in dirs:
        libs += sorted(glob.glob(os.path.join(d, "libgasnet-*.a")))
        libs += sorted(p for p in glob.glob(os.path.join(d, "libgasnet-*.so.*"))
                       if not os.path.islink(p))
    failures = []
    if not [p for p in libs if p.endswith(".a")] or not [p for p in libs if ".so." in p]:
        failures.append("no libgasnet archive or shared library found under %s" % dirs)
    for lib in libs:
        found = [s for s in defined_symbols(lib) if LAUNCHER.search(s)]
        if found:
            failures.append("%s holds launcher code:\n  %s" % (lib, "\n  ".join(found[:10])))
    gasnetrun = os.path.join(args.bin_dir, "gasnetrun")
    if not [s for s in defined_symbols(gasnetrun) if LAUNCHER.search(s)]:
        failures.append("%s has no launcher symbols: the check would match nothing" % gasnetrun)
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("PASS: %d libraries (%s) hold no launcher code; gasnetrun does"
              % (len(libs), ", ".join(dirs)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
