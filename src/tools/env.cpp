// Environment queries (gasnett_getenv*), number parsing and formatting, and
// the GASNET_VERBOSEENV report of the settings a program reads.
#include "tools/tools.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "util/strings.hpp"

namespace gexx::tools {

namespace {

using util::trim;

// The multiplier a size suffix names, or 0 when it names none.
uint64_t suffix_unit(std::string suffix) {
  for (auto &c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() == 2 && suffix[1] == 'B') suffix.pop_back();
  if (suffix == "B") return 1;
  if (suffix == "K") return 1ull << 10;
  if (suffix == "M") return 1ull << 20;
  if (suffix == "G") return 1ull << 30;
  if (suffix == "T") return 1ull << 40;
  if (suffix == "P") return 1ull << 50;
  if (suffix == "E") return 1ull << 60;
  return 0;
}

std::optional<int64_t> parse_plain(const std::string &t) {
  const char *s = t.c_str();
  bool negative = *s == '-';
  if (*s == '-' || *s == '+') ++s;
  if (!std::isdigit(static_cast<unsigned char>(*s))) return std::nullopt;
  int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
  errno = 0;
  char *end = nullptr;
  unsigned long long mag = std::strtoull(s, &end, base);
  if (errno || *end || end == s) return std::nullopt;
  if (mag > (negative ? 0x8000000000000000ull : 0x7FFFFFFFFFFFFFFFull)) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
}

std::optional<int64_t> parse_size(const std::string &t, uint64_t mem_unit) {
  bool hex = t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  size_t split = t.size();
  while (!hex && split > 0 && std::isalpha(static_cast<unsigned char>(t[split - 1]))) --split;
  std::string number = trim(std::string_view(t).substr(0, split));
  uint64_t unit = mem_unit;
  if (split < t.size() && !(unit = suffix_unit(t.substr(split)))) return std::nullopt;
  if (number.empty() || number[0] == '-') return std::nullopt;
  if (std::optional<int64_t> whole = parse_plain(number)) {
    if (static_cast<uint64_t>(*whole) > 0x7FFFFFFFFFFFFFFFull / unit) return std::nullopt;
    return *whole * static_cast<int64_t>(unit);
  }
  char *end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (*end || !std::isfinite(v) || v * static_cast<double>(unit) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(v * static_cast<double>(unit));
}

std::optional<double> parse_double(const std::string &t) {
  if (t.empty()) return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (*end == '/') {  // a fraction, "3/8"
    const char *den_text = end + 1;
    double den = std::strtod(den_text, &end);
    if (end == den_text || den == 0) return std::nullopt;
    v /= den;
  }
  if (end == t.c_str() || *end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> parse_yesno(const std::string &t) {
  std::string u = t;
  for (auto &c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (u == "Y" || u == "YES" || u == "1") return true;
  if (u == "N" || u == "NO" || u == "0") return false;
  return std::nullopt;
}

// The value of a typed variable: nullopt when unset or empty.
std::optional<std::string> typed_value(const char *key) {
  const char *v = gasnett_getenv(key);
  if (!v) return std::nullopt;
  std::string t = trim(v);
  if (t.empty()) return std::nullopt;
  return t;
}

[[noreturn]] void bad_value(const char *key, const std::string &value, const char *accepted) {
  gasnett_fatalerror("environment variable %s='%s' is not valid: expected %s", key, value.c_str(),
                     accepted);
}

// Each key is reported once, however often it is read.
bool first_report(const char *key) {
  static std::mutex lock;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> guard(lock);
  return seen.insert(key).second;
}

void display(const char *key, const std::string &shown, int is_dflt) {
  if (!gasnett_verboseenv() || !first_report(key)) return;
  std::fprintf(stderr, "ENV parameter: %s = %s%s\n", key, shown.c_str(),
               is_dflt ? "   (default)" : "");
  std::fflush(stderr);
}

}  // namespace

const char *int_forms(uint64_t mem_unit) {
  return mem_unit ? "a non-negative memory size: a number, possibly fractional, with an optional "
                    "suffix B, K, KB, M, MB, G, GB, T, TB, P, PB, E or EB (any case), such as 512M "
                    "or 1.5GB"
                  : "an integer in decimal or hexadecimal (0x prefix), optionally negative";
}

std::optional<int64_t> parse_int(std::string_view text, uint64_t mem_unit) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  return mem_unit ? parse_size(t, mem_unit) : parse_plain(t);
}

}  // namespace gexx::tools

using gexx::tools::bad_value;
using gexx::tools::display;
using gexx::tools::typed_value;

extern "C" {

int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier) {
  std::optional<int64_t> v = gexx::tools::parse_int(str ? str : "", mem_size_multiplier);
  if (!v)
    gasnett_fatalerror("gasnett_parse_int: '%s' is not valid: expected %s", str ? str : "(null)",
                       gexx::tools::int_forms(mem_size_multiplier));
  return *v;
}

char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size) {
  static const char *const kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  if (!is_mem_size || (val > -1024 && val < 1024)) {
    std::snprintf(buf, bufsz, is_mem_size ? "%lld B" : "%lld", static_cast<long long>(val));
    return buf;
  }
  double v = static_cast<double>(val);
  int unit = 0;
  while (std::fabs(v) >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  // Whole multiples print without a fraction ("64 MB"), others with one
  // ("1.5 KB", "114.9 MB").
  if (v == std::floor(v))
    std::snprintf(buf, bufsz, "%.0f %s", v, kUnits[unit]);
  else
    std::snprintf(buf, bufsz, std::fabs(v) < 100 ? "%.4g %s" : "%.1f %s", v, kUnits[unit]);
  return buf;
}

void gasnett_setenv(const char *key, const char *value) {
  if (::setenv(key, value, 1))
    gasnett_fatalerror("gasnett_setenv(%s, %s) failed: %s", key, value, std::strerror(errno));
}

void gasnett_unsetenv(const char *key) {
  if (::unsetenv(key))
    gasnett_fatalerror("gasnett_unsetenv(%s) failed: %s", key, std::strerror(errno));
}

char *gasnett_getenv(const char *keyname) {
  return std::getenv(keyname);
}

int gasnett_verboseenv(void) {
  std::optional<std::string> v = typed_value("GASNET_VERBOSEENV");
  return v && gexx::tools::parse_yesno(*v).value_or(false);
}

char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval) {
  char *v = gasnett_getenv(keyname);
  gasnett_envstr_display(keyname, v ? v : defaultval, !v);
  return v ? v : const_cast<char *>(defaultval);
}

int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval) {
  std::optional<std::string> text = typed_value(keyname);
  int result = defaultval;
  if (text) {
    std::optional<bool> v = gexx::tools::parse_yesno(*text);
    if (!v) bad_value(keyname, *text, "a yes/no value: Y, YES, 1, N, NO or 0 (any case)");
    result = *v;
  }
  gasnett_envstr_display(keyname, result ? "YES" : "NO", !text);
  return result;
}

int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                       uint64_t mem_size_multiplier) {
  std::optional<std::string> text = typed_value(keyname);
  int64_t result = defaultval;
  if (text) {
    std::optional<int64_t> v = gexx::tools::parse_int(*text, mem_size_multiplier);
    if (!v) bad_value(keyname, *text, gexx::tools::int_forms(mem_size_multiplier));
    result = *v;
  }
  gasnett_envint_display(keyname, result, !text, mem_size_multiplier != 0);
  return result;
}

double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval) {
  std::optional<std::string> text = typed_value(keyname);
  double result = defaultval;
  if (text) {
    std::optional<double> v = gexx::tools::parse_double(*text);
    if (!v) bad_value(keyname, *text, "a floating-point number or a fraction (1.5, -1e4, 3/8)");
    result = *v;
  }
  gasnett_envdbl_display(keyname, result, !text);
  return result;
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt) {
  display(key, std::string("'") + (val ? val : "") + "'", is_dflt);
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size) {
  char buf[64];
  display(key, gasnett_format_number(val, buf, sizeof buf, is_mem_size), is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", val);
  display(key, buf, is_dflt);
}

}  // extern "C"
