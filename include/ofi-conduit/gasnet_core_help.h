/* gasnet_core_help.h (ofi conduit): the conduit's part of helpers of the core API.
 * gexx keeps every declaration conduit-independent in gasnetex.h and
 * gasnet.h, which include this file at their end; included on its own it
 * brings in gasnetex.h, so it compiles either way. */
#ifndef GASNET_CORE_HELP_H
#define GASNET_CORE_HELP_H
#include <gasnetex.h>
#endif
