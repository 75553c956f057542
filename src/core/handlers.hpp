// The AM handler table of an endpoint: indices, functions and what the
// client said about each (category, request/reply, argument count).
#pragma once

#include <gasnetex.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace gexx::core {

constexpr unsigned kHandlerTableSize = 256;
constexpr unsigned kFirstClientIndex = GEX_AM_INDEX_BASE;

// Indices of gexx's own handlers: below kFirstClientIndex, so that no client
// registration can take or shadow them, and client AMs never name them.
enum InternalHandler : gex_AM_Index_t {
  kBarrierHandler = 1,
  kAtomicRequestHandler = 2,  // atomics/domain.cpp: an operation the target performs
  kAtomicReplyHandler = 3,    // ... and its prior value coming back
  kRmaPutHandler = 4,         // rma/remote.cpp: a small put carried as an AM
  kRmaPutAckHandler = 5,      // ... its acknowledgement
  kRmaGetHandler = 6,         // a small get carried as an AM
  kRmaGetReplyHandler = 7,    // ... its bytes coming back
  kCollHandler = 8,           // coll/engine.cpp: every team collective's messages
  kG1CollHandler = 100,       // the GASNet-1 collectives (legacy/gasnet1_coll.cpp)
  // VIS (src/vis/am.cpp): packed puts and their acks, packed gets and their
  // replies, peer completion.
  kVisPutHandler = 40,
  kVisPutAckHandler = 41,
  kVisGetHandler = 42,
  kVisGetReplyHandler = 43,
  kVisPeerCompletionHandler = 44,
};

struct HandlerEntry {
  // Stored last, with release: a thread that loads it (acquire) sees the rest.
  std::atomic<gex_AM_Fn_t> fn{nullptr};
  gex_AM_Entry_t ex{};   // as registered; legacy entries carry index and function only
  bool checked = false;  // from gex_EP_RegisterHandlers: flags and nargs are enforced
  // What a delivery may carry, by [reply][category]: 1 + the argument count
  // the entry was registered for where that kind and category are allowed,
  // 0 where not, kAnyArgs on an unchecked (legacy) entry: one compare per
  // delivery (set from ex and checked by set_accept()).
  static constexpr uint8_t kAnyArgs = 0xFF;
  uint8_t accept[2][4] = {};
  void set_accept();
  // Whether a delivery of this kind (reply or request), category and
  // argument count may run the entry's function.
  bool accepts(bool reply, unsigned category, unsigned nargs) const {
    uint8_t a = accept[reply][category & 3];
    return a == nargs + 1 || a == kAnyArgs;
  }
  std::string label;  // "handler 'name' (index N)" for messages
};

class HandlerTable {
 public:
  // GASNet-1 (gasnet_attach): entries with index 0 get the highest free index,
  // in table order, written back. Returns an error text, empty on success.
  struct LegacyEntry {
    uint8_t *index;
    void (*fn)();
  };
  std::string register_legacy(LegacyEntry *entries, int n);
  // GASNet-EX (gex_EP_RegisterHandlers): the same index rule; flags and
  // nargs are validated here and enforced on every delivery.
  std::string register_ex(gex_AM_Entry_t *entries, size_t n);
  // One of gexx's own handlers, at its InternalHandler index; flags and
  // nargs are enforced as for register_ex. Fatal if the index is not free
  // and internal (a gexx bug).
  void register_internal(const gex_AM_Entry_t &entry);
  // The same from its parts: gexx's handler `fn` (cast from its AM handler
  // signature) at `index`, for `flags` (category and request/reply).
  void register_internal(InternalHandler index, gex_AM_Fn_t fn, gex_Flags_t flags, unsigned nargs,
                         const char *name);

  const HandlerEntry &entry(uint8_t index) const { return table_[index]; }

 private:
  struct Pending {
    gex_AM_Index_t *index;
    gex_AM_Entry_t ex;
    bool checked;
  };
  std::string register_all(Pending *p, size_t n);
  std::mutex register_mutex_;  // registrations from several threads at once
  HandlerEntry table_[kHandlerTableSize];
};

}  // namespace gexx::core
