// GASNet-EX event, NBI-synchronisation and access-region entry points:
// argument checks and tracing, then one call into core/events.
#include <gasnetex.h>

#include <string>

#include "capi/entry.hpp"
#include "core/events.hpp"
#include "core/progress.hpp"
#include "util/strings.hpp"
#include "util/trace.hpp"

namespace events = gexx::core::events;
using gexx::trace::Op;

namespace {

// A wait or a test, recorded when S is traced or counted; `events` 0: NBI.
std::string events_field(size_t count) {
  return count ? gexx::util::format("events=%zu", count) : std::string();
}

template <typename Wait>
void sync_wait(const char *api, size_t count, Wait &&wait) {
  if (!gexx::trace::active(gexx::trace::kSync)) return wait();
  uint64_t start = gexx::trace::now();
  wait();
  gexx::trace::record(Op::SyncWait, -1, 0, start, api, [&] { return events_field(count); });
}

template <typename Test>
int sync_test(const char *api, size_t count, Test &&test) {
  if (!gexx::trace::active(gexx::trace::kSync)) return test();
  int result = test();
  gexx::trace::record(Op::SyncTry, -1, 0, 0, api, [&] {
    std::string detail = events_field(count);
    detail += detail.empty() ? "result=" : " result=";
    return detail + (result == 0 ? "done" : "not_ready");
  });
  return result;
}

// gex_Event_Wait past its first check (out of line: that check needs no frame).
[[gnu::noinline]] void wait_event(gex_Event_t event) {
  sync_wait("gex_Event_Wait", 1, [&] { events::wait_one(event, "gex_Event_Wait"); });
}

// gex_Event_Test past its first check.
[[gnu::noinline]] int test_event(gex_Event_t event) {
  return sync_test("gex_Event_Test", 1, [&] { return events::test_one(event, "gex_Event_Test"); });
}

}  // namespace

namespace gexx::capi {

void begin_region(const char *api) {
  events::begin_region(api);
}
gex_Event_t end_region(const char *api) {
  return events::end_region(api);
}

}  // namespace gexx::capi

extern "C" {

void gex_NBI_BeginAccessRegion(gex_Flags_t) {
  events::begin_region(__func__);
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t) {
  return events::end_region(__func__);
}

int gex_NBI_Test(gex_EC_t ec, gex_Flags_t) {
  return sync_test(__func__, 0, [ec] {
    if (events::nbi_done(ec)) return 0;
    gexx::core::poll();
    return events::nbi_done(ec) ? 0 : GASNET_ERR_NOT_READY;
  });
}

void gex_NBI_Wait(gex_EC_t ec, gex_Flags_t) {
  sync_wait(__func__, 0, [ec] {
    gexx::core::poll();
    gexx::core::wait_until([ec] { return events::nbi_done(ec); });
  });
}

int gex_Event_Test(gex_Event_t event) {
  // An operation complete at initiation (a same-host put, get or atomic)
  // returns GEX_EVENT_INVALID, and clients test it at once (UPC++ after every
  // put and atomic): answer before anything else unless tests are traced.
  if (event == GEX_EVENT_INVALID && !gexx::trace::active(gexx::trace::kSync)) [[likely]]
    return GASNET_OK;
  return test_event(event);
}

void gex_Event_Wait(gex_Event_t event) {
  // An operation complete at initiation (a same-host atomic, put or get)
  // returns GEX_EVENT_INVALID, and clients wait on it at once: return before
  // anything else unless waits are traced.
  if (event == GEX_EVENT_INVALID && !gexx::trace::active(gexx::trace::kSync)) [[likely]]
    return;
  wait_event(event);
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  return sync_test(__func__, numevents,
                   [&] { return events::test_some(pevent, numevents, "gex_Event_TestSome"); });
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  sync_wait(__func__, numevents,
            [&] { events::wait_some(pevent, numevents, "gex_Event_WaitSome"); });
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  return sync_test(__func__, numevents,
                   [&] { return events::test_all(pevent, numevents, "gex_Event_TestAll"); });
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t) {
  sync_wait(__func__, numevents, [&] { events::wait_all(pevent, numevents, "gex_Event_WaitAll"); });
}

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category) {
  return events::query_leaf(root, event_category, __func__);
}

}  // extern "C"
