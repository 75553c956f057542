#!/usr/bin/env bash
# Legacy clients that find GASNet through pkg-config: a Makefile that asks
# pkg-config for gasnet-smp-par's flags; a build that reads the GASNET_*
# variables out of gasnet-smp-seq.pc (pkg-config --variable), as Chapel does;
# and CMake's pkg_check_modules, as HPX does. Each build runs on 4 ranks.
#   pkgconfig_client.sh <prefix> <cmake>
TEST_NAME=install.pkgconfig_client
source "$(dirname "$0")/lib.sh"
begin "<prefix> <cmake>" "$@"
command -v pkg-config >/dev/null || fail "pkg-config is not installed"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig

path="make with pkg-config gasnet-smp-par"
mkdir "$work/make"
make -C "$work/make" -f "$client_src/Makefile.pkgconfig" || fail "make failed"
check_loads "$work/make/client" libgasnet-smp-par.so
check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/make/client"
passed

path="GASNET_* variables of gasnet-smp-seq.pc"
pc() { pkg-config --variable="$1" gasnet-smp-seq; }
seq_fragment=$prefix/include/smp-conduit/smp-seq.mak
defined=$(pkg-config --print-variables gasnet-smp-seq)
for v in GASNET_CC GASNET_CXX GASNET_LD GASNET_LD_REQUIRES_MPI GASNET_CPPFLAGS GASNET_CFLAGS \
  GASNET_CXXCPPFLAGS GASNET_CXXFLAGS GASNET_LDFLAGS GASNET_LIBS; do
  grep -qx "$v" <<<"$defined" || fail "gasnet-smp-seq.pc does not define $v"
done
for v in GASNET_CC GASNET_CXX GASNET_LD GASNET_LD_REQUIRES_MPI; do
  [[ $(pc $v) == "$(fragment_value "$seq_fragment" $v)" ]] ||
    fail "$v is '$(pc $v)' in the .pc file but '$(fragment_value "$seq_fragment" $v)' in smp-seq.mak"
done
mkdir "$work/vars"
# shellcheck disable=SC2046 # the flags are word lists
$(pc GASNET_CC) $(pc GASNET_CPPFLAGS) $(pc GASNET_CFLAGS) -Wall -Werror -c \
  -o "$work/vars/client.o" "$client_src/client.c" || fail "compile failed"
# shellcheck disable=SC2046
$(pc GASNET_LD) $(pc GASNET_LDFLAGS) -o "$work/vars/client" "$work/vars/client.o" \
  $(pc GASNET_LIBS) || fail "link failed"
check_loads "$work/vars/client" libgasnet-smp-seq.so
check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/vars/client"
passed

path="CMake pkg_check_modules(gasnet-smp-par)"
"$cmake" -S "$client_src/pkgconfig-cmake" -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release \
  >/dev/null || fail "configure failed"
"$cmake" --build "$work/cmake" || fail "build failed"
check_loads "$work/cmake/client" libgasnet-smp-par.so
check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/cmake/client"
passed
