/* exitcheck: every way a job can end, for the exit tests.
 *
 *   exitcheck MODE CODE [WHO [CODE2]]
 *
 * Every rank prints "exitcheck rank R of N: ready pid P" once attached and
 * past a barrier, then:
 *
 *   barrier        WHO calls gasnet_exit(CODE); the others wait in a barrier
 *   wait           the same, the others in GASNET_BLOCKUNTIL (polling)
 *   spin           the same, the others spin on a variable without polling
 *   thread         a second thread of WHO calls gasnet_exit(CODE) while its
 *                  main thread polls and the other ranks wait in a barrier
 *   handler        rank 0 sends WHO an AM whose handler calls gasnet_exit(CODE);
 *                  the other ranks wait in a barrier
 *   collective     every rank calls gasnet_exit(CODE)
 *   return         every rank returns CODE from main
 *   exit           every rank calls exit(CODE)
 *   sigquit        WHO calls gasnet_exit(CODE); the others catch SIGQUIT,
 *                  say so, leave their non-polling spin and gasnet_exit(CODE2)
 *   sigquit_exit   the same, but the SIGQUIT handler calls gasnet_exit(CODE2)
 *   sigquit_ignore the same, but the handler returns and the rank spins on
 *   sigquit_fatal  the same as sigquit, but the others then stop with a fatal
 *                  error (a put outside the segment) instead of exiting
 *   vanish         WHO leaves with _exit(CODE), telling nobody; the others spin
 *   ready          nothing: every rank spins without polling (kill tests)
 *
 * With EXITCHECK_READY_DIR set, each rank also writes its pid to the file
 * DIR/R (written whole, then renamed into place) once ready: a launcher's
 * output forwarding (mpirun's, srun's) may hold a line back for minutes
 * while every rank spins, and a kill test needs only the pids.
 */
#include <gasnet.h>

#include "check.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static gasnet_node_t me, n;
static int code, code2;
static volatile sig_atomic_t quit_seen;
static volatile int never;

static void exit_handler(gasnet_token_t token, gasnet_handlerarg_t c) {
  (void)token;
  gasnet_exit(c);
}

static void say_quit(void) {
  char line[64];
  int len = snprintf(line, sizeof line, "exitcheck rank %u: caught SIGQUIT\n", me);
  ssize_t ignored = write(STDOUT_FILENO, line, (size_t)len);
  (void)ignored;
}

static void on_quit_note(int sig) {
  (void)sig;
  say_quit();
  quit_seen = 1;
}

static void on_quit_exit(int sig) {
  (void)sig;
  say_quit();
  gasnet_exit(code2);
}

static void *exit_thread(void *arg) {
  (void)arg;
  gasnet_exit(code);
  return NULL;
}

static void note_ready(void) {
  const char *dir = getenv("EXITCHECK_READY_DIR");
  if (!dir || !*dir) return;
  char tmp[4096], path[4096];
  snprintf(tmp, sizeof tmp, "%s/.%u.tmp", dir, me);
  snprintf(path, sizeof path, "%s/%u", dir, me);
  FILE *f = fopen(tmp, "w");
  CHECK(f != NULL, "cannot write %s", tmp);
  fprintf(f, "%ld\n", (long)getpid());
  CHECK(fclose(f) == 0, "cannot write %s", tmp);
  CHECK(rename(tmp, path) == 0, "cannot rename %s to %s", tmp, path);
}

static void barrier(void) {
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* Spins without polling until killed; a rank the test never got to kill
 * (the test failed first) gives up after 10 minutes rather than hold a core
 * for the rest of the test run. */
static void spin_forever(void) {
  time_t start = time(NULL);
  for (unsigned long i = 1; !never; ++i) {
    if (i % (1ul << 24) == 0 && time(NULL) - start > 600) {
      fprintf(stderr, "exitcheck: spun 10 minutes without being killed; giving up\n");
      _exit(98);
    }
  }
}

static void install(void (*fn)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGQUIT, &sa, NULL) == 0, "sigaction(SIGQUIT)");
}

int main(int argc, char **argv) {
  CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "gasnet_init");
  me = check_rank = gasnet_mynode();
  n = gasnet_nodes();
  CHECK(argc >= 3, "usage: exitcheck MODE CODE [WHO [CODE2]]");
  const char *mode = argv[1];
  code = atoi(argv[2]);
  gasnet_node_t who = argc > 3 ? (gasnet_node_t)atoi(argv[3]) : 0;
  code2 = argc > 4 ? atoi(argv[4]) : 0;
  CHECK(who < n, "WHO %u is not a rank of this job of %u", who, n);
  gasnet_handlerentry_t table[1] = {{0, (void (*)())exit_handler}};
  CHECK(gasnet_attach(table, 1, GASNET_PAGESIZE, 0) == GASNET_OK, "gasnet_attach");

  int quitting = !strncmp(mode, "sigquit", 7);
  if (quitting && me != who) install(!strcmp(mode, "sigquit_exit") ? on_quit_exit : on_quit_note);
  barrier();
  printf("exitcheck rank %u of %u: ready pid %ld\n", me, n, (long)getpid());
  fflush(stdout);
  note_ready();
  barrier();

  if (!strcmp(mode, "barrier") || !strcmp(mode, "wait") || !strcmp(mode, "spin")) {
    if (me == who) gasnet_exit(code);
    if (mode[0] == 'b') barrier();
    if (mode[0] == 'w') GASNET_BLOCKUNTIL(never);
    spin_forever();
  } else if (!strcmp(mode, "thread")) {
    pthread_t t;
    if (me != who) barrier();
    CHECK(pthread_create(&t, NULL, exit_thread, NULL) == 0, "pthread_create");
    GASNET_BLOCKUNTIL(never);
  } else if (!strcmp(mode, "handler")) {
    if (me == 0) gasnet_AMRequestShort1(who, table[0].index, code);
    if (me == who) GASNET_BLOCKUNTIL(never);
    barrier();
  } else if (!strcmp(mode, "collective")) {
    gasnet_exit(code);
  } else if (!strcmp(mode, "return")) {
    return code;
  } else if (!strcmp(mode, "exit")) {
    exit(code);
  } else if (quitting) {
    if (me == who) gasnet_exit(code);
    while (!quit_seen) {
    }
    if (!strcmp(mode, "sigquit_ignore")) spin_forever();
    if (!strcmp(mode, "sigquit_fatal")) { /* gexx's own fatal error: a put outside the segment */
      long x = 0;
      gasnet_put(me, (void *)&x, &x, sizeof x);
    }
    gasnet_exit(code2);
  } else if (!strcmp(mode, "vanish")) {
    if (me == who) _exit(code);
    spin_forever();
  } else if (!strcmp(mode, "ready")) {
    spin_forever();
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  CHECK(0, "mode %s went on past its end", mode);
  return 0;
}
