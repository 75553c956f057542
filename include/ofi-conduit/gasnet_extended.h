/* gasnet_extended.h (ofi conduit): the conduit's part of the extended API (RMA, barriers).
 * gexx keeps every declaration conduit-independent in gasnetex.h and
 * gasnet.h, which include this file at their end; included on its own it
 * brings in gasnetex.h, so it compiles either way. */
#ifndef GASNET_EXTENDED_H
#define GASNET_EXTENDED_H
#include <gasnetex.h>
#endif
