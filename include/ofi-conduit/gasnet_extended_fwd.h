/* gasnet_extended_fwd.h (ofi conduit): names of the extended API
 * implementation, included by gasnetex.h after gasnet_core_fwd.h. */
#ifndef GASNET_EXTENDED_FWD_H
#define GASNET_EXTENDED_FWD_H

#define GASNET_EXTENDED_NAME OFI
#define GASNET_EXTENDED_NAME_STR "OFI"
#define GASNET_EXTENDED_VERSION_STR GEXX_VERSION_STRING

#endif
