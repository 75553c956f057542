#!/usr/bin/env bash
# A legacy client whose configure script finds GASNet with shell tools, as
# runtimes' configure scripts do: it lists include/*-conduit/ (a folder counts
# only if it holds the conduit headers and fragments GASNet installs there),
# reads the release from gasnet_config.h with grep and awk, and builds with the
# par fragment: C compiled with GASNET_CPPFLAGS alone, C++ with the C++
# variables, linked with GASNET_LD GASNET_LDFLAGS ... GASNET_LIBS, as a PIE and
# as a non-PIE executable. It runs under gasnetrun_smp and with
# GASNET_PSHM_NODES=4 and no launcher.
#   shell_client.sh <prefix>
TEST_NAME=install.shell_client
source "$(dirname "$0")/lib.sh"
begin "<prefix>" "$@"

path="conduit discovery"
GASNET=$prefix
conduits=()
for dir in "$GASNET"/include/*-conduit/; do
  name=$(basename "$dir")
  name=${name%-conduit}
  complete=1
  for f in gasnet_core.h gasnet_core_fwd.h gasnet_core_help.h gasnet_extended.h \
    gasnet_extended_fwd.h "$name-seq.mak" "$name-par.mak" "$name-parsync.mak"; do
    [[ -f $dir/$f ]] || complete=0
  done
  ((complete)) && conduits+=("$name")
done
[[ " ${conduits[*]} " == *" smp "* ]] ||
  fail "no complete smp-conduit folder under $GASNET/include (found: ${conduits[*]:-none})"
[[ -x $GASNET/bin/gasnetrun_smp ]] || fail "$GASNET/bin/gasnetrun_smp is missing"
grep GASNETI_CONDUITS "$GASNET/include/gasnet_config.h" | grep -qw smp ||
  fail "gasnet_config.h does not list smp in GASNETI_CONDUITS"
passed

path="release version from gasnet_config.h"
config=$GASNET/include/gasnet_config.h
major=$(grep GASNET_RELEASE_VERSION_MAJOR "$config" | head -1 | awk '{print $3}')
minor=$(grep GASNET_RELEASE_VERSION_MINOR "$config" | head -1 | awk '{print $3}')
patch=$(grep GASNET_RELEASE_VERSION_PATCH "$config" | head -1 | awk '{print $3}')
[[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ && $patch =~ ^[0-9]+$ ]] ||
  fail "the version lines do not read as numbers: '$major' '$minor' '$patch'"
version=$((major * 10000 + minor * 100 + patch))
# Newer than any GASNet-1 release (1.x) and than the GASNet-EX release a
# current runtime asks for (2023.9.0 here).
((major > 1 && version >= 20230900)) || fail "version $major.$minor.$patch is too old for this client"
echo "found GASNet release $major.$minor.$patch, conduits: ${conduits[*]}"
passed

path="every fragment defines GASNet's variables"
vars="GASNET_CC GASNET_CXX GASNET_LD GASNET_CPPFLAGS GASNET_CFLAGS GASNET_CXXCPPFLAGS
  GASNET_CXXFLAGS GASNET_LDFLAGS GASNET_LIBS GASNET_DEFINES GASNET_INCLUDES GASNET_LIBDIRS
  GASNET_OPT_CFLAGS GASNET_MISC_CFLAGS GASNET_MISC_CPPFLAGS GASNET_OPT_CXXFLAGS
  GASNET_MISC_CXXFLAGS GASNET_MISC_CXXCPPFLAGS GASNET_DEVWARN_CFLAGS GASNET_DEVWARN_CXXFLAGS
  GASNET_LD_OVERRIDE GASNET_LDFLAGS_OVERRIDE GASNET_LD_REQUIRES_MPI GASNET_EXTRADEFINES_SEQ
  GASNET_EXTRADEFINES_PAR GASNET_EXTRADEFINES_PARSYNC GASNET_EXTRALIBS_SEQ GASNET_EXTRALIBS_PAR
  GASNET_EXTRALIBS_PARSYNC"
for mode in seq par parsync; do
  fragment=$GASNET/include/smp-conduit/smp-$mode.mak
  MODE=${mode^^}
  printf 'include %s\nshow:\n\t@$(foreach v,$(VARS),echo "$(v) $(origin $(v))";)\n' "$fragment" \
    >"$work/show.mak"
  origins=$(make -s -f "$work/show.mak" VARS="$(echo $vars)" show) || fail "make -f $fragment failed"
  missing=$(awk '$2 != "file" { print $1 }' <<<"$origins")
  [[ -z $missing ]] || fail "smp-$mode.mak does not define: $(echo $missing)"
  grep -qw -- "-DGASNET_$MODE" <<<"$(fragment_value "$fragment" GASNET_CPPFLAGS)" ||
    fail "smp-$mode.mak's GASNET_CPPFLAGS lacks -DGASNET_$MODE"
done
passed

path="conduit headers compile the way GASNet's are included"
for header in gasnet_core.h gasnet_core_fwd.h gasnet_core_help.h gasnet_extended.h \
  gasnet_extended_fwd.h; do
  for lang in c c++; do
    printf '#include <gasnet.h>\n#include <%s>\n#include <gasnet_tools.h>\n' "$header" \
      >"$work/h.$lang"
    gcc -x "$lang" -DGASNET_PAR -I"$GASNET/include" -I"$GASNET/include/smp-conduit" -Wall \
      -Werror -fsyntax-only "$work/h.$lang" || fail "$header does not compile as $lang"
  done
done
passed

path="make with smp-par.mak: C with GASNET_CPPFLAGS alone, C++, PIE and non-PIE"
mkdir "$work/build"
cat >"$work/build/Makefile" <<MAKE
include $GASNET/include/smp-conduit/smp-par.mak
all: client client-nopie
client.o: $client_src/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) -DCLIENT_WITH_CXX -Wall -Wextra -Werror -c -o \$@ \$<
client_cxx.o: $client_src/client_cxx.cc
	\$(GASNET_CXX) \$(GASNET_CXXCPPFLAGS) \$(GASNET_CXXFLAGS) -Wall -Wextra -Werror -c -o \$@ \$<
client: client.o client_cxx.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -pie -o \$@ \$^ \$(GASNET_LIBS)
client-nopie.o: $client_src/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -fno-pie -DCLIENT_WITH_CXX -c -o \$@ \$<
client-nopie: client-nopie.o client_cxx.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -no-pie -o \$@ \$^ \$(GASNET_LIBS)
MAKE
make -C "$work/build" || fail "make failed"
elf_type() { readelf -h "$1" | awk '$1 == "Type:" { print $2 }'; }
[[ $(elf_type "$work/build/client") == DYN ]] || fail "client is not a PIE"
[[ $(elf_type "$work/build/client-nopie") == EXEC ]] || fail "client-nopie is a PIE"
cxx=" (C++ sees conduit SMP, $ranks nodes)"
for exe in client client-nopie; do
  check_loads "$work/build/$exe" libgasnet-smp-par.so
  check_job "$cxx" "$GASNET/bin/gasnetrun_smp" -n $ranks "$work/build/$exe"
done
passed

path="GASNET_PSHM_NODES=$ranks ./client, no launcher"
check_job "$cxx" env GASNET_PSHM_NODES=$ranks "$work/build/client"
passed

path="make with smp-seq.mak from a moved install tree"
# The fragment finds its prefix from its own place, so a copied tree works.
cp -a "$GASNET" "$work/moved"
mkdir "$work/seq"
make -C "$work/seq" -f "$client_src/Makefile.mak" GEXX_INSTALL="$work/moved" || fail "make failed"
prefix=$work/moved check_loads "$work/seq/client" libgasnet-smp-seq.so
check_job "" "$work/moved/bin/gasnetrun" -n $ranks "$work/seq/client"
passed

path="a fragment included through symbolic links (to the file and to the tree)"
# UPC++ includes the fragment through a link; the prefix comes from the
# fragment's real place, not from the link's.
mkdir -p "$work/links/inc" "$work/linked"
ln -s "$GASNET/include/smp-conduit/smp-seq.mak" "$work/links/inc/smp-seq.mak"
ln -s "$GASNET" "$work/links/tree"
for fragment in "$work/links/inc/smp-seq.mak" "$work/links/tree/include/smp-conduit/smp-seq.mak"; do
  rm -rf "$work/linked" && mkdir "$work/linked"
  cat >"$work/linked/Makefile" <<MAKE
include $fragment
client: $client_src/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -Wall -Wextra -Werror -c -o client.o \$<
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o \$@ client.o \$(GASNET_LIBS)
MAKE
  make -C "$work/linked" || fail "make through $fragment failed"
  check_loads "$work/linked/client" libgasnet-smp-seq.so
done
check_job "" "$GASNET/bin/gasnetrun" -n $ranks "$work/linked/client"
passed

path="identification strings in EX and GASNet-1-only executables"
# upcxx-run recognises a GASNet program by its \$GASNetConduitName: ...\$ string.
cat >"$work/g1only.c" <<'C'
#include <gasnet.h>
int main(int argc, char **argv) {
  gasnet_init(&argc, &argv);
  gasnet_exit(0);
  return 0;
}
C
make -s -f - <<MAKE || fail "the GASNet-1-only program did not build"
include $GASNET/include/smp-conduit/smp-seq.mak
all:
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c -o $work/g1only.o $work/g1only.c
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o $work/g1only $work/g1only.o \$(GASNET_LIBS)
MAKE
for exe in "$work/g1only" "$work/build/client"; do
  for ident in '$GASNetConduitName: SMP $' '$GASNetThreadModel: GASNET_' '$GASNetReleaseVersion: '; do
    grep -aqF -- "$ident" "$exe" || fail "$exe lacks the identification string '$ident'"
  done
done
passed

# The ofi conduit, where libfabric was found at build time: the same client
# relinked through ofi-seq.mak, every peer through tcp;ofi_rxm.
if [[ " ${conduits[*]} " == *" ofi "* ]]; then
  path="make with ofi-seq.mak, every peer over the network"
  mkdir "$work/ofi"
  cat >"$work/ofi/Makefile" <<MAKE
include $GASNET/include/ofi-conduit/ofi-seq.mak
client: $client_src/client.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -Wall -Wextra -Werror -c -o client.o \$<
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o \$@ client.o \$(GASNET_LIBS)
MAKE
  make -C "$work/ofi" || fail "make failed"
  check_loads "$work/ofi/client" libgasnet-ofi-seq.so
  if fi_info -p 'tcp;ofi_rxm' -t FI_EP_RDM >/dev/null 2>&1; then
    check_job "" env GASNET_SUPERNODE_MAXSIZE=1 GASNET_OFI_PROVIDER='tcp;ofi_rxm' \
      "$GASNET/bin/gasnetrun_ofi" -n $ranks "$work/ofi/client"
    passed
  else
    # Built but not run is no pass: CTest's skip code (SKIP_RETURN_CODE in
    # CMakeLists.txt), after every other path above has passed.
    echo "SKIP: '$path': the ofi client was built but not run, as libfabric's tcp provider" \
      "is not available here (scripts/install-deps.sh installs it)"
    exit 77
  fi
fi
