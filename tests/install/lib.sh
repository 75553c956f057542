# Shared by the install tests (sourced). Each test plays a GASNet client's
# build system against an installed gexx tree and runs what it built.
#   TEST_NAME   set by the sourcing script, printed with every failure
#   path        the build path under test, updated as the script goes
set -euo pipefail

ranks=4
path="setup"

fail() {
  echo "$TEST_NAME: FAILED in '$path': $*" >&2
  exit 1
}

# A scratch folder removed on exit.
make_work() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/gexx-$TEST_NAME.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

# begin "<prefix> [<cmake>]" "$@": the start of every client test. Checks the
# arguments against the usage, sets prefix (resolved) and cmake (if given),
# client_src (the client sources) and work (a scratch folder).
begin() {
  local usage=$1
  shift
  if [[ $# -ne $(wc -w <<<"$usage") ]]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  prefix=$(realpath "$1")
  cmake=${2:-}
  client_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/client" && pwd)
  make_work
}

# check_loads <executable> <libgasnet it must load from <prefix>/lib, or "static">
check_loads() {
  local exe=$1 want=$2 deps lib
  deps=$(ldd "$exe") || fail "ldd $exe failed"
  if [[ $want == static ]]; then
    ! grep -q libgasnet <<<"$deps" || fail "a static build loads a shared libgasnet:"$'\n'"$deps"
    return
  fi
  # realpath: an rpath from the .pc file runs through lib/pkgconfig/../..
  lib=$(awk -v w="$want" 'index($1, w) == 1 && $2 == "=>" { print $3 }' <<<"$deps")
  [[ -n $lib && $(realpath "$(dirname "$lib")") == "$(realpath "$prefix/lib")" ]] ||
    fail "$exe does not load $want from $prefix/lib:"$'\n'"$deps"
}

# check_job <suffix expected after "ok" on each rank's line, or ""> <command...>
# Runs a 4-rank job (the command starts it) and wants exactly one
# "client rank r/4: ok<suffix>" line per rank and status 0.
check_job() {
  local suffix=$1 out rc=0 got expected
  shift
  # timeout turns a hung job into a failure that still names the path.
  out=$(timeout -k 5 60 "$@" 2>&1) || rc=$?
  echo "$out"
  [[ $rc -eq 0 ]] || fail "'$*' exited with status $rc"
  got=$(grep '^client rank ' <<<"$out" | sort || true)
  expected=$(for ((r = 0; r < ranks; ++r)); do echo "client rank $r/$ranks: ok$suffix"; done)
  [[ $got == "$expected" ]] ||
    fail "expected exactly these lines:"$'\n'"$expected"$'\n'"but the ranks printed:"$'\n'"$got"
}

# fragment_value <.mak fragment> <VARIABLE>: the variable's value as make
# expands it for a Makefile that includes the fragment.
fragment_value() {
  make -s -f <(printf 'include %s\nx:\n\t@echo $(%s)\n' "$1" "$2") x ||
    fail "make could not read $2 from $1"
}

# passed: one line per build path that worked.
passed() {
  echo "$TEST_NAME: '$path' ok"
}
