# The GASNet tools API (include/gasnet_tools.h) without the conduit:
# libgasnet_tools-seq and libgasnet_tools-par, static and shared, with the
# gasnet_tools-<mode>.mak fragments and gasnet_tools-<mode>.pc files that
# tools-only clients build with. The GASNet libraries carry the same
# src/tools sources (gexx_objects), so their clients need nothing more.
# The tools API's own sources are the src/tools entries of gexx_objects;
# the tools-only libraries add the utilities they use.
get_target_property(GEXX_TOOLS_SOURCES gexx_objects SOURCES)
list(FILTER GEXX_TOOLS_SOURCES INCLUDE REGEX "^src/tools/")
# The self-test exercises communication too: conduit libraries only.
list(FILTER GEXX_TOOLS_SOURCES EXCLUDE REGEX "^src/tools/comm_diagnostics.cpp$")
list(APPEND GEXX_TOOLS_SOURCES src/util/strings.cpp src/util/log.cpp src/util/config.cpp
     src/util/debug.cpp src/transport/smp/knobs.cpp src/transport/ofi/knobs.cpp
     src/transport/udp/knobs.cpp
     src/atomics/knobs.cpp
     src/vis/knobs.cpp)
set(GEXX_TOOLS_MODES seq par)
foreach(mode ${GEXX_TOOLS_MODES})
  set(lib gasnet_tools-${mode})
  if(mode STREQUAL "par")
    set(model GASNETT_THREAD_SAFE)
    set(is_par 1)
  else()
    set(model GASNETT_THREAD_SINGLE)
    set(is_par 0)
  endif()
  add_library(gexx_tools_${mode} OBJECT ${GEXX_TOOLS_SOURCES})
  set_target_properties(gexx_tools_${mode} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(gexx_tools_${mode} PRIVATE
    ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_compile_definitions(gexx_tools_${mode} PRIVATE ${model} GEXX_TOOLS_LIBRARY
                             GEXX_TOOLS_LIBRARY_PAR=${is_par} GEXX_VERSION="${GEXX_VERSION}")
  target_compile_options(gexx_tools_${mode} PRIVATE ${GEXX_WARNINGS} -fno-semantic-interposition)

  add_library(${lib}-static STATIC $<TARGET_OBJECTS:gexx_tools_${mode}>)
  add_library(${lib}-shared SHARED $<TARGET_OBJECTS:gexx_tools_${mode}>)
  set_target_properties(${lib}-static ${lib}-shared PROPERTIES OUTPUT_NAME ${lib})
  set_target_properties(${lib}-shared PROPERTIES VERSION ${GEXX_VERSION}
                        SOVERSION ${GEXX_VERSION_MAJOR}
                        LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/exports.map)
  target_link_options(${lib}-shared PRIVATE
                      -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/exports.map)
  target_link_libraries(${lib}-shared PRIVATE Threads::Threads)
  foreach(kind static shared)
    target_include_directories(${lib}-${kind} INTERFACE
      ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
    if(is_par)
      target_compile_definitions(${lib}-${kind} INTERFACE GASNETT_THREAD_SAFE)
    endif()
  endforeach()
  target_link_libraries(${lib}-static INTERFACE Threads::Threads stdc++ m)
  install(TARGETS ${lib}-static ARCHIVE DESTINATION lib)
  install(TARGETS ${lib}-shared LIBRARY DESTINATION lib)

  # The fragment and the .pc file, relocatable like the conduit ones.
  string(TOUPPER ${mode} GEXX_TOOLS_MODE_UPPER)
  set(GEXX_TOOLS_MODE ${mode})
  # The tools library needs no conduit, so its fragment names no conduit's
  # libraries (GEXX_EXTRA_LIBS is last left at the ofi conduit's value).
  set(GEXX_EXTRA_LIBS "${GEXX_COMMON_EXTRA_LIBS}")
  if(is_par)
    set(GEXX_TOOLS_THREADFLAGS "-DGASNETT_THREAD_SAFE -D_REENTRANT")
  else()
    set(GEXX_TOOLS_THREADFLAGS "")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/gasnet_tools.mak.in
                 ${PROJECT_BINARY_DIR}/pkg/${lib}.mak @ONLY)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/gasnet_tools.pc.in
                 ${PROJECT_BINARY_DIR}/pkg/${lib}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkg/${lib}.mak DESTINATION include)
  install(FILES ${PROJECT_BINARY_DIR}/pkg/${lib}.pc DESTINATION lib/pkgconfig)
endforeach()
install(FILES include/gexx_tools_atomic.h include/gexx_tools_sync.h include/gexx_platform.h
        DESTINATION include)
