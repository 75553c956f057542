// VIS transfers once the entry layer (capi/vis.cpp) has checked the shapes
// and turned them into runs (vis/shape.hpp).
//
// A peer whose segment this process maps (smp, and same-neighbourhood peers
// of a network conduit): each piece is a copy, done before the call returns.
// A network peer: when the remote side is one contiguous range and the local
// side is not (GASNET_VIS_REMOTECONTIG), the local bytes go through one
// bounce buffer and one RMA; otherwise small pieces are packed into AM
// Medium messages of up to GASNET_VIS_MAXCHUNK bytes and unpacked by the
// target (GASNET_VIS_AMPIPE), and larger pieces (or every piece, without
// AMPIPE) are RMA operations of their own. docs/vis.md has the cut-overs.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>

#include "core/runtime.hpp"
#include "vis/shape.hpp"

namespace gexx::vis {

enum class Sync : uint8_t { Blocking, NB, NBI };

// Who calls: the entry point's name (errors), its synchronisation, its flags.
struct Call {
  const char *api;
  Sync sync;
  gex_Flags_t flags;
};

// Whether `rank`'s segment is mapped here, after checking that the remote
// side's bytes, which lie in [lo, hi), are inside it (fatal, naming `api`,
// when they are not). When mapped, *delta turns a remote address into this
// process's address of the same byte, and the call is a copy
// (vis/local.hpp) followed, for a put, by local_put_done.
inline bool mapped(const char *api, uint32_t rank, uintptr_t lo, uintptr_t hi, ptrdiff_t *delta) {
  void *at = reinterpret_cast<void *>(lo);
  char *p = core::Runtime::get(api).locate(api, rank, at, hi - lo);
  if (!p) return false;
  *delta = p - static_cast<char *>(at);
  return true;
}

// A peer completion is armed for this thread's next put (static TLS: read
// on every put).
extern __thread bool t_pc_armed __attribute__((tls_model("initial-exec")));
// Sets t_pc_armed and keeps the count of armed threads (gexx_vis_pc_armed).
void set_pc_armed(bool armed);
void send_armed_peer_completion(const char *api, uint32_t rank);

// The end of a put toward a mapped peer (or of an empty put), once its
// stores are ordered (the copy loops fence after a memmove; util/copy.hpp):
// the peer completion, if one is armed.
inline void local_put_done(const char *api, uint32_t rank) {
  if (t_pc_armed) [[unlikely]]
    send_armed_peer_completion(api, rank);
}

// Toward a network peer (bounds checked by `mapped`): `dst` on job rank
// `rank`, `src` here (put) or the reverse (get); both sides hold `total`
// bytes (more than 0). The result: the NB event (GEX_EVENT_INVALID when
// complete), GEX_EVENT_INVALID for the other forms.
gex_Event_t put(const Call &c, uint32_t rank, Runs &dst, Runs &src, uint64_t total);
gex_Event_t get(const Call &c, Runs &dst, uint32_t rank, Runs &src, uint64_t total);

// gex_VIS_SetPeerCompletionHandler: arms this thread's next put.
void set_peer_completion(const char *api, gex_AM_Index_t handler, const void *source_addr,
                         size_t nbytes, gex_Flags_t flags);

// The knobs, read once.
struct Knobs {
  bool ampipe;
  size_t maxchunk;  // bytes of one packed message (clamped to the largest Medium)
  bool remotecontig;
  size_t rma_cutover;  // pieces longer than this go by RMA when packing
};
const Knobs &knobs();

// Registers the internal AM handlers packing uses (core/runtime.cpp, at start).
void register_handlers(core::HandlerTable &handlers);

}  // namespace gexx::vis
