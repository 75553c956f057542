#include "rma/blocking.hpp"

#include <cstring>

#include "core/runtime.hpp"

namespace gexx::rma {

void put_blocking(const char *api, uint32_t rank, void *dest, const void *src, size_t nbytes) {
  if (nbytes == 0) return;
  char *to = core::Runtime::get(api).translate(api, rank, dest, nbytes);
  std::memmove(to, src, nbytes);
}

void get_blocking(const char *api, void *dest, uint32_t rank, const void *src, size_t nbytes) {
  if (nbytes == 0) return;
  const char *from = core::Runtime::get(api).translate(api, rank, src, nbytes);
  std::memmove(dest, from, nbytes);
}

}  // namespace gexx::rma
