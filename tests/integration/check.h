/* check.h: the failure report every multi-process test program shares.
 * A failed CHECK prints "FAIL: rank R: <why>" and ends the whole job with
 * status 1; check_rank must be set once the rank is known. */
#ifndef GEXX_TESTS_CHECK_H
#define GEXX_TESTS_CHECK_H

#include <gasnet.h>
#include <stdio.h>

static unsigned check_rank;
static long check_count;

#define CHECK(cond, ...)                     \
  do {                                       \
    ++check_count;                           \
    if (!(cond)) {                           \
      printf("FAIL: rank %u: ", check_rank); \
      printf(__VA_ARGS__);                   \
      printf("\n");                          \
      fflush(stdout);                        \
      gasnet_exit(1);                        \
    }                                        \
  } while (0)

#endif
