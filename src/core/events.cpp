#include "core/events.hpp"

#include <utility>

#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "util/log.hpp"

namespace gexx::core::events {

using transport::RmaCompletion;

namespace {

// NB operations and access regions carried by the transport.
class RmaEvent final : public gexx_event_s {
 public:
  explicit RmaEvent(std::unique_ptr<RmaCompletion> c) : c_(std::move(c)) {}
  // A client that tests each operation as it starts it (UPC++ after every
  // rput and atomic, then the oldest ones it still waits for) would, if
  // every test polled as a wait does, send the burst those operations are
  // held in (core/burst.hpp: a poll sends what a burst holds) one
  // operation at a time. So the first test that finds the operation in
  // flight does not poll at all, and later ones poll without sending a
  // burst younger than util::kBurstGap (poll_in_test): a loop on
  // gex_Event_Test still makes progress from its second call on, and its
  // operation leaves within that gap.
  bool test() override {
    if (c_->done()) return true;
    if (!tested_) {
      tested_ = true;
      return false;
    }
    poll_in_test("gex_Event_Test");
    return c_->done();
  }
  void wait() override { events::wait(*c_); }

 private:
  std::unique_ptr<RmaCompletion> c_;
  bool tested_ = false;
};

// gex_Coll_BarrierNB's event: one anonymous generation of the job barrier.
class BarrierEvent final : public gexx_event_s {
 public:
  explicit BarrierEvent(uint64_t g) : generation_(g) {}
  bool test() override { return Runtime::get("gex_Event_Test").barrier().complete(generation_); }
  void wait() override { Runtime::get("gex_Event_Wait").barrier().finish_anonymous(generation_); }

 private:
  uint64_t generation_;
};

struct NbiState;
// This thread's NbiState once made, else null (nothing of this thread in
// flight): static TLS, so gex_NBI_Wait's check costs no __tls_get_addr call
// and no init guard (testvisperf times ten calls and one wait).
__thread NbiState *t_nbi_made __attribute__((tls_model("initial-exec"))) = nullptr;

struct NbiState {
  NbiState() { t_nbi_made = this; }
  std::unique_ptr<RmaCompletion> put = std::make_unique<RmaCompletion>();
  std::unique_ptr<RmaCompletion> get = std::make_unique<RmaCompletion>();
  std::unique_ptr<RmaCompletion> region;
  bool in_region = false;
  // A thread that ends with NBI operations in flight (which it should
  // not) leaves their counters to them: another thread's poll completes them.
  ~NbiState() {
    t_nbi_made = nullptr;
    if (!put->done()) (void)put.release();
    if (!get->done()) (void)get.release();
  }
};
thread_local NbiState t_nbi;

bool complete(gex_Event_t e, const char *api) {
  if (e == GEX_EVENT_INVALID) return true;
  if (e == GEX_EVENT_NO_OP) util::fatal("%s was passed GEX_EVENT_NO_OP", api);
  return e->test();
}

void retire(gex_Event_t &e) {
  if (e != GEX_EVENT_INVALID) delete e;
  e = GEX_EVENT_INVALID;
}

// Polls until `test` returns 0.
template <typename Test>
void wait_for(Test &&test) {
  uint32_t spins = 0;
  while (test() != 0) {
    poll();
    relax(spins);
  }
}

}  // namespace

void wait(RmaCompletion &c) {
  uint32_t spins = 0;
  while (!c.done()) {
    poll();
    if (c.done()) break;
    relax(spins);
  }
}

gex_Event_t for_rma(std::unique_ptr<RmaCompletion> c) {
  if (c->done()) return GEX_EVENT_INVALID;
  return new RmaEvent(std::move(c));
}

gex_Event_t for_barrier(uint64_t generation) {
  return new BarrierEvent(generation);
}

RmaCompletion &nbi_put_counter() {
  return t_nbi.region ? *t_nbi.region : *t_nbi.put;
}
RmaCompletion &nbi_get_counter() {
  return t_nbi.region ? *t_nbi.region : *t_nbi.get;
}

bool nbi_done(gex_EC_t ec) {
  const NbiState *n = t_nbi_made;
  if (!n) return true;
  bool puts = (ec & (GEX_EC_PUT | GEX_EC_LC)) != 0 || ec == GEX_EC_ALL;
  bool gets = (ec & (GEX_EC_GET | GEX_EC_RMW)) != 0 || ec == GEX_EC_ALL;
  return (!puts || n->put->done()) && (!gets || n->get->done());
}

void begin_region(const char *api) {
  if (t_nbi.in_region) {
    util::fatal(
        "%s: this thread is already in an NBI access region (regions do not nest; end "
        "it first)",
        api);
  }
  t_nbi.in_region = true;
  t_nbi.region = std::make_unique<RmaCompletion>();
}

gex_Event_t end_region(const char *api) {
  if (!t_nbi.in_region) util::fatal("%s: this thread has no NBI access region to end", api);
  t_nbi.in_region = false;
  return for_rma(std::move(t_nbi.region));
}

int test_one(gex_Event_t &event, const char *api) {
  if (!complete(event, api)) return GASNET_ERR_NOT_READY;
  retire(event);
  return 0;
}

void wait_one(gex_Event_t &event, const char *api) {
  if (event == GEX_EVENT_NO_OP) util::fatal("%s was passed GEX_EVENT_NO_OP", api);
  if (event == GEX_EVENT_INVALID) return;
  event->wait();
  retire(event);
}

int test_some(gex_Event_t *pevent, size_t numevents, const char *api) {
  bool any_valid = false, any_done = false;
  for (size_t i = 0; i < numevents; ++i) {
    if (pevent[i] == GEX_EVENT_INVALID) continue;
    any_valid = true;
    if (complete(pevent[i], api)) {
      retire(pevent[i]);
      any_done = true;
    }
  }
  return (any_done || !any_valid) ? 0 : GASNET_ERR_NOT_READY;
}

int test_all(gex_Event_t *pevent, size_t numevents, const char *api) {
  bool all = true;
  for (size_t i = 0; i < numevents; ++i) {
    if (pevent[i] == GEX_EVENT_INVALID) continue;
    if (complete(pevent[i], api))
      retire(pevent[i]);
    else
      all = false;
  }
  return all ? 0 : GASNET_ERR_NOT_READY;
}

void wait_some(gex_Event_t *pevent, size_t numevents, const char *api) {
  wait_for([&] { return test_some(pevent, numevents, api); });
}

void wait_all(gex_Event_t *pevent, size_t numevents, const char *api) {
  wait_for([&] { return test_all(pevent, numevents, api); });
}

gex_Event_t query_leaf(gex_Event_t root, gex_EC_t category, const char *api) {
  if (root == GEX_EVENT_NO_OP) util::fatal("%s was passed GEX_EVENT_NO_OP", api);
  if (category != GEX_EC_LC && category != GEX_EC_GET && category != GEX_EC_PUT &&
      category != GEX_EC_AM && category != GEX_EC_RMW) {
    util::fatal("%s: event_category %u is not a single GEX_EC_* value", api, category);
  }
  return GEX_EVENT_INVALID;
}

}  // namespace gexx::core::events
