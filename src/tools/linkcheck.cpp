// The symbols a tools-only client's gasnet_tools.h refers to (see the end
// of that header): libgasnet_tools-par defines the THREAD_SAFE one,
// libgasnet_tools-seq the THREAD_SINGLE one, and the GASNet libraries, which
// carry the tools API too, both.
#include "tools/tools.hpp"

extern "C" {
#if !defined(GEXX_TOOLS_LIBRARY) || GEXX_TOOLS_LIBRARY_PAR
int gasnett_client_compiled_GASNETT_THREAD_SAFE__link_libgasnet_tools_par = 0;
#endif
#if !defined(GEXX_TOOLS_LIBRARY) || !GEXX_TOOLS_LIBRARY_PAR
int gasnett_client_compiled_GASNETT_THREAD_SINGLE__link_libgasnet_tools_seq = 0;
#endif
}
