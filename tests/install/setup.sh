#!/usr/bin/env bash
# Installs the gexx build tree into <prefix> (emptied first), for the other
# install tests (a CTest fixture).
#   setup.sh <gexx build dir> <cmake> <prefix>
TEST_NAME=install.setup
source "$(dirname "$0")/lib.sh"
[[ $# -eq 3 ]] || { echo "usage: $0 <gexx build dir> <cmake> <prefix>" >&2; exit 2; }
build_dir=$1 cmake=$2 prefix=$3
path="cmake --install"
rm -rf "$prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >/dev/null ||
  fail "cmake --install $build_dir failed (is the tree built?)"
passed
