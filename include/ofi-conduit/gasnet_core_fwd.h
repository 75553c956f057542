/* gasnet_core_fwd.h (ofi conduit): what the conduit is called, for
 * gasnetex.h and for clients that test these macros. Included by gasnetex.h
 * before anything else; clients compile with -I<prefix>/include/ofi-conduit. */
#ifndef GASNET_CORE_FWD_H
#define GASNET_CORE_FWD_H

#define GASNET_CONDUIT_OFI 1
#define GASNET_CONDUIT_NAME OFI
#define GASNET_CONDUIT_NAME_STR "OFI"
#define GASNET_CORE_NAME OFI
#define GASNET_CORE_NAME_STR "OFI"
#define GASNET_CORE_VERSION_STR GEXX_VERSION_STRING
#define GASNET_PSHM 1

#endif
