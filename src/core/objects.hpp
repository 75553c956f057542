// The GASNet-EX objects behind the opaque handles of gasnetex.h.
#pragma once

#include <gasnetex.h>

#include <cstdint>
#include <string>

#include "core/team.hpp"

struct gexx_client_s {
  std::string name;
  gex_Flags_t flags = 0;
  void *cdata = nullptr;
  gex_EP_t ep = nullptr;
  gex_TM_t tm = nullptr;
  gex_Segment_t segment = nullptr;
};

struct gexx_ep_s {
  gex_Client_t client = nullptr;
  gex_Flags_t flags = 0;
  void *cdata = nullptr;
  gex_Segment_t segment = nullptr;
  gex_EP_Index_t index = 0;
};

struct gexx_tm_s {
  gex_Client_t client = nullptr;
  gex_EP_t ep = nullptr;
  gex_Flags_t flags = 0;
  void *cdata = nullptr;
  gexx::core::Team team;  // its members and this process's rank among them
};

struct gexx_segment_s {
  gex_Client_t client = nullptr;
  gex_Flags_t flags = 0;
  void *cdata = nullptr;
  void *addr = nullptr;
  uintptr_t size = 0;
};

// An operation's completion as the client waits on it.
struct gexx_event_s {
  virtual ~gexx_event_s() = default;
  virtual bool test() = 0;  // true once complete
  virtual void wait() = 0;
};

namespace gexx::core {
struct HandlerEntry;
}

// The token of a running AM handler: lives on the stack of the delivery.
struct gexx_token_s {
  uint32_t src = 0;
  uint8_t handler = 0;
  uint8_t category = 0;  // core::am::Category
  bool is_req = false;
  bool replied = false;
  bool loopback = false;  // a request to oneself, run inside its request call: so is its reply
  const gexx::core::HandlerEntry *entry = nullptr;
  gexx_token_s *outer = nullptr;  // the handler this one runs inside (reply drained in a request)
};
