#include "core/handlers.hpp"

#include <vector>

#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::core {

namespace {

std::string check_flags(const gex_AM_Entry_t &e, size_t i) {
  gex_Flags_t cat = e.gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG);
  gex_Flags_t dir = e.gex_flags & GEX_FLAG_AM_REQREP;
  bool cat_ok = cat == GEX_FLAG_AM_SHORT || cat == GEX_FLAG_AM_MEDIUM || cat == GEX_FLAG_AM_LONG ||
                cat == GEX_FLAG_AM_MEDLONG;
  if (!cat_ok || dir == 0) {
    return util::format(
        "entry %zu (%s) has gex_flags %#x: give exactly one of GEX_FLAG_AM_SHORT, "
        "GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG or GEX_FLAG_AM_MEDLONG, ORed with one of "
        "GEX_FLAG_AM_REQUEST, GEX_FLAG_AM_REPLY or GEX_FLAG_AM_REQREP",
        i, e.gex_name ? e.gex_name : "unnamed", e.gex_flags);
  }
  if (e.gex_nargs > 16) {
    return util::format("entry %zu (%s) has gex_nargs %u; at most gex_AM_MaxArgs() = 16", i,
                        e.gex_name ? e.gex_name : "unnamed", e.gex_nargs);
  }
  return {};
}

}  // namespace

std::string HandlerTable::register_all(Pending *p, size_t n) {
  std::lock_guard<std::mutex> guard(register_mutex_);
  bool taken[kHandlerTableSize] = {};
  for (unsigned i = 0; i < kHandlerTableSize; ++i) taken[i] = table_[i].fn != nullptr;
  // Fixed indices first, so the free ones left for index 0 are known.
  for (size_t i = 0; i < n; ++i) {
    unsigned idx = *p[i].index;
    if (!p[i].ex.gex_fnptr) return util::format("handler table entry %zu has a null function", i);
    if (idx == 0) continue;
    if (idx < kFirstClientIndex) {
      return util::format(
          "handler table entry %zu asks for index %u; client handlers use %u to 255 (or 0 to "
          "let gexx choose)",
          i, idx, kFirstClientIndex);
    }
    if (taken[idx]) return util::format("handler index %u is registered twice", idx);
    taken[idx] = true;
  }
  unsigned next = kHandlerTableSize - 1;
  std::vector<unsigned> chosen(n);
  for (size_t i = 0; i < n; ++i) {
    chosen[i] = *p[i].index;
    if (chosen[i] != 0) continue;
    while (next >= kFirstClientIndex && taken[next]) --next;
    if (next < kFirstClientIndex)
      return "no free handler index is left for the entries with index 0";
    taken[next] = true;
    chosen[i] = next;
  }
  for (size_t i = 0; i < n; ++i) {
    *p[i].index = static_cast<gex_AM_Index_t>(chosen[i]);
    HandlerEntry &e = table_[chosen[i]];
    e.ex = p[i].ex;
    e.ex.gex_index = static_cast<gex_AM_Index_t>(chosen[i]);
    e.checked = p[i].checked;
    e.set_accept();
    e.label = p[i].ex.gex_name
                  ? util::format("handler '%s' (index %u)", p[i].ex.gex_name, chosen[i])
                  : util::format("handler %u", chosen[i]);
    e.fn.store(p[i].ex.gex_fnptr, std::memory_order_release);
  }
  return {};
}

void HandlerEntry::set_accept() {
  static constexpr gex_Flags_t kCategory[3] = {GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM,
                                               GEX_FLAG_AM_LONG};
  static constexpr gex_Flags_t kDirection[2] = {GEX_FLAG_AM_REQUEST, GEX_FLAG_AM_REPLY};
  for (int reply = 0; reply < 2; ++reply) {
    for (int c = 0; c < 4; ++c) {
      bool ok = c < 3 && (ex.gex_flags & kCategory[c]) && (ex.gex_flags & kDirection[reply]);
      accept[reply][c] = !checked ? (c < 3 ? kAnyArgs : 0)
                         : ok     ? static_cast<uint8_t>(ex.gex_nargs + 1)
                                  : 0;
    }
  }
}

void HandlerTable::register_internal(InternalHandler index, gex_AM_Fn_t fn, gex_Flags_t flags,
                                     unsigned nargs, const char *name) {
  gex_AM_Entry_t entry{};
  entry.gex_index = index;
  entry.gex_fnptr = fn;
  entry.gex_flags = flags;
  entry.gex_nargs = nargs;
  entry.gex_name = name;
  register_internal(entry);
}

void HandlerTable::register_internal(const gex_AM_Entry_t &entry) {
  std::lock_guard<std::mutex> guard(register_mutex_);
  unsigned idx = entry.gex_index;
  std::string bad = check_flags(entry, 0);
  if (idx == 0 || idx >= kFirstClientIndex || table_[idx].fn || !entry.gex_fnptr || !bad.empty()) {
    util::fatal("internal AM handler '%s' at index %u cannot be registered %s", entry.gex_name, idx,
                bad.c_str());
  }
  HandlerEntry &e = table_[idx];
  e.ex = entry;
  e.checked = true;
  e.set_accept();
  e.label = util::format("gexx's internal handler '%s' (index %u)", entry.gex_name, idx);
  e.fn.store(entry.gex_fnptr, std::memory_order_release);
}

std::string HandlerTable::register_legacy(LegacyEntry *entries, int n) {
  std::vector<Pending> p(n > 0 ? n : 0);
  for (int i = 0; i < n; ++i) {
    p[i].index = entries[i].index;
    p[i].ex.gex_index = *entries[i].index;
    p[i].ex.gex_fnptr = entries[i].fn;
    p[i].checked = false;
  }
  return register_all(p.data(), p.size());
}

std::string HandlerTable::register_ex(gex_AM_Entry_t *entries, size_t n) {
  std::vector<Pending> p(n);
  for (size_t i = 0; i < n; ++i) {
    std::string bad = check_flags(entries[i], i);
    if (!bad.empty()) return bad;
    p[i].index = &entries[i].gex_index;
    p[i].ex = entries[i];
    p[i].checked = true;
  }
  return register_all(p.data(), p.size());
}

}  // namespace gexx::core
