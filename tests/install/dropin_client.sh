#!/usr/bin/env bash
# The drop-in header surface (issue 17, docs/compatibility.md) as a GASNet
# client sees it from an installed tree: a client using the compatibility
# names, built with smp-seq.mak alone, runs as a 4-rank job; the $GASNet...$
# identification strings are in its executable with the shared and the
# static library; SIGINT runs the client's SIGQUIT handler (exit code 4);
# the tools fragment names no libfabric; a tools-only client that mixes thread
# models gets an error naming the conflict.
#   dropin_client.sh <prefix>
TEST_NAME=install.dropin_client
source "$(dirname "$0")/lib.sh"
begin "<prefix>" "$@"

frag=$prefix/include/smp-conduit/smp-seq.mak
v() { fragment_value "$frag" "$1"; }
cc=$(v GASNET_CC)
cppflags=$(v GASNET_CPPFLAGS)
cflags=$(v GASNET_CFLAGS)
ld=$(v GASNET_LD)
ldflags=$(v GASNET_LDFLAGS)
libs=$(v GASNET_LIBS)

# build <source> <output> [static]
build() {
  local link=$libs
  [[ ${3:-} == static ]] && link="$prefix/lib/libgasnet-smp-seq.a -lpthread -lstdc++ -lm"
  # shellcheck disable=SC2086
  $cc $cppflags $cflags -c -o "$2.o" "$1" || fail "compiling $1 failed"
  # shellcheck disable=SC2086
  $ld $ldflags -o "$2" "$2.o" $link || fail "linking $2 failed"
}

path="compatibility names, smp-seq.mak, shared library"
build "$client_src/dropin.c" "$work/dropin"
check_loads "$work/dropin" libgasnet-smp-seq.so
check_job "" env GASNET_PSHM_NODES=$ranks "$work/dropin"
passed

for kind in shared static; do
  path="identification strings ($kind link)"
  exe=$work/dropin
  if [[ $kind == static ]]; then
    build "$client_src/dropin.c" "$work/dropin-static" static
    exe=$work/dropin-static
  fi
  for s in '$GASNetConduitName: SMP $' '$GASNetConfig: (gasnetex.h) RELEASE=' \
    '$GASNetReleaseVersion: ' '$GASNetCoreLibraryName: SMP $'; do
    grep -aqF "$s" "$exe" || fail "'$s' is not in $exe"
  done
  passed
done

path="SIGINT runs the client's SIGQUIT handler"
build "$client_src/sigint.c" "$work/sigint"
rc=0
GASNET_PSHM_NODES=2 timeout -k 5 60 "$work/sigint" >"$work/sigint.out" 2>&1 || rc=$?
[[ $rc -eq 4 ]] || fail "exit code $rc, expected 4:"$'\n'"$(cat "$work/sigint.out")"
passed

path="tools fragment without libfabric"
for mode in seq par; do
  tlibs=$(fragment_value "$prefix/include/gasnet_tools-$mode.mak" GASNETTOOLS_LIBS)
  [[ $tlibs != *fabric* ]] || fail "gasnet_tools-$mode.mak links libfabric: $tlibs"
done
passed

path="tools-only client mixing thread models"
printf '#include <gasnet_tools.h>\nint main(void) { return 0; }\n' >"$work/mix.c"
out=$($cc -DGASNETT_THREAD_SAFE -DGASNET_SEQ -I"$prefix/include" -I"$prefix/include/smp-conduit" \
  -c -o "$work/mix.o" "$work/mix.c" 2>&1) && fail "GASNETT_THREAD_SAFE with GASNET_SEQ compiled"
grep -q "GASNETT_THREAD_SAFE.*conflicts with GASNET_SEQ" <<<"$out" ||
  fail "the error does not name the conflict:"$'\n'"$out"
passed
