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

# Strict ISO C (no POSIX feature macros): gasnet_tools.h's timer, sleep and
# reader-writer lock take the library's calls there, and the lock is the
# same lock (two readers at once, no writer beside them).
cat >"$work/strict.c" <<'C'
#include <gasnet_tools.h>
#include <pthread.h>
#include <stdio.h>
static gasnett_rwlock_t lock = GASNETT_RWLOCK_INITIALIZER;
static int second_reader = -1, writer = -1;
static void *other(void *arg) {
  (void)arg;
  second_reader = gasnett_rwlock_tryrdlock(&lock);
  if (second_reader == 0) gasnett_rwlock_unlock(&lock);
  writer = gasnett_rwlock_trywrlock(&lock);
  return NULL;
}
int main(void) {
  pthread_t t;
  gasnett_tick_t t0 = gasnett_ticks_now();
  if (gasnett_nsleep(2000000) != 0) return 2;
  uint64_t slept = gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
  gasnett_rwlock_rdlock(&lock);
  if (pthread_create(&t, NULL, other, NULL) || pthread_join(t, NULL)) return 3;
  gasnett_rwlock_unlock(&lock);
  gasnett_rwlock_wrlock(&lock);
  gasnett_rwlock_unlock(&lock);
  printf("strict client: reader %d writer %s slept %s\n", second_reader,
         writer == EBUSY ? "busy" : "free", slept >= 2000000 ? "enough" : "too little");
  return 0;
}
C
cat >"$work/strict-conduit.c" <<'C'
#include <gasnetex.h>
#include <gasnet.h>
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnet_tools.h>
int strict_probe(void) { return (int)gasnett_ticks_now() + (int)gasnet_mynode(); }
C
for std in c99 c11; do
  path="strict ISO C ($std -pedantic): tools client runs, conduit headers compile"
  "$cc" -std=$std -pedantic -Werror=implicit-function-declaration -DGASNETT_THREAD_SAFE \
    -I"$prefix/include" -o "$work/strict-$std" "$work/strict.c" -L"$prefix/lib" \
    -Wl,-rpath,"$prefix/lib" -lgasnet_tools-par -lpthread || fail "the $std build failed"
  out=$("$work/strict-$std" 2>&1) || fail "'$work/strict-$std' failed: $out"
  [[ $out == "strict client: reader 0 writer busy slept enough" ]] ||
    fail "unexpected output: $out"
  "$cc" -std=$std -pedantic -Werror=implicit-function-declaration -DGASNET_SEQ \
    -I"$prefix/include" -I"$prefix/include/smp-conduit" -c -o "$work/strict-conduit.o" \
    "$work/strict-conduit.c" || fail "the conduit headers do not compile with -std=$std"
  passed
done
