#!/usr/bin/env bash
# The GASNet-style front end (./configure, docs/clients.md) and `make dist`,
# played the way UPC++'s configure and bld/ use a GASNet source tree: the
# release tarball's layout and the files UPC++ tests for; configure with
# GASNet's options (debug and optimised) writing gasnet_config.h, an
# autoconf-compatible config.status, a Makefile and <conduit>-conduit/
# folders with their targets and build-tree fragments; options gexx cannot
# honour fail with a message naming them. Building the libraries through the
# front end takes minutes: the UPC++ step of .ci/run does that.
#   frontend.sh <source-dir>
TEST_NAME=install.frontend
source "$(dirname "$0")/lib.sh"
begin "<source-dir>" "$@"
src=$prefix

path="make dist"
make -s -C "$src" dist DIST_DIR="$work" BUILD_DIR="$work/distbuild" >"$work/dist.log" 2>&1 ||
  fail "make dist failed: $(tail -5 "$work/dist.log")"
version=$(sed -n 's/^project(gexx VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
tarball=$work/gexx-$version.tar.gz
[[ -f $tarball ]] || fail "make dist wrote no $tarball"
tops=$(tar tzf "$tarball" | cut -d/ -f1 | sort -u)
[[ $tops == "gexx-$version" ]] || fail "the tarball's top folders are: $tops"
mkdir "$work/unpacked"
tar xzf "$tarball" -C "$work/unpacked"
tree=$work/unpacked/gexx-$version
for f in gasnet.h gasnetex.h gasnet_config.h.in docs/GASNet-EX.txt CMakeLists.txt \
  include/gasnetex.h src/core/runtime.cpp; do
  [[ -f $tree/$f ]] || fail "the release lacks $f"
done
[[ -x $tree/configure ]] || fail "the release's configure is not executable"
listing=$(tar tzf "$tarball")
! grep -qE '^gexx-[^/]*/(build|install)/' <<<"$listing" || fail "the release holds build output"
passed

path="the specification version as UPC++ reads it"
# UPC++: grep NAME docs/GASNet-EX.* | head -1, then the first " <digits>".
spec_number() {
  local line
  line=$(grep "$1" "$tree"/docs/GASNet-EX.* | head -1 | tr '\t' ' ')
  [[ $line =~ ( ([0-9]+)) ]] || fail "no number on the $1 line: '$line'"
  echo "${BASH_REMATCH[2]}"
}
major=$(spec_number EX_SPEC_VERSION_MAJOR)
minor=$(spec_number EX_SPEC_VERSION_MINOR)
hmajor=$(awk '$2 == "GEX_SPEC_VERSION_MAJOR" { print $3 }' "$src/include/gasnet_config.h.in")
hminor=$(awk '$2 == "GEX_SPEC_VERSION_MINOR" { print $3 }' "$src/include/gasnet_config.h.in")
[[ $major == "$hmajor" && $minor == "$hminor" ]] ||
  fail "docs/GASNet-EX.txt says $major.$minor, gasnet_config.h.in says $hmajor.$hminor"
# UPC++ 2020.10 needs 0.10 or newer.
((major > 0 || minor >= 10)) || fail "specification $major.$minor is older than 0.10"
passed

path="configure as UPC++ runs it (debug)"
upcxx_args=(--disable-auto-conduit-detect --enable-smp --with-cflags= --with-cxxflags=
  --disable-parsync --enable-seq --enable-par --enable-pthreads --disable-segment-everything
  --with-cc=gcc --with-cxx=g++)
mkdir "$work/debug"
(cd "$work/debug" && "$tree/configure" "${upcxx_args[@]}" --enable-debug \
  --with-unknown-thing=1 >"$work/debug.log" 2>&1) || fail "configure failed: $(cat "$work/debug.log")"
grep -q 'with-unknown-thing=1 is a GASNet option gexx does not use; ignored' "$work/debug.log" ||
  fail "no note for an ignored option: $(cat "$work/debug.log")"
for f in gasnet_config.h config.status Makefile smp-conduit/Makefile smp-conduit/smp-seq.mak \
  smp-conduit/smp-par.mak; do
  [[ -f $work/debug/$f ]] || fail "configure wrote no $f"
done
[[ ! -e $work/debug/smp-conduit/smp-parsync.mak ]] || fail "--disable-parsync wrote smp-parsync.mak"
grep -q '^#define GASNET_DEBUG 1$' "$work/debug/gasnet_config.h" ||
  fail "--enable-debug: gasnet_config.h does not define GASNET_DEBUG"
grep -q '^#define GASNETI_CONDUITS " smp"$' "$work/debug/gasnet_config.h" ||
  fail "--disable-auto-conduit-detect --enable-smp: not only smp"
passed

path="config.status substitutes CONFIG_FILES as autoconf's does"
cat >"$work/template.in" <<'T'
PERL = @PERL@
CONDUITS = @CONDUITS@
EXESUFFIX = [@EXESUFFIX@]
CC_FAMILY = @CC_FAMILY@ @CC_SUBFAMILY@
CXX_FAMILY = @CXX_FAMILY@ @CXX_SUBFAMILY@
KEPT = @NOT_A_VARIABLE@
T
(cd "$work/debug" && env CONFIG_COMMANDS= CONFIG_LINKS= CONFIG_HEADERS= \
  CONFIG_FILES="out.txt:$work/template.in" ./config.status >/dev/null) ||
  fail "config.status failed"
expected="PERL = $(command -v perl || echo perl)
CONDUITS = smp
EXESUFFIX = []
CC_FAMILY = GNU none
CXX_FAMILY = GNU none
KEPT = @NOT_A_VARIABLE@"
[[ $(cat "$work/debug/out.txt") == "$expected" ]] ||
  fail "config.status wrote:"$'\n'"$(cat "$work/debug/out.txt")"$'\n'"expected:"$'\n'"$expected"
(cd "$work/debug" && CONFIG_HEADERS=gasnet_config.h ./config.status 2>/dev/null) &&
  fail "config.status accepted CONFIG_HEADERS, which it does not write"
passed

path="the Makefiles' targets"
for target in all seq par install clean; do
  make -n -C "$work/debug" "$target" prefix="$work/inst" >/dev/null ||
    fail "the top Makefile has no working '$target'"
done
for target in seq par smp-seq.mak smp-par.mak; do
  make -n -C "$work/debug/smp-conduit" "$target" >/dev/null ||
    fail "smp-conduit/Makefile has no working '$target'"
done
install_recipe=$(make -n -C "$work/debug" install prefix="$work/elsewhere")
grep -qF -- "--prefix \"$work/elsewhere\"" <<<"$install_recipe" ||
  fail "make install prefix=DIR does not install into DIR"
# UPC++ builds seq and par at once (make -j2): one CMake build at a time.
if command -v flock >/dev/null; then
  seq_recipe=$(make -n -C "$work/debug" seq)
  grep -q "flock .*gexx-build/.build-lock .*--build" <<<"$seq_recipe" ||
    fail "the seq target does not take the build lock"
fi
# upcxx-run finds a conduit's launcher in the build tree where GASNet has it.
launcher=$work/debug/smp-conduit/contrib/gasnetrun_smp
[[ -L $launcher && $(readlink "$launcher") == "$(cd "$work/debug" && pwd -P)/gexx-build/gasnetrun_smp" ]] ||
  fail "smp-conduit/contrib/gasnetrun_smp does not name gexx-build/gasnetrun_smp"
out=$(make -C "$work/debug/smp-conduit" parsync 2>&1) &&
  fail "a disabled thread mode's target succeeded"
grep -q 'configured without the parsync thread mode' <<<"$out" ||
  fail "a disabled mode's target says: $out"
passed

path="the build-tree fragment names this build"
fragment=$work/debug/smp-conduit/smp-seq.mak
libs=$(fragment_value "$fragment" GASNET_LIBS)
grep -qF "$work/debug/gexx-build/libgasnet-smp-seq.a" <<<"$libs" ||
  fail "GASNET_LIBS does not link the build tree's library: $libs"
includes=$(fragment_value "$fragment" GASNET_INCLUDES)
for dir in "$tree/include" "$work/debug/gexx-build/include" \
  "$work/debug/gexx-build/include/smp-conduit"; do
  grep -qF -- "-I$dir" <<<"$includes" || fail "GASNET_INCLUDES lacks $dir: $includes"
done
[[ $(fragment_value "$fragment" GASNET_OPT_CFLAGS) == "-g -O0" ]] ||
  fail "a debug build's fragment does not compile clients for debugging"
passed

path="the installed fragment links the archive, as GASNet's do"
installed=$work/debug/gexx-build/pkg/smp-seq.mak
libs=$(fragment_value "$installed" GASNET_LIBS)
grep -qE '/lib/libgasnet-smp-seq\.a( |$)' <<<"$libs" ||
  fail "the fragment make install writes links: $libs"
! grep -qE -- '-lgasnet-smp-seq( |$)' <<<"$libs" || fail "the fragment still names -lgasnet-smp-seq: $libs"
passed

path="configure --disable-debug (optimised)"
mkdir "$work/opt"
(cd "$work/opt" && "$tree/configure" "${upcxx_args[@]}" --disable-debug >"$work/opt.log" 2>&1) ||
  fail "configure failed: $(cat "$work/opt.log")"
! grep -q 'GASNET_DEBUG 1' "$work/opt/gasnet_config.h" || fail "an optimised build defines GASNET_DEBUG"
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$work/opt/gexx-build/CMakeCache.txt" ||
  fail "--disable-debug is not a Release build"
passed

path="the udp conduit as UPC++ asks for it (--enable-udp)"
mkdir "$work/udp"
(cd "$work/udp" && "$tree/configure" --disable-auto-conduit-detect --enable-udp --disable-parsync \
  --with-cc=gcc --with-cxx=g++ >"$work/udp.log" 2>&1) ||
  fail "configure --enable-udp failed: $(cat "$work/udp.log")"
grep -q 'conduits: smp udp;' "$work/udp.log" || fail "configure --enable-udp says: $(cat "$work/udp.log")"
for target in seq par udp-seq.mak udp-par.mak; do
  make -n -C "$work/udp/udp-conduit" "$target" >/dev/null ||
    fail "udp-conduit/Makefile has no working '$target'"
done
# UPC++ builds GASNet's udp launcher with `make -C <build>/other/amudp amudprun`.
amudp=$(make -n -C "$work/udp/other/amudp" amudprun) || fail "other/amudp has no amudprun target"
grep -q -- "--target gasnetrun" <<<"$amudp" && grep -qF "gexx-build/amudprun amudprun" <<<"$amudp" ||
  fail "other/amudp's amudprun does not link the launcher: $amudp"
out=$(cd "$work/udp" && "$tree/configure" --disable-udp --disable-auto-conduit-detect 2>&1) ||
  fail "configure --disable-udp failed: $out"
grep -q 'conduits: smp;' <<<"$out" || fail "configure --disable-udp still builds udp: $out"
passed

path="options gexx cannot honour fail, naming themselves"
mkdir "$work/bad"
for bad in --enable-ibv --enable-segment-everything; do
  out=$(cd "$work/bad" && "$tree/configure" "$bad" 2>&1) && fail "configure $bad succeeded"
  grep -qF -- "${bad#--enable-}" <<<"$out" || fail "configure $bad says: $out"
done
out=$(cd "$tree" && ./configure 2>&1) && fail "configure in the source tree succeeded"
grep -q 'separate build directory' <<<"$out" || fail "configure in the source tree says: $out"
passed
