/* check_tools.h: what the tools API tests share. Each test program runs one
 * case per invocation ("prog <case>"); a case that must watch a failure runs
 * the program again as a child ("prog child:<name>") and checks its exit and
 * its stderr. C and C++ clean: the same sources build as both. */
#ifndef GEXX_TESTS_CHECK_TOOLS_H
#define GEXX_TESTS_CHECK_TOOLS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond)) {                                            \
      printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                    \
      printf("\n");                                           \
      fflush(stdout);                                         \
      _exit(1);                                               \
    }                                                         \
  } while (0)

static const char *check_self; /* argv[0] */

/* Runs "self child:<name>" with env_kv ("KEY=VALUE" or NULL) added to the
 * environment; returns its wait status and its stderr in err. */
static inline int run_child(const char *name, const char *env_kv, char *err, size_t errsz) {
  int fds[2];
  CHECK(pipe(fds) == 0, "pipe");
  pid_t pid = fork();
  CHECK(pid >= 0, "fork");
  if (pid == 0) {
    char arg[128];
    snprintf(arg, sizeof arg, "child:%s", name);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    if (env_kv) putenv((char *)env_kv);
    execl("/proc/self/exe", check_self, arg, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  size_t got = 0;
  ssize_t n;
  while (got + 1 < errsz && (n = read(fds[0], err + got, errsz - 1 - got)) > 0) got += (size_t)n;
  err[got] = '\0';
  close(fds[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
  return status;
}

/* The child must have died of SIGABRT (gasnett_fatalerror) and said each
 * of the NULL-terminated phrases. */
static inline void expect_fatal(const char *name, const char *env_kv, const char *const *phrases) {
  char err[8192];
  int status = run_child(name, env_kv, err, sizeof err);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
        "child %s: expected death by SIGABRT, got status 0x%x; stderr:\n%s", name, status, err);
  CHECK(strstr(err, "fatal error: ") != NULL, "child %s: no 'fatal error' line:\n%s", name, err);
  for (; *phrases; ++phrases)
    CHECK(strstr(err, *phrases) != NULL, "child %s: stderr lacks '%s':\n%s", name, *phrases, err);
}

#endif
