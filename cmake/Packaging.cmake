# Installs what GASNet clients' build systems look for: a .mak fragment and
# a pkg-config file per conduit and thread mode, and a CMake package.
set(GEXX_C_COMPILER ${CMAKE_C_COMPILER})
set(GEXX_CXX_COMPILER ${CMAKE_CXX_COMPILER})
set(GEXX_COMMON_EXTRA_LIBS "-lstdc++ -lm")
# Clients' optimisation flags: those of a GASNET_DEBUG build are for debugging.
if(GEXX_GASNET_DEBUG)
  set(GEXX_MAK_OPT_FLAGS "-g -O0")
else()
  set(GEXX_MAK_OPT_FLAGS "-O2")
endif()
# What an installed fragment's GASNET_LIBS links: the shared library (found
# by -l before the archive) or, as GASNet's fragments do (GASNet installs
# archives only), the archive by name. The configure front end, through which
# UPC++ and other clients build gexx as they build GASNet, asks for the
# archive: a client's every call into the library then skips the PLT (an
# idle gasnet_AMPoll 2.5 ns against 4.1, docs/performance.md).
set(GEXX_MAK_LINK "shared" CACHE STRING
    "What installed .mak fragments link: shared (the shared library) or static (the archive)")
set_property(CACHE GEXX_MAK_LINK PROPERTY STRINGS shared static)
if(NOT GEXX_MAK_LINK MATCHES "^(shared|static)$")
  message(FATAL_ERROR "GEXX_MAK_LINK is '${GEXX_MAK_LINK}': set it to shared or static")
endif()
# Where the configure front end's build directory is (the parent of this
# CMake build there); only the build-tree fragments name it.
if(NOT GEXX_FRONTEND_BUILDDIR)
  get_filename_component(GEXX_FRONTEND_BUILDDIR ${PROJECT_BINARY_DIR} DIRECTORY)
endif()

foreach(conduit ${GEXX_CONDUITS})
  set(GEXX_EXTRA_LIBS "${GEXX_COMMON_EXTRA_LIBS}")
  if(conduit STREQUAL "ofi")
    string(REPLACE ";" " " _fabric_libs "${LIBFABRIC_LDFLAGS}")
    string(APPEND GEXX_EXTRA_LIBS " ${_fabric_libs}")
  endif()
  foreach(mode ${GEXX_MODES})
    string(TOUPPER ${mode} MODE)
    set(GEXX_CONDUIT ${conduit})
    set(GEXX_MODE ${mode})
    set(GEXX_MODE_UPPER ${MODE})
    if(mode STREQUAL "seq")
      set(GEXX_MODE_EXTRADEFINES "")
    else()
      set(GEXX_MODE_EXTRADEFINES " -D_REENTRANT")
    endif()
    # The installed fragment: paths found from the fragment's own place,
    # with symbolic links resolved (a client may include it through one).
    set(GEXX_MAK_PREFIX "# The install prefix, found from this file's real place (the tree is relocatable,\n# and the file may be reached through a symbolic link).\nGASNET_PREFIX := $(abspath $(dir $(realpath $(lastword $(MAKEFILE_LIST))))/../..)")
    set(GEXX_MAK_INCLUDES "-I$(GASNET_PREFIX)/include -I$(GASNET_PREFIX)/include/${conduit}-conduit")
    set(GEXX_MAK_LIBDIRS "-L$(GASNET_PREFIX)/lib -Wl,-rpath,$(GASNET_PREFIX)/lib")
    if(GEXX_MAK_LINK STREQUAL "static")
      set(GEXX_MAK_LIBS_COMMENT "# The archive, as GASNet's fragments link it (this install was built with\n# GEXX_MAK_LINK=static, as the configure front end builds it).")
      set(GEXX_MAK_LIBRARY "$(GASNET_PREFIX)/lib/libgasnet-${conduit}-${mode}.a")
    else()
      set(GEXX_MAK_LIBS_COMMENT "# -lgasnet-${conduit}-${mode} finds the shared library first; link\n# <prefix>/lib/libgasnet-${conduit}-${mode}.a by name for a static one.")
      set(GEXX_MAK_LIBRARY "-lgasnet-${conduit}-${mode}")
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/conduit.mak.in
                   ${PROJECT_BINARY_DIR}/pkg/${conduit}-${mode}.mak @ONLY)
    # The build-tree fragment (the configure front end copies it into
    # <builddir>/<conduit>-conduit/): absolute paths into this build, and the
    # static library, so a client built in the tree needs no install.
    set(GEXX_MAK_PREFIX "# This build tree (a build-tree fragment: its paths are absolute).\nGASNET_PREFIX := ${GEXX_FRONTEND_BUILDDIR}")
    set(GEXX_MAK_INCLUDES "-I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include -I${PROJECT_BINARY_DIR}/include/${conduit}-conduit")
    set(GEXX_MAK_LIBDIRS "")
    set(GEXX_MAK_LIBS_COMMENT "# The static library of this build tree.")
    set(GEXX_MAK_LIBRARY "${PROJECT_BINARY_DIR}/libgasnet-${conduit}-${mode}.a")
    configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/conduit.mak.in
                   ${PROJECT_BINARY_DIR}/pkg/build-tree/${conduit}-${mode}.mak @ONLY)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/gasnet.pc.in
                   ${PROJECT_BINARY_DIR}/pkg/gasnet-${conduit}-${mode}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkg/${conduit}-${mode}.mak
            DESTINATION include/${conduit}-conduit)
    install(FILES ${PROJECT_BINARY_DIR}/pkg/gasnet-${conduit}-${mode}.pc
            DESTINATION lib/pkgconfig)
  endforeach()
endforeach()

string(REPLACE ";" " " GEXX_LIBFABRIC_LIBS "${LIBFABRIC_LDFLAGS}")
include(CMakePackageConfigHelpers)
string(REPLACE ";" " " GEXX_CONDUIT_LIST "${GEXX_CONDUITS}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/GASNetConfig.cmake.in
               ${PROJECT_BINARY_DIR}/pkg/GASNetConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pkg/GASNetConfigVersion.cmake
                                 VERSION ${GEXX_VERSION} COMPATIBILITY AnyNewerVersion)
install(FILES ${PROJECT_BINARY_DIR}/pkg/GASNetConfig.cmake
              ${PROJECT_BINARY_DIR}/pkg/GASNetConfigVersion.cmake
        DESTINATION lib/cmake/GASNet)
