// gasnett_run_diagnostics and gasnett_diagnostic_gethandlers: a self-test of
// the tools and of the communication paths a client depends on, run by
// GASNet's testinternal. Every section checks real data and counts the
// errors it finds; the job-wide parts are collective (every rank runs the
// same sections). Part of the conduit libraries only (it needs gasnetex.h),
// not of the tools-only ones.
#include <gasnetex.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// Section letters; a null or empty selection runs them all.
//   A timers   B atomics   C locks and threads   D helpers (checksum, count0s,
//   number formats)   E put/get to the peer's segment   F active messages
//   G barriers
bool selected(const char *sections, char letter) {
  if (!sections || !*sections) return true;
  for (const char *p = sections; *p; ++p)
    if (*p == letter || *p == letter - 'A' + 'a') return true;
  return false;
}

int g_errors_reported = 0;
void report(const char *section, const char *what) {
  std::fprintf(stderr, "gasnett_run_diagnostics: section %s: %s\n", section, what);
  std::fflush(stderr);
  ++g_errors_reported;
}

int check_timers(int iters) {
  int errs = 0;
  gasnett_tick_t prev = gasnett_ticks_now();
  for (int i = 0; i < iters; ++i) {
    gasnett_tick_t now = gasnett_ticks_now();
    if (now < prev) {
      report("A", "gasnett_ticks_now went backwards");
      ++errs;
      break;
    }
    prev = now;
  }
  gasnett_tick_t start = gasnett_ticks_now();
  gasnett_nsleep(1000000);  // 1 ms
  uint64_t ns = gasnett_ticks_to_ns(gasnett_ticks_now() - start);
  if (ns < 1000000u) {
    report("A", "a 1 ms sleep measured less than 1 ms");
    ++errs;
  }
  if (gasnett_ticks_to_us(start) != gasnett_ticks_to_ns(start) / 1000u) {
    report("A", "gasnett_ticks_to_us disagrees with gasnett_ticks_to_ns");
    ++errs;
  }
  return errs;
}

int check_atomics(int iters) {
  int errs = 0;
  gasnett_atomic_t a = gasnett_atomic_init(0);
  gasnett_atomic32_t a32 = gasnett_atomic32_init(0);
  gasnett_atomic64_t a64 = gasnett_atomic64_init(0);
  for (int i = 0; i < iters; ++i) {
    gasnett_atomic_increment(&a, 0);
    gasnett_atomic32_add(&a32, 3, 0);
    gasnett_atomic64_add(&a64, (uint64_t)1 << 33, 0);
  }
  if (gasnett_atomic_read(&a, 0) != (gasnett_atomic_val_t)iters) {
    report("B", "gasnett_atomic_increment lost counts");
    ++errs;
  }
  if (gasnett_atomic32_read(&a32, 0) != (uint32_t)(3 * iters)) {
    report("B", "gasnett_atomic32_add lost counts");
    ++errs;
  }
  if (gasnett_atomic64_read(&a64, 0) != ((uint64_t)iters << 33)) {
    report("B", "gasnett_atomic64_add lost counts (or the high word)");
    ++errs;
  }
  gasnett_atomic_set(&a, 5, 0);
  if (!gasnett_atomic_compare_and_swap(&a, 5, 7, 0) || gasnett_atomic_read(&a, 0) != 7 ||
      gasnett_atomic_compare_and_swap(&a, 5, 9, 0) || gasnett_atomic_read(&a, 0) != 7) {
    report("B", "gasnett_atomic_compare_and_swap");
    ++errs;
  }
  gasnett_atomic_set(&a, 2, 0);
  if (gasnett_atomic_decrement_and_test(&a, 0) || !gasnett_atomic_decrement_and_test(&a, 0)) {
    report("B", "gasnett_atomic_decrement_and_test");
    ++errs;
  }
  if (gasnett_atomic64_swap(&a64, 42, 0) != ((uint64_t)iters << 33) ||
      gasnett_atomic64_read(&a64, 0) != 42) {
    report("B", "gasnett_atomic64_swap");
    ++errs;
  }
  return errs;
}

