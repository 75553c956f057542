/* gasnet_core.h (smp conduit): conduit part of the GASNet-1 core API.
 * Every definition is shared with the other conduits and lives in gasnet.h;
 * this file exists so the smp-conduit include folder is complete. */
#ifndef GASNET_CORE_H
#define GASNET_CORE_H
#include <gasnet_core_fwd.h>
#endif
