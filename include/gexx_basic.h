/* gexx_basic.h: the small helpers every GASNet header has given clients,
 * shared by gasnetex.h and gasnet_tools.h (tools-only clients get them too):
 * _STRINGIFY(x) expands x and makes it a string, _CONCAT(a, b) pastes two
 * expanded tokens, and the format macros of <inttypes.h> plus PRIuSZ /
 * PRIdSZ / PRIxSZ for size_t and ssize_t. */
#ifndef GEXX_BASIC_H
#define GEXX_BASIC_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
#ifndef _CONCAT
#define _CONCAT_HELPER(a, b) a##b
#define _CONCAT(a, b) _CONCAT_HELPER(a, b)
#endif

#ifndef PRIuSZ
#define PRIuSZ "zu"
#endif
#ifndef PRIdSZ
#define PRIdSZ "zd"
#endif
#ifndef PRIxSZ
#define PRIxSZ "zx"
#endif

#endif /* GEXX_BASIC_H */
