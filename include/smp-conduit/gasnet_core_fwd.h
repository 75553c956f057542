/* gasnet_core_fwd.h (smp conduit): what the conduit is called, for
 * gasnetex.h and for clients that test these macros. Included by gasnetex.h
 * before anything else; clients compile with -I<prefix>/include/smp-conduit. */
#ifndef GASNET_CORE_FWD_H
#define GASNET_CORE_FWD_H

#define GASNET_CONDUIT_SMP 1
#define GASNET_CONDUIT_NAME SMP
#define GASNET_CONDUIT_NAME_STR "SMP"
#define GASNET_CORE_NAME SMP
#define GASNET_CORE_NAME_STR "SMP"
#define GASNET_CORE_VERSION_STR GEXX_VERSION_STRING
#define GASNET_PSHM 1

#endif