// threadcnt threads each add iters to a plain counter under a mutex and to an
// atomic counter; a condition variable releases them together.
int check_threads(int iters, int threadcnt) {
  int errs = 0;
  if (threadcnt < 1) threadcnt = 1;
  gasnett_mutex_t lock = GASNETT_MUTEX_INITIALIZER;
  gasnett_cond_t go = GASNETT_COND_INITIALIZER;
  bool started = false;
  uint64_t plain = 0;
  std::atomic<uint64_t> atomic_total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < threadcnt; ++t) {
    threads.emplace_back([&] {
      gasnett_mutex_lock(&lock);
      while (!started) gasnett_cond_wait(&go, &lock);
      gasnett_mutex_unlock(&lock);
      for (int i = 0; i < iters; ++i) {
        gasnett_mutex_lock(&lock);
        ++plain;
        gasnett_mutex_unlock(&lock);
        atomic_total.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  gasnett_mutex_lock(&lock);
  started = true;
  gasnett_cond_broadcast(&go);
  gasnett_mutex_unlock(&lock);
  for (auto &th : threads) th.join();
  uint64_t want = (uint64_t)iters * (uint64_t)threadcnt;
  if (plain != want) {
    report("C", "a counter updated under gasnett_mutex_t lost updates");
    ++errs;
  }
  if (atomic_total.load() != want) {
    report("C", "the threads did not all run to the end");
    ++errs;
  }
  if (gasnett_mutex_trylock(&lock) != 0) {
    report("C", "gasnett_mutex_trylock failed on a free lock");
    ++errs;
  } else {
    gasnett_mutex_unlock(&lock);
  }
  return errs;
}

int check_helpers() {
  int errs = 0;
  unsigned char buf[64];
  for (int i = 0; i < 64; ++i) buf[i] = (unsigned char)(i % 4 == 0 ? 0 : i);
  if (gasnett_count0s(buf, sizeof buf) != 16) {
    report("D", "gasnett_count0s miscounted");
    ++errs;
  }
  unsigned char copy[64];
  if (gasnett_count0s_copy(copy, buf, sizeof buf) != 16 || std::memcmp(copy, buf, 64) != 0) {
    report("D", "gasnett_count0s_copy");
    ++errs;
  }
  uint64_t c1 = gasnett_checksum(buf, 64);
  buf[10] ^= 1;
  if (gasnett_checksum(buf, 64) == c1) {
    report("D", "gasnett_checksum did not change with the data");
    ++errs;
  }
  if (gasnett_parse_int("3K", 1) != 3072 || gasnett_parse_int("12", 0) != 12) {
    report("D", "gasnett_parse_int");
    ++errs;
  }
  char text[64];
  gasnett_format_number(4096, text, sizeof text, 0);
  if (gasnett_parse_int(text, 0) != 4096) {
    report("D", "gasnett_format_number does not read back");
    ++errs;
  }
  return errs;
}

// Each rank writes only into its peer's segment, in the first bytes of it,
// so no two ranks touch the same bytes; it reads them back and compares.
int check_rma(int iters, gex_TM_t tm, void *myseg, gex_Rank_t peer, void *peerseg) {
  int errs = 0;
  uintptr_t peer_size = 0;
  void *owner = nullptr;
  gex_Segment_QueryBound(tm, peer, &owner, nullptr, &peer_size);
  if (!peerseg) peerseg = owner;
  (void)myseg;
  size_t len = peer_size < 65536 ? (size_t)peer_size : 65536;
  if (!peerseg || len < 64) {
    report("E", "the peer's segment is too small to test");
    return 1;
  }
  std::vector<unsigned char> out(len), back(len);
  gex_Rank_t me = gex_TM_QueryRank(tm);
  int rounds = iters < 10 ? iters : 10;
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < len; ++i) out[i] = (unsigned char)(i * 7 + r * 13 + me);
    size_t n = 1 + (size_t)(r * 977) % len;
    gex_RMA_PutBlocking(tm, peer, peerseg, out.data(), n, 0);
    std::memset(back.data(), 0xA5, len);
    gex_RMA_GetBlocking(tm, back.data(), peer, peerseg, n, 0);
    if (std::memcmp(out.data(), back.data(), n) != 0) {
      report("E", "the bytes got back differ from the bytes put");
      ++errs;
      break;
    }
    gex_Event_t e = gex_RMA_PutNB(tm, peer, peerseg, out.data(), n, GEX_EVENT_DEFER, 0);
    gex_Event_Wait(e);
    gex_Event_Wait(gex_RMA_GetNB(tm, back.data(), peer, peerseg, n, 0));
    if (std::memcmp(out.data(), back.data(), n) != 0) {
      report("E", "the bytes got back (NB) differ from the bytes put (NB)");
      ++errs;
      break;
    }
  }
  gex_RMA_PutBlockingVal(tm, peer, peerseg, (gex_RMA_Value_t)0x1122334455667788ull, 8, 0);
  if (gex_RMA_GetBlockingVal(tm, peer, peerseg, 8, 0) != (gex_RMA_Value_t)0x1122334455667788ull) {
    report("E", "a value put did not read back");
    ++errs;
  }
  return errs;
}

// Active messages: a Short request whose handler replies with its argument
// plus one, and a Medium request whose handler checks the payload and replies
// whether it was right.
std::atomic<int> g_short_replies{0};
std::atomic<long> g_short_sum{0};
std::atomic<int> g_medium_replies{0};
std::atomic<int> g_medium_bad{0};
constexpr size_t kMediumBytes = 512;

void short_req(gex_Token_t t, gex_AM_Arg_t a0);
void short_rep(gex_Token_t t, gex_AM_Arg_t a0);
void medium_req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0);
void medium_rep(gex_Token_t t, gex_AM_Arg_t ok);

