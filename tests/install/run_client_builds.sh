#!/usr/bin/env bash
# Installs a gexx build tree into a fresh prefix, builds tests/install/client
# against that prefix the ways GASNet clients do (.mak fragment, pkg-config,
# CMake package shared and static), and runs each build on 4 ranks.
#   run_client_builds.sh <gexx build dir> <cmake executable>
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <gexx build dir> <cmake executable>" >&2
  exit 2
fi
build_dir=$1
cmake=$2
client_src=$(cd "$(dirname "$0")/client" && pwd)
ranks=4

work=$(mktemp -d "${TMPDIR:-/tmp}/gexx-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

# The build path under test, so every failure names it.
path="install"
fail() {
  echo "install.client_builds: FAILED in build path '$path': $*" >&2
  exit 1
}

# run_client <executable> <libgasnet it must load from the prefix, or "static">
run_client() {
  local exe=$1 want=$2 deps
  deps=$(ldd "$exe") || fail "ldd $exe failed"
  if [[ $want == static ]]; then
    ! grep -q libgasnet <<<"$deps" || fail "a static build loads a shared libgasnet:"$'\n'"$deps"
  else
    # realpath: the rpath from the .pc file runs through lib/pkgconfig/../..
    local lib
    lib=$(awk -v w="$want" 'index($1, w) == 1 && $2 == "=>" { print $3 }' <<<"$deps")
    [[ -n $lib && $(realpath "$(dirname "$lib")") == "$(realpath "$prefix/lib")" ]] ||
      fail "$exe does not load $want from $prefix/lib:"$'\n'"$deps"
  fi

  # timeout turns a hung job into a failure that still names the path.
  local out rc=0
  out=$(timeout -k 5 60 "$prefix/bin/gasnetrun" -n "$ranks" "$exe" 2>&1) || rc=$?
  echo "$out"
  [[ $rc -eq 0 ]] || fail "gasnetrun -n $ranks exited with status $rc"
  local got expected
  got=$(grep '^client rank ' <<<"$out" | sort || true)
  expected=$(for ((r = 0; r < ranks; ++r)); do echo "client rank $r/$ranks: ok"; done)
  [[ $got == "$expected" ]] ||
    fail "expected exactly these lines:"$'\n'"$expected"$'\n'"but the ranks printed:"$'\n'"$got"
  echo "install.client_builds: '$path' ok"
}

"$cmake" --install "$build_dir" --prefix "$prefix" >/dev/null ||
  fail "cmake --install $build_dir failed (is the tree built?)"

path="make with smp-seq.mak"
mkdir "$work/mak"
make -C "$work/mak" -f "$client_src/Makefile.mak" GEXX_INSTALL="$prefix" || fail "make failed"
run_client "$work/mak/client" libgasnet-smp-seq.so

path="make with pkg-config gasnet-smp-par"
command -v pkg-config >/dev/null || fail "pkg-config is not installed"
mkdir "$work/pkgconfig"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C "$work/pkgconfig" \
  -f "$client_src/Makefile.pkgconfig" || fail "make failed"
run_client "$work/pkgconfig/client" libgasnet-smp-par.so

path="CMake find_package, GASNet::smp-parsync"
"$cmake" -S "$client_src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "configure failed"
"$cmake" --build "$work/cmake" --target client || fail "build failed"
run_client "$work/cmake/client" libgasnet-smp-parsync.so

path="CMake find_package, GASNet::smp-seq-static"
"$cmake" --build "$work/cmake" --target client-static || fail "build failed"
run_client "$work/cmake/client-static" static
