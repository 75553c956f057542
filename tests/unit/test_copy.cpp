// The same-host put/get copies (include/gexx_copy.h through util/copy.hpp):
// every size up to past the inline limit, at every alignment pair mod 32,
// copies exactly its bytes; overlapping ranges move as memmove would.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "util/copy.hpp"

namespace {

void fill(std::vector<char> &b, unsigned seed) {
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(i * 131 + seed);
}

}  // namespace

TEST(Copy, EverySizeAndAlignment) {
  const size_t max = GEXX_COPY_INLINE_MAX + 130;
  std::vector<char> src(max + 64), dst(max + 128), want(max + 128);
  fill(src, 7);
  for (size_t n = 0; n <= max; n += (n < 300 ? 1 : 61)) {
    for (size_t sa = 0; sa < 32; sa += 5) {
      for (size_t da = 0; da < 32; da += 3) {
        for (int get = 0; get < 2; ++get) {
          fill(dst, 3);
          want = dst;
          std::memcpy(&want[da + 16], &src[sa], n);
          if (get)
            gexx::util::get_copy(&dst[da + 16], &src[sa], n);
          else
            gexx::util::put_copy(&dst[da + 16], &src[sa], n);
          ASSERT_EQ(0, std::memcmp(dst.data(), want.data(), dst.size()))
              << (get ? "get" : "put") << " n=" << n << " src+" << sa << " dst+" << da;
        }
      }
    }
  }
}

TEST(Copy, OverlappingRangesMoveAsMemmove) {
  std::vector<char> b(4096), want(4096);
  // (Shifts back by less than a block of the vector loops, 4 vectors: the
  // forward copy reads each block before any store reaches it.)
  for (size_t n : {3u, 17u, 40u, 64u, 65u, 100u, 129u, 200u, 256u, 300u, 1024u, 2048u}) {
    for (ptrdiff_t shift : {-300, -255, -129, -100, -33, -16, -1, 1, 7, 32, 64, 129}) {
      fill(b, 1);
      want = b;
      std::memmove(&want[1000 + shift], &want[1000], n);
      gexx::util::put_copy(&b[1000 + shift], &b[1000], n);
      ASSERT_EQ(0, std::memcmp(b.data(), want.data(), b.size())) << "n=" << n << " shift=" << shift;
    }
  }
}
