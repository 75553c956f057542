#!/usr/bin/env bash
# A tools-only client (gasnet_tools.h, no conduit) built from an installed
# tree: with gasnet_tools-par.mak from a Makefile, with pkg-config
# gasnet_tools-seq, and linked with the wrong model's library (which must
# fail, naming the library it needs).
#   tools_client.sh <prefix>
TEST_NAME=install.tools_client
source "$(dirname "$0")/lib.sh"
begin "<prefix>" "$@"

cat >"$work/tools.c" <<'C'
#include <gasnet_tools.h>
#include <stdio.h>
int main(void) {
  gasnett_atomic_t a = gasnett_atomic_init(0);
  gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
  gasnett_mutex_lock(&m);
  gasnett_atomic_add(&a, 41, GASNETT_ATOMIC_MB_PRE);
  gasnett_atomic_increment(&a, 0);
  gasnett_mutex_unlock(&m);
  gasnett_tick_t t = gasnett_ticks_now();
  int64_t size = gasnett_getenv_int_withdefault("TOOLS_CLIENT_SIZE", 0, 1);
  printf("tools client: %d %lld %s\n", (int)gasnett_atomic_read(&a, 0), (long long)size,
         gasnett_ticks_now() >= t ? "ok" : "clock went back");
  return 0;
}
C

# expect_run <executable>
expect_run() {
  local out
  out=$(TOOLS_CLIENT_SIZE=2K "$1" 2>&1) || fail "'$1' failed: $out"
  [[ $out == "tools client: 42 2048 ok" ]] || fail "unexpected output: $out"
}

path="gasnet_tools-par.mak (Makefile)"
cat >"$work/Makefile" <<MAKE
include $prefix/include/gasnet_tools-par.mak
tools: tools.o
	\$(GASNETTOOLS_LD) \$(GASNETTOOLS_LDFLAGS) -o \$@ \$^ \$(GASNETTOOLS_LIBS)
tools.o: tools.c
	\$(GASNETTOOLS_CC) \$(GASNETTOOLS_CPPFLAGS) \$(GASNETTOOLS_CFLAGS) -c -o \$@ \$<
MAKE
make -s -C "$work" tools || fail "make failed"
check_loads "$work/tools" libgasnet_tools-par.so
expect_run "$work/tools"
passed

path="pkg-config gasnet_tools-seq"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc=$(pkg-config --variable=GASNETTOOLS_CC gasnet_tools-seq)
# shellcheck disable=SC2046
"$cc" $(pkg-config --cflags gasnet_tools-seq) -o "$work/tools-seq" "$work/tools.c" \
  $(pkg-config --libs gasnet_tools-seq) || fail "the build failed"
check_loads "$work/tools-seq" libgasnet_tools-seq.so
expect_run "$work/tools-seq"
passed

path="a GASNETT_THREAD_SAFE client linked with libgasnet_tools-seq"
rc=0
# shellcheck disable=SC2046
out=$("$cc" -DGASNETT_THREAD_SAFE -I"$prefix/include" -o "$work/mismatch" "$work/tools.c" \
  $(pkg-config --libs gasnet_tools-seq) 2>&1) || rc=$?
[[ $rc -ne 0 ]] || fail "the link succeeded; it must fail"
grep -q "gasnett_client_compiled_GASNETT_THREAD_SAFE__link_libgasnet_tools_par" <<<"$out" ||
  fail "the link error does not name the model and the library:"$'\n'"$out"
passed
