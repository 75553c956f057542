// Waiting: every blocking call polls, and yields the CPU when the host has
// more ranks than cores (or after a short spin otherwise).
#pragma once

#include <cstdint>

namespace gexx::core {

void poll();
void relax(uint32_t &spins);  // one step of a polite spin

template <typename Pred>
void wait_until(Pred &&done) {
  uint32_t spins = 0;
  while (!done()) {
    poll();
    relax(spins);
  }
}

}  // namespace gexx::core
