/* gasnet.h: the GASNet-1 API of gexx, written on the GASNet-EX objects.
 *
 * As in GASNet-EX, gasnet.h and gasnetex.h give the same thing: the GASNet-EX
 * API, the legacy GASNet-1 API (gexx_legacy.h) and the GASNet tools
 * (gasnet_tools.h); gasnet.h adds the collectives (gasnet_coll.h). A client defines exactly one of
 * GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including it (the installed .mak, .pc and CMake
 * package add it). gasnet.h and gasnet_tools.h may come in either order.
 */
#ifndef GASNET_H
#define GASNET_H
#define _INCLUDED_GASNET_H

#include <gasnetex.h>
/* As in GASNet 1.x: gasnet.h brings the collectives too (GASNet-1 clients,
 * and the 1.29 suite's test.h, call gasnet_coll_broadcast without
 * including gasnet_coll.h). */
#include <gasnet_coll.h>

#endif /* GASNET_H */
