// What VIS's packed AM messages carry (vis/vis.cpp sends, vis/am.cpp runs).
//
// Put request (Medium, args: the initiator's RmaCompletion): records, each a
// Record and then `len` bytes padded to 8. Ack (Short reply, same args).
// Get request (Medium, args: the initiator's GetChunk): Records naming
// remote ranges. Get reply (Medium, same args): their bytes, back to back.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/transport.hpp"
#include "vis/shape.hpp"

namespace gexx::vis::wire {

struct Record {
  uint64_t addr;
  uint64_t len;
};

inline size_t padded(size_t n) {
  return (n + 7) & ~size_t{7};
}

// An initiator-side get in flight: where its reply's bytes go, and the
// counter to bring down once they are there.
struct GetChunk {
  transport::RmaCompletion *done;
  std::vector<Run> dest;
};

// A pointer as two handler arguments and back.
inline void split(const void *p, gex_AM_Arg_t *args) {
  uint64_t v = reinterpret_cast<uint64_t>(p);
  args[0] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v));
  args[1] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v >> 32));
}
template <typename T>
T *join(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(lo)) |
               (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32);
  return reinterpret_cast<T *>(v);
}

}  // namespace gexx::vis::wire
