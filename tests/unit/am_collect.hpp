// What the AM queue tests deliver into: a copy of each message, in order.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/transport.hpp"

namespace gexx::test {

struct Got {
  transport::AmHeader h;
  std::vector<int32_t> args;
  std::vector<unsigned char> payload;
  uintptr_t payload_addr;
};
// Where collect appends, per thread: point it at the test's vector.
inline thread_local std::vector<Got> *g_got;

struct Collector final : transport::AmSink {
  void deliver(const transport::AmHeader &h, const int32_t *args, void *payload) override {
    Got g{h, std::vector<int32_t>(args, args + h.nargs), {}, reinterpret_cast<uintptr_t>(payload)};
    auto *p = static_cast<unsigned char *>(payload);
    if (h.category != 0) g.payload.assign(p, p + h.nbytes);
    g_got->push_back(std::move(g));
  }
};
// The sink the queues under test deliver into.
inline Collector collect;

}  // namespace gexx::test
