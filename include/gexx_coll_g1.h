/* gexx_coll_g1.h: the GASNet-1 collectives (gasnet_coll_*), included by
 * gasnet_coll.h; not for inclusion on its own. */
#ifndef GEXX_COLL_G1_H
#define GEXX_COLL_G1_H

#ifndef GASNET_COLL_H
#error "gexx: include <gasnet_coll.h>, not <gexx_coll_g1.h>"
#endif

GEXX_BEGIN_EXTERNC

/* (GASNet-1 collectives: issue 18) */

GEXX_END_EXTERNC

#endif /* GEXX_COLL_G1_H */
