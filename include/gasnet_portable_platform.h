/* gasnet_portable_platform.h: the PLATFORM_* identification macros (the
 * compiler, operating system and architecture a file is compiled for), under
 * the name GASNet clients include them by. gexx keeps them in
 * gexx_platform.h, which gasnet_tools.h (and so gasnetex.h and gasnet.h)
 * includes too; this header may be included alone, before or after them. */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H
#define _PORTABLE_PLATFORM_H

#include <gexx_platform.h>

#endif /* GASNET_PORTABLE_PLATFORM_H */
