// Active messages over libfabric sends and receives. A message is the
// 32-byte AmHeader, the arguments (padded to 16 bytes) and a Medium or
// packed Long payload (wire::kPackedLong: the receiving engine copies it
// out), in one send: fi_inject when it fits the provider's inject size, else
// fi_send from a send buffer that returns to the pool on its completion.
// A payload of at least `direct_min` bytes handed to send() is not copied
// into the send buffer: the message goes out as two pieces (the buffer's
// header and arguments, then the client's bytes, fi_sendmsg with two iovs)
// and send() returns once the provider reports the send complete, so the
// client's buffer is free again as GEX_EVENT_NOW promises. On a stream
// provider that completion comes as the bytes enter the socket: one copy
// per side (the kernel's), not two on the sending side.
//
// Replies bundle: while poll delivers a batch of arrivals, the replies its
// handlers send (each up to kBundleItemMax bytes) wait per destination and
// leave together when the batch ends, one message carrying them all, each
// at a 16-byte boundary and each but the last marked kMore (a transport
// flag bit of AmHeader::flags). A lone reply leaves as it would have, only
// later by the rest of its batch: a round trip's reply is the same message
// at the same time. A flood of requests read in one go (a stream provider
// takes many off a socket per read) is answered with one send, not one each.
//
// Requests bundle too when they are deferrable (wire::kDeferrable: core
// marks the NB and NBI remote atomics, small puts and gets, and VIS calls
// that continue a burst of such calls toward one rank, core/burst.hpp;
// their initiator learns of completion only by polling): each opens or
// joins a bundle toward its peer, which leaves when it is full, when a
// joining request finds it older than kMaxHold, when any other message goes
// to that peer, and at the start of every poll (every wait polls). The
// first of a burst and a lone request leave at once, so a round trip is the
// same message at the same time; a flood of fetch-adds costs one send per
// bundle instead of one per request.
//
// Receive buffers are posted ahead. A completed receive is queued by lane
// and a replacement is posted at once, before its handler runs; the buffer
// is posted again once the handler returns. Flow control is core's: request
// credits bound what a peer may have in flight toward us, and replies and
// credit messages are bounded by our own requests, so the receive pool only
// grows to what that allows.
#pragma once

#include <rdma/fi_eq.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "transport/ofi/fabric.hpp"
#include "transport/transport.hpp"

namespace gexx::transport::ofi {

class AmChannel final : public CompletionSink {
 public:
  static constexpr size_t kMaxMedium = 65536;
  static constexpr size_t kHeaderBytes = 32;
  static constexpr size_t kMaxArgBytes = 64;
  static constexpr size_t kBufferBytes = kHeaderBytes + kMaxArgBytes + kMaxMedium;
  // Messages up to this size bundle (a send saved is worth more than the
  // copy into the bundle up to there: 5-10 us of system time against
  // 1-4 us); a bundle holds what fits one buffer. (At 16 KiB a burst of
  // VIS puts of 16 KiB of 64-byte pieces, each message just past 16 KiB,
  // left one send each: 460-980 MiB/s over net against 1200-1900 for 8 KiB
  // puts; bundled, 1180-2350.)
  static constexpr size_t kBundleItemMax = 32768;
  static constexpr uint8_t kMore = 0x80;  // another message follows this one
  static_assert((kMore & wire::kTransportFlags) == kMore);

  // Limits: sends in flight in all (GASNET_NETWORKDEPTH_TOTAL) and toward
  // one peer (GASNET_NETWORKDEPTH_PP); messages up to `inline_limit` bytes
  // are injected (copied by the provider at once).
  struct Limits {
    size_t depth_total;
    uint32_t depth_per_peer;
    size_t inline_limit;
    size_t direct_min;  // payloads from this size are sent from the caller's memory
  };
  // Incoming messages go to `sink`.
  AmChannel(Fabric &fabric, uint32_t ranks, const Limits &limits, AmSink &sink);
  ~AmChannel();

