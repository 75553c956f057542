/* gasnet_core_fwd.h (smp conduit): names the conduit this include folder
 * belongs to. Clients compile with -I<prefix>/include/smp-conduit. */
#ifndef GASNET_CORE_FWD_H
#define GASNET_CORE_FWD_H

#define GASNET_CONDUIT_SMP 1
#define GASNET_CONDUIT_NAME SMP
#define GASNET_CONDUIT_NAME_STR "SMP"
#define GASNET_CORE_NAME SMP
#define GASNET_CORE_NAME_STR "SMP"
#define GASNET_CORE_VERSION_STR GEXX_VERSION_STRING
#define GASNET_EXTENDED_NAME SMP
#define GASNET_EXTENDED_NAME_STR "SMP"
#define GASNET_EXTENDED_VERSION_STR GEXX_VERSION_STRING
#define GASNET_PSHM 1

#endif
