/* gasnet_ratomic.h: remote atomics (gex_AD_*). */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H
#define _GASNET_RATOMIC_H

#include <gasnetex.h>

GEXX_BEGIN_EXTERNC

/* (remote atomics: issue 19) */

GEXX_END_EXTERNC

#endif /* GASNET_RATOMIC_H */
