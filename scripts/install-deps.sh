#!/usr/bin/env bash
# Installs the Debian packages a target needs, and only those that are
# missing. Quiet and quick when everything is there; safe to rerun.
#
# usage: install-deps.sh [build|test] [--list]
#   build (default; `make deps`, `make run`, `make build` users): what
#         building, installing and running the demos need.
#   test  (`make deps-test`, `make test`): that, plus what the tests use
#         (the multi-host test's sshd and ssh, debuggers, namespaces).
#   --list: print the packages of the set, one per line, and install nothing.
# It never enables or starts a system service: a package it installs that
# brings one (openssh-server's ssh.service) is installed with starting
# refused and its enablement undone (the tests run their own sshd).
set -euo pipefail

mode=build
list_only=0
for arg in "$@"; do
  case $arg in
    build | test) mode=$arg ;;
    --list) list_only=1 ;;
    *)
      echo "install-deps: unknown argument '$arg' (use build or test, and --list)" >&2
      exit 2
      ;;
  esac
done

# Every package of a set, for --list and docs/building.md.
build_packages=(cmake ninja-build gcc g++ pkg-config make python3 libgtest-dev)
test_packages=(clang-format util-linux procps iproute2 openssh-server openssh-client binutils gdb)
if ((list_only)); then
  printf '%s\n' "${build_packages[@]}"
  [[ $mode == test ]] && printf '%s\n' "${test_packages[@]}"
  printf '%s (optional: the ofi conduit)\n' libfabric-dev libfabric-bin
  exit 0
fi

readonly MIN_CMAKE=3.25

missing=()
need() {
  local pkg=$1
  for p in "${missing[@]+"${missing[@]}"}"; do
    [[ $p == "$pkg" ]] && return 0
  done
  missing+=("$pkg")
}

have() { command -v "$1" >/dev/null 2>&1; }

# "3.25.1" >= "3.25"?
version_at_least() {
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

cmake_ok() {
  have cmake || return 1
  local v
  v=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9.]*\).*/\1/p')
  [[ -n $v ]] && version_at_least "$v" "$MIN_CMAKE"
}

# The compiler must take -std=c++20 and have the C++20 library headers.
cxx20_ok() {
  have g++ || return 1
  printf '#include <concepts>\n#include <span>\nint main() { return 0; }\n' |
    g++ -std=c++20 -fsyntax-only -x c++ - >/dev/null 2>&1
}

