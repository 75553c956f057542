/* gasnet_extended_fwd.h (smp conduit): names of the extended API
 * implementation, included by gasnetex.h after gasnet_core_fwd.h. */
#ifndef GASNET_EXTENDED_FWD_H
#define GASNET_EXTENDED_FWD_H

#define GASNET_EXTENDED_NAME SMP
#define GASNET_EXTENDED_NAME_STR "SMP"
#define GASNET_EXTENDED_VERSION_STR GEXX_VERSION_STRING

#endif
