// The C++ part of the client, compiled with the fragment's C++ variables
// (GASNET_CXX, GASNET_CXXCPPFLAGS, GASNET_CXXFLAGS) and linked with GASNET_LD:
// the public headers compile as C++ and the link needs nothing more.
#include <gasnet.h>
#include <gasnetex.h>

#include <string>

extern "C" const char *client_cxx_report(void) {
  static std::string report;
  report = std::string("C++ sees conduit ") + GASNET_CONDUIT_NAME_STR + ", " +
           std::to_string(gasnet_nodes()) + " nodes";
  return report.c_str();
}
