/* gasnet_vis.h: non-contiguous transfers (vector, indexed, strided). */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H
#define _GASNET_VIS_H

#include <gasnetex.h>

GEXX_BEGIN_EXTERNC

/* (VIS: issue 20) */

GEXX_END_EXTERNC

#endif /* GASNET_VIS_H */
