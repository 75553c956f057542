#include "rma/blocking.hpp"

#include <cstring>

#include "core/runtime.hpp"
#include "util/log.hpp"

namespace gexx::rma {

namespace {
void check_value_size(const char *api, size_t nbytes) {
  if (nbytes > sizeof(uint64_t)) {
    util::fatal("%s: nbytes is %zu, but a value form moves at most %zu bytes", api, nbytes,
                sizeof(uint64_t));
  }
}

// Where the low-order n bytes of a uint64_t sit in memory.
const char *low_bytes(const uint64_t &v, size_t n) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return reinterpret_cast<const char *>(&v) + sizeof v - n;
#else
  (void)n;
  return reinterpret_cast<const char *>(&v);
#endif
}
}  // namespace

void memset_blocking(const char *api, uint32_t rank, void *dest, int value, size_t nbytes) {
  if (nbytes == 0) return;
  char *to = core::Runtime::get(api).translate(api, rank, dest, nbytes);
  std::memset(to, value, nbytes);
}

void put_value(const char *api, uint32_t rank, void *dest, uint64_t value, size_t nbytes) {
  check_value_size(api, nbytes);
  put_blocking(api, rank, dest, low_bytes(value, nbytes), nbytes);
}

uint64_t get_value(const char *api, uint32_t rank, const void *src, size_t nbytes) {
  check_value_size(api, nbytes);
  uint64_t value = 0;
  get_blocking(api, const_cast<char *>(low_bytes(value, nbytes)), rank, src, nbytes);
  return value;
}

}  // namespace gexx::rma
