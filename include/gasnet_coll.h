/* gasnet_coll.h: collectives. The GASNet-EX collectives on any team
 * (gex_Coll_BroadcastNB, gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB;
 * the barrier is in gasnetex.h), then the GASNet-1 collectives
 * (gasnet_coll_*) in gexx_coll_g1.h. */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H
#define _GASNET_COLL_H

#include <gasnetex.h>

GEXX_BEGIN_EXTERNC

/* (EX collectives: issue 18) */

GEXX_END_EXTERNC

#include <gexx_coll_g1.h>

#endif /* GASNET_COLL_H */