  Result reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload, AmSlot &slot);
  void commit(AmSlot &slot, const AmHeader &h, const int32_t *args);
  // reserve, the payload into the message and commit in one call
  // (Transport::am_send); a large payload is sent from `payload` itself.
  Result send(uint32_t peer, AmLane lane, const AmHeader &h, const int32_t *args,
              const void *payload, size_t nbytes);
  // keep_young_bursts (Transport::poll_in_test): a bundle of held requests
  // younger than util::kBurstGap stays held, and nothing is read within
  // util::kTestPollGap of the previous poll.
  bool poll(bool replies_only, bool keep_young_bursts = false);
  // Messages posted so far (a bundle counts once): the exit note's figure.
  uint64_t sends() const { return sends_; }
  // Sends free their buffers; receives are queued and replaced.
  void completed(OpContext *op, const fi_cq_msg_entry &entry) override;

 private:
  struct Buffer : OpContext {
    Buffer *next = nullptr;
    void *desc = nullptr;
    uint32_t peer = 0;  // a send's destination
    bool recv = false;
    bool sent = false;      // a send's completion has been read
    uint32_t len = 0;       // an open bundle's bytes
    uint32_t last = 0;      // where its last message starts
    bool requests = false;  // an open bundle of requests (else of replies)
    uint64_t opened = 0;    // a request bundle's poll_clock() when it opened
    alignas(64) char data[kBufferBytes];
  };
  struct Chunk;
  struct Arrival {
    Buffer *buf;
    size_t len;
  };
  static size_t payload_offset(unsigned nargs) {
    return kHeaderBytes + (nargs * sizeof(int32_t) + 15) / 16 * 16;
  }
  Buffer *grow(bool recv);  // a new chunk; returns one buffer of it
  Buffer *take(Buffer *&list, bool recv);
  void post_recv(Buffer *b);
  // Room for one more send toward `peer`, after one progress call if needed.
  bool room(uint32_t peer);
  // Writes the header and arguments at the start of `b`; returns their length.
  size_t write_head(Buffer *b, const AmHeader &h, const int32_t *args);
  // Delivers every message of the arrival; returns how many.
  int deliver(Arrival a);
  // Posts the `len` bytes at the start of `b` to `peer`; `b` goes back to
  // the pool now (injected) or on its completion.
  void post(Buffer *b, uint32_t peer, size_t len);
  // Adds the message in `b` (`len` bytes; a request or a reply, as
  // `requests` says) to `peer`'s open bundle of that kind, sending one of
  // the other kind first: true if it was taken (and `b` is the bundle's or
  // back in the pool).
  bool bundle(Buffer *b, uint32_t peer, size_t len, bool requests);
  // A deferrable request: true if it joined or opened a bundle (see above).
  bool hold(Buffer *b, uint32_t peer, size_t len);
  void send_bundle(uint32_t peer);
  // Sends every open bundle; with keep_young, not a request bundle opened
  // less than util::kBurstGap ago.
  void flush_bundles(bool keep_young = false);

  Fabric &fabric_;
  AmSink &sink_;
  Limits limits_;
  std::vector<uint32_t> in_flight_;  // sends by peer, awaiting completion
  std::vector<std::unique_ptr<Chunk>> chunks_;
  Buffer *free_send_ = nullptr;
  Buffer *free_recv_ = nullptr;
  size_t send_buffers_ = 0;
  uint64_t sends_ = 0;      // messages posted (poll: did a handler reply?)
  uint64_t last_poll_ = 0;  // poll_clock() at the last poll
  std::deque<Arrival> requests_, replies_;
  int batching_ = 0;               // delivery loops running (replies bundle)
  std::vector<Buffer *> bundles_;  // open bundle by destination
  std::vector<uint32_t> bundled_;  // destinations with an open bundle
};

}  // namespace gexx::transport::ofi
