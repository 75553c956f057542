/* gexx_basic.h: the small helpers every GASNet header has given clients,
 * shared by gasnetex.h and gasnet_tools.h (tools-only clients get them too):
 * _STRINGIFY(x) expands x and makes it a string, _CONCAT(a, b) pastes two
 * expanded tokens, MIN(x, y) and MAX(x, y) (unless the client defined them
 * first; UPC++'s bench/misc_perf.cpp uses MAX from gasnetex.h), and the
 * format macros of <inttypes.h> plus PRIuSZ / PRIdSZ / PRIxSZ for size_t and
 * ssize_t. */
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

/* <sys/param.h> defines MIN and MAX without checking: included first, its
 * definitions are the ones in effect and a later include does not clash. */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/param.h>
#endif
#ifndef MIN
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#endif
#ifndef MAX
#define MAX(x, y) ((x) > (y) ? (x) : (y))
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
