#!/usr/bin/env bash
# A client compiled for one thread mode and linked with another mode's
# library must fail to link, and the linker's message must name both modes;
# the same client linked with its own mode's library links and runs.
#   mode_mismatch.sh <prefix>
TEST_NAME=install.mode_mismatch
source "$(dirname "$0")/lib.sh"
begin "<prefix>" "$@"

cc=$(fragment_value "$prefix/include/smp-conduit/smp-seq.mak" GASNET_CC)
flags=(-I"$prefix/include" -I"$prefix/include/smp-conduit")

# expect_mismatch <client mode> <library mode> <shared|static>
expect_mismatch() {
  local client=$1 lib=$2 kind=$3 out rc=0 libargs
  path="client -DGASNET_${client^^} linked with the $lib library ($kind)"
  if [[ $kind == shared ]]; then
    libargs=(-L"$prefix/lib" -lgasnet-smp-"$lib")
  else
    libargs=("$prefix/lib/libgasnet-smp-$lib.a")
  fi
  out=$("$cc" -DGASNET_"${client^^}" "${flags[@]}" -o "$work/mismatch" "$client_src/client.c" \
    "${libargs[@]}" -lpthread -lstdc++ -lm 2>&1) || rc=$?
  [[ $rc -ne 0 ]] || fail "the link succeeded; it must fail"
  echo "$out" | grep -m1 "undefined reference"
  grep -q "client_compiled_with_GASNET_${client^^}__linked_with_GASNET_${lib^^}_library" <<<"$out" ||
    fail "the link error does not name both modes:"$'\n'"$out"
  passed
}

for kind in shared static; do
  expect_mismatch par seq "$kind"
  expect_mismatch seq par "$kind"
  expect_mismatch parsync par "$kind"
done

for kind in shared static; do
  path="client -DGASNET_PARSYNC linked with the parsync library ($kind)"
  if [[ $kind == shared ]]; then
    libargs=(-L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lgasnet-smp-parsync)
  else
    libargs=("$prefix/lib/libgasnet-smp-parsync.a")
  fi
  "$cc" -DGASNET_PARSYNC "${flags[@]}" -o "$work/match-$kind" "$client_src/client.c" \
    "${libargs[@]}" -lpthread -lstdc++ -lm || fail "the link failed"
  check_loads "$work/match-$kind" "$([[ $kind == shared ]] && echo libgasnet-smp-parsync.so || echo static)"
  check_job "" "$prefix/bin/gasnetrun" -n $ranks "$work/match-$kind"
  passed
done