gex_AM_Entry_t g_handlers[] = {
    {0, (gex_AM_Fn_t)short_req, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, nullptr,
     "gexx_diag_short_req"},
    {0, (gex_AM_Fn_t)short_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, nullptr,
     "gexx_diag_short_rep"},
    {0, (gex_AM_Fn_t)medium_req, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, nullptr,
     "gexx_diag_medium_req"},
    {0, (gex_AM_Fn_t)medium_rep, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, nullptr,
     "gexx_diag_medium_rep"},
};
constexpr int kHandlerCount = sizeof g_handlers / sizeof g_handlers[0];

void short_req(gex_Token_t t, gex_AM_Arg_t a0) {
  gex_AM_ReplyShort1(t, g_handlers[1].gex_index, 0, a0 + 1);
}
void short_rep(gex_Token_t, gex_AM_Arg_t a0) {
  g_short_sum.fetch_add(a0);
  g_short_replies.fetch_add(1);
}
void medium_req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0) {
  int ok = nbytes == kMediumBytes;
  const unsigned char *p = static_cast<const unsigned char *>(buf);
  for (size_t i = 0; ok && i < nbytes; ++i) ok = p[i] == (unsigned char)(i + (size_t)a0);
  gex_AM_ReplyShort1(t, g_handlers[3].gex_index, 0, ok);
}
void medium_rep(gex_Token_t, gex_AM_Arg_t ok) {
  if (!ok) g_medium_bad.fetch_add(1);
  g_medium_replies.fetch_add(1);
}

int check_am(int iters, gex_TM_t tm, gex_Rank_t peer) {
  int errs = 0;
  for (int i = 0; i < kHandlerCount; ++i) {
    if (g_handlers[i].gex_index == 0) {
      report("F",
             "the diagnostic handlers are not registered (register the table "
             "gasnett_diagnostic_gethandlers gives)");
      return 1;
    }
  }
  int n = iters < 200 ? iters : 200;
  g_short_replies = 0;
  g_short_sum = 0;
  g_medium_replies = 0;
  g_medium_bad = 0;
  long want = 0;
  for (int i = 0; i < n; ++i) {
    gex_AM_RequestShort1(tm, peer, g_handlers[0].gex_index, 0, i);
    want += i + 1;
  }
  unsigned char payload[kMediumBytes];
  for (int i = 0; i < n; ++i) {
    for (size_t k = 0; k < kMediumBytes; ++k) payload[k] = (unsigned char)(k + (size_t)i);
    gex_AM_RequestMedium1(tm, peer, g_handlers[2].gex_index, payload, kMediumBytes, GEX_EVENT_NOW,
                          0, i);
  }
  while (g_short_replies.load() < n || g_medium_replies.load() < n) gasnet_AMPoll();
  if (g_short_sum.load() != want) {
    report("F", "the Short replies carried the wrong arguments");
    ++errs;
  }
  if (g_medium_bad.load()) {
    report("F", "a Medium payload arrived damaged");
    ++errs;
  }
  return errs;
}

int check_barriers(int iters, gex_TM_t tm) {
  int n = iters < 50 ? iters : 50;
  for (int i = 0; i < n; ++i) gex_Coll_BarrierBlocking(tm, 0);
  return 0;
}

}  // namespace

extern "C" {

void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt) {
  *htable = g_handlers;
  *htable_cnt = kHandlerCount;
}

int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections, gex_TM_t myteam,
                            void *myseg, gex_Rank_t peer, void *peerseg) {
  if (iters < 1) iters = 1;
  g_errors_reported = 0;
  int errs = 0;
  if (selected(testsections, 'A')) errs += check_timers(iters);
  if (selected(testsections, 'B')) errs += check_atomics(iters);
  if (selected(testsections, 'C')) errs += check_threads(iters, threadcnt);
  if (selected(testsections, 'D')) errs += check_helpers();
  if (myteam != GEX_TM_INVALID) {
    if (selected(testsections, 'E')) errs += check_rma(iters, myteam, myseg, peer, peerseg);
    if (selected(testsections, 'F')) errs += check_am(iters, myteam, peer);
    // The closing barrier also keeps every rank polling until its peers'
    // requests have been answered.
    if (selected(testsections, 'G')) errs += check_barriers(iters, myteam);
    gex_Coll_BarrierBlocking(myteam, 0);
  }
  return errs;
}

}  // extern "C"
