// What VIS's packed AM messages carry (vis/vis.cpp sends, vis/am.cpp runs).
//
// Put request (Medium, args: the initiator's RmaCompletion): records, each a
// Record, a RunTail when its len has kRun set, then its bytes (len, or
// count x len for a run: its pieces' back to back) padded to 8. Ack (Short
// reply, same args). Get request (Medium, args: the initiator's GetChunk):
// Records (with their RunTails) naming remote ranges. Get reply (Medium,
// same args): their bytes, back to back.
//
// A run is `count` pieces of `len` bytes at addr, addr + stride, ... (any
// stride, even negative or overlapping): a strided shape's pieces, or any
// pieces that happen to be so spaced, in one header instead of one each.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/am.hpp"
#include "transport/transport.hpp"
#include "vis/shape.hpp"

namespace gexx::vis::wire {

struct Record {
  uint64_t addr;
  uint64_t len;  // | kRun: a RunTail follows
};
constexpr uint64_t kRun = uint64_t{1} << 63;
struct RunTail {
  uint64_t count;  // 2 or more
  int64_t stride;
};

inline size_t padded(size_t n) {
  return (n + 7) & ~size_t{7};
}

// An initiator-side get in flight: where its reply's bytes go, and the
// counter to bring down once they are there.
struct GetChunk {
  transport::RmaCompletion *done;
  std::vector<Row> dest;  // rows of local runs, in the reply's order
};

// A pointer as two handler arguments and back.
inline void split(const void *p, gex_AM_Arg_t *args) {
  core::am::split_arg(reinterpret_cast<uint64_t>(p), args);
}
template <typename T>
T *join(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  return reinterpret_cast<T *>(core::am::join_arg(lo, hi));
}

}  // namespace gexx::vis::wire
