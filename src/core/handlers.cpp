#include "core/handlers.hpp"

#include "util/strings.hpp"

namespace gexx::core {

std::string HandlerTable::register_legacy(LegacyEntry *entries, int n) {
  bool taken[kHandlerTableSize] = {};
  for (unsigned i = 0; i < kHandlerTableSize; ++i) taken[i] = table_[i].fn != nullptr;
  // Fixed indices first, so the free ones left for index 0 are known.
  for (int i = 0; i < n; ++i) {
    unsigned idx = *entries[i].index;
    if (!entries[i].fn) return util::format("handler table entry %d has a null function", i);
    if (idx == 0) continue;
    if (idx < kFirstClientIndex) {
      return util::format(
          "handler table entry %d asks for index %u; client handlers use %u to "
          "255 (or 0 to let gexx choose)",
          i, idx, kFirstClientIndex);
    }
    if (taken[idx]) return util::format("handler index %u is registered twice", idx);
    taken[idx] = true;
  }
  unsigned next = kHandlerTableSize - 1;
  for (int i = 0; i < n; ++i) {
    if (*entries[i].index != 0) continue;
    while (next >= kFirstClientIndex && taken[next]) --next;
    if (next < kFirstClientIndex)
      return "no free handler index is left for the entries with index 0";
    taken[next] = true;
    *entries[i].index = static_cast<uint8_t>(next);
  }
  for (int i = 0; i < n; ++i) {
    HandlerEntry &e = table_[*entries[i].index];
    e.fn = entries[i].fn;
    e.name = util::format("handler %u", *entries[i].index);
  }
  return {};
}

}  // namespace gexx::core
