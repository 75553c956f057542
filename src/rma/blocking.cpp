#include "rma/blocking.hpp"

#include <cstring>

#include "core/runtime.hpp"
#include "util/copy.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

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

void record(trace::Op op, const char *api, uint32_t rank, const void *remote, const void *local,
            size_t nbytes, uint64_t start) {
  trace::record(op, rank, nbytes, start, api, [&] {
    return trace::detailed() ? util::format("remote=%p local=%p", remote, local) : std::string();
  });
}
}  // namespace

void traced_put(const char *api, trace::Op op, uint32_t rank, void *dest, const void *src,
                size_t nbytes) {
  uint64_t start = trace::now();
  copy_put(api, rank, dest, src, nbytes);
  record(op, api, rank, dest, src, nbytes, start);
}

void traced_get(const char *api, trace::Op op, void *dest, uint32_t rank, const void *src,
                size_t nbytes) {
  uint64_t start = trace::now();
  copy_get(api, dest, rank, src, nbytes);
  record(op, api, rank, src, dest, nbytes, start);
}

void memset_blocking(const char *api, trace::Op op, uint32_t rank, void *dest, int value,
                     size_t nbytes) {
  uint64_t start = trace::active(trace::kPut) ? trace::now() : 0;
  if (nbytes) {
    if (char *p = core::Runtime::get(api).locate(api, rank, dest, nbytes)) {
      std::memset(p, value, nbytes);
      util::store_fence();  // ordered before later puts, as util/copy.hpp says
    } else
      remote_memset(rank, dest, value, nbytes);
  }
  if (start) record(op, api, rank, dest, nullptr, nbytes, start);
}

void put_value(const char *api, trace::Op op, uint32_t rank, void *dest, uint64_t value,
               size_t nbytes) {
  check_value_size(api, nbytes);
  put_blocking(api, op, rank, dest, low_bytes(value, nbytes), nbytes);
}

uint64_t get_value(const char *api, trace::Op op, uint32_t rank, const void *src, size_t nbytes) {
  check_value_size(api, nbytes);
  uint64_t value = 0;
  get_blocking(api, op, const_cast<char *>(low_bytes(value, nbytes)), rank, src, nbytes);
  return value;
}

}  // namespace gexx::rma
