#!/usr/bin/env bash
# Legacy clients that use find_package(GASNet): one through the installed
# CMake package (GASNet::smp-parsync, GASNet::smp-seq-static, and
# GASNet::GASNet chosen with GASNet_CONDUIT / GASNet_THREADING as Legion
# does), one through the project's own FindGASNet.cmake that parses the .mak
# fragments (module mode). Each build runs on 4 ranks.
#   cmake_client.sh <prefix> <cmake>
TEST_NAME=install.cmake_client
source "$(dirname "$0")/lib.sh"
begin "<prefix> <cmake>" "$@"
cxx=" (C++ sees conduit SMP, $ranks nodes)"

path="CMake package: configure"
"$cmake" -S "$client_src" -B "$work/config" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "configure failed"
passed

path="CMake package, GASNet::smp-parsync"
"$cmake" --build "$work/config" --target client || fail "build failed"
check_loads "$work/config/client" libgasnet-smp-parsync.so
check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/config/client"
passed

path="CMake package, GASNet::smp-seq-static"
"$cmake" --build "$work/config" --target client-static || fail "build failed"
check_loads "$work/config/client-static" static
check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/config/client-static"
passed

path="CMake package, GASNet::GASNet (GASNet_CONDUIT=smp, GASNet_THREADING=par)"
"$cmake" --build "$work/config" --target client-default || fail "build failed"
check_loads "$work/config/client-default" libgasnet-smp-par.so
check_job "$cxx" "$prefix/bin/gasnetrun" -n $ranks "$work/config/client-default"
passed

path="CMake package: an unknown conduit is a clear error"
out=$("$cmake" -S "$client_src" -B "$work/config-bad" -DCMAKE_PREFIX_PATH="$prefix" \
  -DGASNet_CONDUIT=nosuch 2>&1) && fail "configure succeeded with GASNet_CONDUIT=nosuch"
grep -q "GASNet_CONDUIT=nosuch GASNet_THREADING=par is not installed" <<<"$out" ||
  fail "the error does not name the problem:"$'\n'"$out"
passed

path="project's own FindGASNet.cmake (module mode, reads the .mak fragments)"
"$cmake" -S "$client_src/module-mode" -B "$work/module" -DGASNet_ROOT_DIR="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "configure failed"
"$cmake" --build "$work/module" || fail "build failed"
check_loads "$work/module/client" libgasnet-smp-par.so
check_job "$cxx" "$prefix/bin/gasnetrun_smp" -n $ranks "$work/module/client"
passed
