#include "core/exit.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/progress_thread.hpp"
#include "util/trace.hpp"

namespace gexx::core {

namespace {
bootstrap::Bootstrap *g_boot = nullptr;
pid_t g_rank_pid = 0;                // a child the rank forks is not the rank
std::atomic<bool> g_claimed{false};  // a thread is inside leave_job
std::atomic<bool> g_leaving{false};  // the launcher has been told
thread_local bool t_claimant = false;

// The exiting thread takes no SIGQUIT: the launcher's notice that the job
// ends must not cut its flush short.
void block_quit() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGQUIT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void announce(int code, bool process_exit) {
  if (!g_leaving.exchange(true)) g_boot->announce_exit(code, process_exit);
}

// Another rank left (the launcher's SIGQUIT carries its code) or the job was
// interrupted: this rank leaves too, unless it is leaving already.
void on_quit(int, siginfo_t *info, void *) {
  if (g_claimed.load() || g_leaving.load()) return;
  leave_job(info->si_code == SI_QUEUE ? info->si_value.sival_int : 128 + SIGQUIT);
}

// SIGINT reaching a rank runs the client's SIGQUIT handler when it has one
// (GASNet clients register one to learn that the job is ending, and GASNet
// turns an interrupt into that notice); otherwise the interrupt does what it
// did before gexx caught it.
void on_interrupt(int) {
  struct sigaction quit = {};
  sigaction(SIGQUIT, nullptr, &quit);
  bool client_handler = (quit.sa_flags & SA_SIGINFO)
                            ? quit.sa_sigaction != on_quit
                            : (quit.sa_handler != SIG_DFL && quit.sa_handler != SIG_IGN);
  if (client_handler) {
    kill(::getpid(), SIGQUIT);
    return;
  }
  signal(SIGINT, SIG_DFL);
  kill(::getpid(), SIGINT);
}

void on_process_exit(int status, void *) {
  if (::getpid() != g_rank_pid) return;
  block_quit();
  announce(status, true);
}
}  // namespace

void install_exit_handling(bootstrap::Bootstrap &boot) {
  g_boot = &boot;
  g_rank_pid = ::getpid();
  struct sigaction now = {}, before = {};
  sigaction(SIGQUIT, nullptr, &before);
  // SIG_IGN too: a shell starts background jobs with SIGQUIT ignored.
  if (!(before.sa_flags & SA_SIGINFO) &&
      (before.sa_handler == SIG_DFL || before.sa_handler == SIG_IGN)) {
    now.sa_sigaction = on_quit;
    now.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&now.sa_mask);
    sigaction(SIGQUIT, &now, nullptr);
  }
  struct sigaction interrupt = {}, interrupt_before = {};
  sigaction(SIGINT, nullptr, &interrupt_before);
  if (!(interrupt_before.sa_flags & SA_SIGINFO) && interrupt_before.sa_handler == SIG_DFL) {
    interrupt.sa_handler = on_interrupt;
    interrupt.sa_flags = SA_RESTART;
    sigemptyset(&interrupt.sa_mask);
    sigaction(SIGINT, &interrupt, nullptr);
  }
  on_exit(on_process_exit, nullptr);
}

void leave_job(int code) {
  block_quit();
  if (g_claimed.exchange(true)) {
    if (t_claimant) _exit(code);  // called again from its own clean-up
    for (;;) pause();             // the first caller ends the process
  }
  t_claimant = true;
  stop_progress_thread();  // GASNET_RCV_THREAD: out of the AM engine first
  trace::finish();
  std::fflush(nullptr);
  announce(code, false);
  _exit(code);
}

}  // namespace gexx::core
