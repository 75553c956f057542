// The AM handler table of an endpoint: indices, functions and names.
#pragma once

#include <cstdint>
#include <string>

namespace gexx::core {

constexpr unsigned kHandlerTableSize = 256;
constexpr unsigned kFirstClientIndex = 128;

struct HandlerEntry {
  void (*fn)() = nullptr;
  std::string name;
};

class HandlerTable {
 public:
  // Registers `n` GASNet-1 entries: index 0 asks for a free index, which is
  // picked deterministically (the same table gives the same indices on every
  // rank) and written back. Returns an error text, empty on success.
  struct LegacyEntry {
    uint8_t *index;
    void (*fn)();
  };
  std::string register_legacy(LegacyEntry *entries, int n);

  const HandlerEntry &entry(uint8_t index) const { return table_[index]; }

 private:
  HandlerEntry table_[kHandlerTableSize];
};

}  // namespace gexx::core
