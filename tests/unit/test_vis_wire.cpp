// VIS's packed records (src/vis/wire.hpp): pieces written, read back the
// same (addresses, lengths, bytes), runs of one length and stride folded
// into one record, messages never over their capacity.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "vis/wire.hpp"

using gexx::vis::wire::each_record;
using gexx::vis::wire::Record;
using gexx::vis::wire::RecordWriter;

namespace {

struct Piece {
  uint64_t addr;
  size_t len;
  std::vector<char> bytes;
  bool operator==(const Piece &o) const {
    return addr == o.addr && len == o.len && bytes == o.bytes;
  }
};

// Writes `in` into messages of `cap` bytes (a new message when a piece does
// not fit), reads every message back piece by piece; the records seen.
std::vector<Piece> round_trip(const std::vector<Piece> &in, size_t cap, bool data, size_t *records,
                              size_t *messages) {
  std::vector<char> buf(cap + 64, '\x5a');
  std::vector<Piece> out;
  *records = *messages = 0;
  RecordWriter w(buf.data(), cap, data);
  auto drain = [&] {
    if (w.empty()) return;
    EXPECT_LE(w.size(), cap);
    for (size_t i = cap; i < buf.size(); ++i) EXPECT_EQ(buf[i], '\x5a') << "past the capacity";
    ++*messages;
    EXPECT_TRUE(each_record(buf.data(), w.size(), data, [&](const Record &r) {
      ++*records;
      for (size_t i = 0; i < r.count; ++i) {
        Piece p{r.addr + static_cast<uint64_t>(r.stride) * i, r.len, {}};
        if (data) p.bytes.assign(r.data + i * r.len, r.data + (i + 1) * r.len);
        out.push_back(p);
      }
    }));
    w.reset();
  };
  for (const Piece &p : in) {
    if (!w.add(p.addr, p.bytes.data(), p.len)) {
      drain();
      EXPECT_TRUE(w.add(p.addr, p.bytes.data(), p.len)) << "a piece did not fit an empty message";
    }
  }
  drain();
  return out;
}

std::vector<Piece> strided(uint64_t base, int64_t stride, size_t len, size_t count, char seed) {
  std::vector<Piece> v;
  for (size_t i = 0; i < count; ++i) {
    Piece p{base + static_cast<uint64_t>(stride * static_cast<int64_t>(i)), len, {}};
    for (size_t b = 0; b < len; ++b) p.bytes.push_back(static_cast<char>(seed + i * 7 + b));
    v.push_back(p);
  }
  return v;
}

std::vector<Piece> without_bytes(std::vector<Piece> v) {
  for (Piece &p : v) p.bytes.clear();
  return v;
}

}  // namespace

TEST(VisWire, RegularPiecesAreOneRecord) {
  std::vector<Piece> in = strided(0x10000, 24, 8, 100, 1);
  size_t records, messages;
  EXPECT_EQ(round_trip(in, 4096, true, &records, &messages), in);
  EXPECT_EQ(records, 1u);
  EXPECT_EQ(messages, 1u);
  // A header, the stride, 800 bytes.
  std::vector<char> buf(4096);
  RecordWriter w(buf.data(), buf.size(), true);
  for (const Piece &p : in) ASSERT_TRUE(w.add(p.addr, p.bytes.data(), p.len));
  EXPECT_EQ(w.size(), sizeof(gexx::vis::wire::Header) + 8 + 800);
}

TEST(VisWire, NegativeAndZeroStrides) {
  for (int64_t stride : {-40, 0, 5, -3}) {
    std::vector<Piece> in = strided(0x900000, stride, 3, 50, 9);
    size_t records, messages;
    EXPECT_EQ(round_trip(in, 1024, true, &records, &messages), in) << "stride " << stride;
    EXPECT_EQ(records, 1u);
    EXPECT_EQ(round_trip(in, 1024, false, &records, &messages), without_bytes(in));
    EXPECT_EQ(records, 1u);
  }
}

TEST(VisWire, RunsEndAtAnotherLengthOrStride) {
  std::vector<Piece> in = strided(0x1000, 16, 8, 10, 1);
  auto more = strided(0x8000, 16, 4, 10, 2);  // another length
  in.insert(in.end(), more.begin(), more.end());
  more = strided(0x20000, 32, 4, 10, 3);  // another stride, same length
  in.insert(in.end(), more.begin(), more.end());
  size_t records, messages;
  EXPECT_EQ(round_trip(in, 4096, true, &records, &messages), in);
  EXPECT_EQ(records, 3u);
}

TEST(VisWire, RandomPiecesSplitAcrossMessages) {
  std::mt19937 rng(20);
  for (int round = 0; round < 200; ++round) {
    std::vector<Piece> in;
    size_t n = rng() % 300;
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 3 == 0 && !in.empty()) {  // continue a run
        const Piece &b = in.back();
        auto r = strided(b.addr + 40, 40, b.len, 1 + rng() % 20, static_cast<char>(rng()));
        in.insert(in.end(), r.begin(), r.end());
        continue;
      }
      size_t len = 1 + rng() % 200;
      auto r = strided(rng() % 100000, 0, len, 1, static_cast<char>(rng()));
      in.insert(in.end(), r.begin(), r.end());
    }
    size_t cap = 64 + rng() % 4000;
    std::vector<Piece> fits;
    for (const Piece &p : in)
      if (p.len <= cap / 4) fits.push_back(p);
    size_t records, messages;
    ASSERT_EQ(round_trip(fits, cap, true, &records, &messages), fits) << "round " << round;
    ASSERT_EQ(round_trip(fits, cap, false, &records, &messages), without_bytes(fits));
  }
}

TEST(VisWire, TruncatedMessagesAreCaught) {
  std::vector<Piece> in = strided(0x1000, 16, 8, 10, 1);
  std::vector<char> buf(1024);
  RecordWriter w(buf.data(), buf.size(), true);
  for (const Piece &p : in) ASSERT_TRUE(w.add(p.addr, p.bytes.data(), p.len));
  auto nothing = [](const Record &) {};
  EXPECT_TRUE(each_record(buf.data(), w.size(), true, nothing));
  EXPECT_FALSE(each_record(buf.data(), w.size() - 8, true, nothing));
  EXPECT_FALSE(each_record(buf.data(), 20, true, nothing));
  EXPECT_FALSE(each_record(buf.data(), 8, true, nothing));
}