gtest_ok() {
  local dir
  for dir in /usr/lib/*/cmake/GTest /usr/lib/cmake/GTest /usr/local/lib/cmake/GTest; do
    [[ -f $dir/GTestConfig.cmake ]] && return 0
  done
  return 1
}

check_all() {
  missing=()
  cmake_ok || need cmake
  have ninja || need ninja-build
  have gcc || need gcc
  cxx20_ok || need g++
  have pkg-config || need pkg-config
  have make || need make
  have python3 || need python3
  gtest_ok || need libgtest-dev
  [[ $mode == test ]] || return 0
  have clang-format || need clang-format
  have unshare || need util-linux
  { have pgrep && have ps; } || need procps
  # The multi-host test: network namespaces joined by a veth pair, an sshd in each.
  have ip || need iproute2
  { have sshd || [[ -x /usr/sbin/sshd ]]; } || need openssh-server
  { have ssh && have ssh-keygen; } || need openssh-client
  # Backtraces with source lines, and releasing ranks frozen for a debugger
  # (job.backtrace_*, job.freeze*): without these the cases skip.
  have addr2line || need binutils
  have gdb || need gdb
}

# Optional: libfabric for the ofi conduit. The build leaves the conduit out
# without it; GEXX_NO_OFI=1 skips installing it.
libfabric_ok() { pkg-config --exists libfabric 2>/dev/null && have fi_info; }
optional=()
if [[ ${GEXX_NO_OFI:-0} != 1 ]] && ! libfabric_ok; then
  optional+=(libfabric-dev libfabric-bin)
fi

# ---- Test dependencies: PMIx launchers (issue 24) ----------------------------
# Optional, for the tests only (pmixtests.py, slurmtests.py): PMIx's headers
# (without them ranks cannot join mpirun/srun jobs, and those tests skip),
# Open MPI's mpirun, Slurm with munge for the Slurm clusters the tests
# start in a scratch directory, and Slurm's libpmi2 (ranks open it at run
# time under srun --mpi=pmi2). No service is enabled or started: the
# install runs with a policy-rc.d that refuses service starts, and the tests
# run their own daemons. GEXX_NO_PMIX=1 skips this block.
pmix_test_deps_ok() {
  pkg-config --exists pmix 2>/dev/null && have mpirun && have srun &&
    { have slurmd || [[ -x /usr/sbin/slurmd ]]; } && { have munged || [[ -x /usr/sbin/munged ]]; } &&
    /sbin/ldconfig -p 2>/dev/null | grep -q 'libpmi2\.so\.0'
}
if [[ ${GEXX_NO_PMIX:-0} != 1 ]] && ! pmix_test_deps_ok; then
  optional+=(libpmix-dev openmpi-bin libopenmpi-dev slurm-wlm munge libpmi2-0)
fi

# Packages with daemons (munge, slurm) must not start them on install: a
# policy-rc.d refusing every start, for the install only (unless one exists).
policy_rc=/usr/sbin/policy-rc.d
made_policy=0
no_services_begin() {
  if [[ ! -e $policy_rc ]] && ((EUID == 0)); then
    printf '#!/bin/sh\nexit 101\n' >"$policy_rc" && chmod 755 "$policy_rc" && made_policy=1
  fi
}
no_services_end() {
  if ((made_policy)); then rm -f "$policy_rc"; made_policy=0; fi
}

check_all
if ((${#missing[@]} == 0 && ${#optional[@]} != 0)) && have apt-get &&
  { ((EUID == 0)) || have sudo; }; then
  sudo_cmd=()
  ((EUID == 0)) || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  no_services_begin
  if "${sudo_cmd[@]+"${sudo_cmd[@]}"}" apt-get install -y -qq --no-install-recommends \
    "${optional[@]}" >/dev/null 2>&1; then
    echo "install-deps: installed ${optional[*]} (optional: the ofi conduit, the PMIx/Slurm tests)"
  else
    echo "install-deps: could not install ${optional[*]}; the ofi conduit or the PMIx/Slurm tests will be left out" >&2
  fi
  no_services_end
fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: everything for '$mode' is present (cmake $(cmake --version | sed -n '1s/^cmake version //p'), $(g++ -dumpfullversion 2>/dev/null | sed 's/^/g++ /'))"
  exit 0
fi

if ! have apt-get; then
  echo "install-deps: missing ${missing[*]}, and there is no apt-get here; install them with your package manager" >&2
  exit 1
fi

as_root=()
if ((EUID != 0)); then
  if have sudo; then
    as_root=(sudo)
  else
    echo "install-deps: missing ${missing[*]}; run this script as root (no sudo here) or install them yourself" >&2
    exit 1
  fi
fi

wanted=("${missing[@]}")
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]+"${as_root[@]}"}" apt-get update -qq >/dev/null
# No service starts during the installation: policy-rc.d answers "refused"
# (101) to every start request, unless the host has a policy of its own.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# installed by gexx scripts/install-deps.sh for one apt-get run\nexit 101\n' |
    "${as_root[@]+"${as_root[@]}"}" tee "$policy" >/dev/null
  "${as_root[@]+"${as_root[@]}"}" chmod 755 "$policy"
  own_policy=1
fi
status=0
"${as_root[@]+"${as_root[@]}"}" apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null || status=$?
# openssh-server enables ssh.service (and its socket) for boot: undone, since
# only the tests' private sshd is wanted.
if [[ " ${wanted[*]} " == *" openssh-server "* ]] && have deb-systemd-helper; then
  "${as_root[@]+"${as_root[@]}"}" deb-systemd-helper disable ssh.service ssh.socket >/dev/null 2>&1 || true
  echo "install-deps: installed openssh-server for the multi-host test only: ssh.service is not enabled or started"
fi
if ((own_policy)); then "${as_root[@]+"${as_root[@]}"}" rm -f "$policy"; fi
((status == 0)) || exit "$status"
if ((${#optional[@]} != 0)); then
  no_services_begin
  "${as_root[@]+"${as_root[@]}"}" apt-get install -y -qq --no-install-recommends "${optional[@]}" \
    >/dev/null 2>&1 || echo "install-deps: could not install ${optional[*]}; the ofi conduit or the PMIx/Slurm tests will be left out" >&2
  no_services_end
fi

check_all
if ((${#missing[@]} != 0)); then
  if [[ " ${missing[*]} " == *" cmake "* ]]; then
    echo "install-deps: installed ${wanted[*]}, but cmake is still older than $MIN_CMAKE; install a newer cmake (e.g. from backports or pip)" >&2
  else
    echo "install-deps: installed ${wanted[*]}, but ${missing[*]} still look missing" >&2
  fi
  exit 1
fi
echo "install-deps: installed ${wanted[*]}"
