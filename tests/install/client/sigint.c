/* SIGINT reaching a rank runs the client's SIGQUIT handler, which ends the
 * job with exit code 4 (as GASNet's testexit case 4 expects). */
#include <gasnet.h>

#include <signal.h>
#include <unistd.h>

static void on_quit(int sig) {
  if (sig != SIGQUIT) _exit(99);
  gasnet_exit(4);
}

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(NULL, 0, 1 << 20, 0) != GASNET_OK) return 1;
  gasnett_reghandler(SIGQUIT, on_quit);
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
  if (gasnet_mynode() == gasnet_nodes() - 1) {
    kill(getpid(), SIGINT);
    for (;;) gasnett_sched_yield();
  }
  gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* ended by the exit above */
  return 0;
}
