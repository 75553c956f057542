// What VIS's packed AM messages carry (vis/vis.cpp sends, vis/am.cpp runs).
//
// Put request (Medium, args: the initiator's RmaCompletion): records, each a
// Header, a stride when it holds more than one piece, then its pieces' bytes
// back to back, padded to 8. Ack (Short reply, same args). Get request
// (Medium, args: the initiator's GetChunk): records without bytes, naming
// remote ranges. Get reply (Medium, same args): their bytes, back to back.
//
// A record is `count` pieces of `len` bytes, piece i at addr + i * stride:
// the pieces of strided shapes and of regular lists (testvisperf's, halos)
// cost 8 bytes of header per run rather than 16 per piece, and the target
// checks a run against its segment once.
#pragma once

#include <gasnetex.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "transport/transport.hpp"
#include "vis/shape.hpp"

namespace gexx::vis::wire {

struct Header {
  uint64_t addr;
  uint32_t len;
  uint32_t count;  // more than 1: an int64_t stride follows
};

inline size_t padded(size_t n) {
  return (n + 7) & ~size_t{7};
}

// Appends pieces to a message buffer as records, extending the last record
// while pieces keep its length and stride. With data, each piece's bytes
// are copied in. Pure, for the unit tests.
class RecordWriter {
 public:
  // The capacity is rounded down to 8, so the padded end fits it too.
  RecordWriter(char *buf, size_t cap, bool with_data)
      : buf_(buf), cap_(cap & ~size_t{7}), data_(with_data) {}
  // False when the piece does not fit (nothing written: flush and retry).
  // A piece longer than UINT32_MAX bytes never fits.
  bool add(uint64_t addr, const char *src, size_t n) {
    const size_t bytes = data_ ? n : 0;
    if (open_ && n == h_.len && h_.count < UINT32_MAX) {
      if (h_.count == 1) {
        // Second piece: the stride goes in before the first piece's bytes.
        if (end_ + 8 + bytes > cap_) return false;
        stride_ = static_cast<int64_t>(addr - h_.addr);
        char *first = buf_ + rec_ + sizeof(Header);
        if (data_) std::memmove(first + 8, first, n);
        std::memcpy(first, &stride_, 8);
        end_ += 8;
        return append(addr, src, bytes);
      }
      if (addr == last_ + static_cast<uint64_t>(stride_) && end_ + bytes <= cap_)
        return append(addr, src, bytes);
    }
    if (n > UINT32_MAX) return false;
    const size_t at = padded(end_);
    if (at + sizeof(Header) + bytes > cap_) return false;
    rec_ = at;
    h_ = Header{addr, static_cast<uint32_t>(n), 0};
    end_ = at + sizeof(Header);
    open_ = true;
    return append(addr, src, bytes);
  }
  // The bytes written (the last record padded).
  size_t size() const { return padded(end_); }
  bool empty() const { return end_ == 0; }
  void reset() {
    end_ = 0;
    open_ = false;
  }

 private:
  bool append(uint64_t addr, const char *src, size_t bytes) {
    if (bytes) std::memcpy(buf_ + end_, src, bytes);
    end_ += bytes;
    last_ = addr;
    ++h_.count;
    std::memcpy(buf_ + rec_, &h_, sizeof h_);
    return true;
  }
  char *buf_;
  size_t cap_;
  bool data_;
  bool open_ = false;
  size_t rec_ = 0, end_ = 0;
  Header h_{};
  int64_t stride_ = 0;
  uint64_t last_ = 0;
};

// One record as read back: `data` its bytes (put requests).
struct Record {
  uint64_t addr;
  size_t len, count;
  int64_t stride;
  const char *data;
  // The lowest address it touches and the bytes from there to its end.
  uint64_t lo() const {
    return stride < 0 ? addr + static_cast<uint64_t>(stride) * (count - 1) : addr;
  }
  uint64_t span() const {
    uint64_t s = stride < 0 ? 0 - static_cast<uint64_t>(stride) : static_cast<uint64_t>(stride);
    return s * (count - 1) + len;
  }
};

// Calls f(const Record &) for each record of a message; false when the
// message is malformed (truncated).
template <typename F>
bool each_record(const void *buf, size_t nbytes, bool with_data, F &&f) {
  const char *p = static_cast<const char *>(buf);
  const char *end = p + nbytes;
  while (p < end) {
    Header h;
    if (static_cast<size_t>(end - p) < sizeof h) return false;
    std::memcpy(&h, p, sizeof h);
    p += sizeof h;
    if (h.count == 0) return false;
    Record r{h.addr, h.len, h.count, 0, nullptr};
    if (h.count > 1) {
      if (end - p < 8) return false;
      std::memcpy(&r.stride, p, 8);
      p += 8;
    }
    if (with_data) {
      const size_t bytes = r.len * r.count;
      if (static_cast<size_t>(end - p) < bytes) return false;
      r.data = p;
      p += padded(bytes);
      if (p > end) p = end;
    }
    f(r);
  }
  return true;
}

// An initiator-side get in flight: where its reply's bytes go, and the
// counter to bring down once they are there.
struct GetChunk {
  transport::RmaCompletion *done;
  std::vector<Run> dest;
};

// A pointer as two handler arguments and back.
inline void split(const void *p, gex_AM_Arg_t *args) {
  uint64_t v = reinterpret_cast<uint64_t>(p);
  args[0] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v));
  args[1] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(v >> 32));
}
template <typename T>
T *join(gex_AM_Arg_t lo, gex_AM_Arg_t hi) {
  uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(lo)) |
               (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32);
  return reinterpret_cast<T *>(v);
}

}  // namespace gexx::vis::wire
