// The udp conduit's network transport: active messages and RMA over UDP
// datagrams, made reliable here. One socket per rank; every peer's traffic
// toward us is two streams, each numbered and delivered in order:
//
//   stream 0  AM requests,
//   stream 1  everything else (AM replies and credits, puts, gets and the
//             data they return),
//
// so a poll that may deliver replies only (core's, inside a handler) is
// never held up behind a request: one read in such a poll is copied aside
// and delivered by the next full poll (the stash).
//
// Reliability: the sender keeps every datagram until the receiver's
// cumulative acknowledgement covers it, in a window per stream (packets and
// bytes in flight). Acknowledgements ride on every datagram toward the
// peer; one of its own goes out at once after kAckEvery datagrams or when
// the sender asked (kAckNow: the last datagram of a put alone in its
// stream, the datagram that fills half the window), and when a poll ends
// owing one for long enough (kAckDelay) or asked for by then (kAckSoon:
// the last datagram of a put in a burst). A datagram that arrives ahead of
// the one expected is kept aside (a copy, in the stream's reorder
// list) and answered with a negative acknowledgement naming the one
// missing, which the sender sends again at once; the kept ones follow it in
// order. A stream with nothing acknowledged for its retransmission timeout
// (doubling up to kRtoMax) sends its oldest datagram again. Datagrams carry
// the job's key: a stray datagram (another job, another user on the host)
// is dropped unread.
//
// Bundles: an AM committed while its stream has a datagram not yet sent
// (the window is full, or the datagram is held) joins that datagram when
// both are small enough (records of up to kBundleItem bytes, in one
// datagram of at most kMaxDatagram), so a flood costs one system call per
// datagram rather than per message. A request core marks deferrable
// (wire::kDeferrable: part of a burst, core/burst.hpp) is held: it opens a
// datagram that waits for more of the burst and leaves at the next poll,
// when another message goes to that peer, when it is full, or when a
// request joins it more than util::kBurstHold after it opened.
//
// RMA: a put travels as datagrams of up to kChunk bytes written into the
// target's segment as they arrive, and completes when acknowledged (the
// acknowledgement follows the write). A get is one request; the target
// answers with datagrams sent from its segment, written at the initiator's
// destination; it completes with the last byte. Puts up to the copy limit
// are copied into the datagrams (the source is free at once); larger ones,
// and those whose source is stable (PutSource), are sent from the source
// (posted: busy until acknowledged).
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "transport/transport.hpp"

namespace gexx::bootstrap {
class Bootstrap;
}

namespace gexx::transport::udp {

class Channel {
 public:
  // Largest datagram a UDP socket carries over IPv4.
  static constexpr size_t kMaxDatagram = 65507;
  static constexpr size_t kPacketHeader = 32;
  // AM Medium and packed Long payloads: at most this many bytes.
  static constexpr size_t kMaxMedium = 65000;
  // An RMA datagram's data: at most this many bytes.
  static constexpr size_t kChunk = 65024;
  // Largest AM that joins a bundle.
  static constexpr size_t kBundleItem = 32768;

  struct Limits {
    size_t window_bytes = 512 * 1024;  // per stream in flight
    size_t copy_put = 65536;           // puts copied into datagrams up to this size
    int socket_buffer = 4 << 20;       // SO_RCVBUF / SO_SNDBUF asked for
    uint64_t drop_every = 0;           // tests: drop every Nth datagram read (0: none)
    std::string worker_ip;             // GASNET_WORKERIP: the address (prefix) to publish
  };

  Channel(bootstrap::Bootstrap &boot, AmSink &sink, const Limits &limits);
  ~Channel();
  Channel(const Channel &) = delete;
  Channel &operator=(const Channel &) = delete;

  Result am_reserve(uint32_t peer, AmLane lane, unsigned nargs, size_t payload, AmSlot &slot);
  void am_commit(AmSlot &slot, const AmHeader &h, const int32_t *args);
  // keep_young_bursts (Transport::poll_in_test): a burst held for less
  // than util::kBurstGap stays held, and nothing is read within
  // util::kTestPollGap of the previous poll.
  bool poll(bool replies_only, bool keep_young_bursts = false);
  void set_concurrent(bool concurrent) { concurrent_ = concurrent; }
  Result rma_put(uint32_t peer, uint64_t remote, const void *src, size_t nbytes,
                 RmaCompletion &done, PutSource source);
  void rma_get(void *dest, uint32_t peer, uint64_t remote, size_t nbytes, RmaCompletion &done);
  void attach_segment(void *base, uint64_t size);
  // Before the rank leaves (gasnet_exit): sends what is queued and what it
  // owes, and polls until the peers have acknowledged every datagram, for
  // at most about 200 ms; then, verbose, says what its datagrams did.
  void drain();
  size_t copy_put() const { return limits_.copy_put; }
  // Where this rank's socket is and how large its buffers came out.
  std::string describe() const;

  // What this rank's datagrams did (drain() reports it, verbose).
  struct Stats {
    uint64_t sent = 0;        // data datagrams, first sends
    uint64_t resent = 0;      // data datagrams sent again
    uint64_t acks = 0;        // acknowledgements of their own
    uint64_t kept = 0;        // arrived ahead of their turn (kept in a reorder list)
    uint64_t dropped = 0;     // arrived too far ahead (dropped)
    uint64_t duplicates = 0;  // arrived again
    uint64_t strays = 0;      // not from this job
  };

 private:
  struct Out;
  struct Stream {
    uint32_t next_seq = 0;      // the number the next datagram gets
    uint32_t acked = 0;         // every datagram below it was received
    std::deque<Out *> queue;    // oldest first: sent and unacknowledged, then not yet sent
    size_t sent = 0;            // how many of `queue` have been sent
    size_t inflight_bytes = 0;  // their bytes
    uint64_t progress_at = 0;   // when `acked` last moved (or the window was empty)
    uint64_t rto = 0;           // retransmission timeout (clock units)
    uint64_t resend_at = 0;     // when we last sent the oldest again
    bool held = false;          // its unsent tail waits for more of a burst
    uint64_t held_at = 0;       // since when
  };
  struct Peer {
    sockaddr_in addr{};
    Stream out[2];
    uint32_t expect[2] = {0, 0};  // the next sequence number we take from them
    uint32_t owed = 0;            // datagrams taken since our last acknowledgement
    uint64_t owed_since = 0;
    bool ack_now = false;
    bool ack_soon = false;  // owed by the end of this poll (kAckSoon)
    bool owing = false;     // listed in owing_
    bool active = false;    // listed in active_
    bool gap = false;       // listed in gaps_
    uint64_t nack_at[2] = {0, 0};
    // Datagrams that arrived ahead of expect[s]: [i] is expect[s] + 1 + i
    // (empty where none came yet).
    std::deque<std::vector<char>> ahead[2];
  };
  struct GetOp {
    char *dest;
    size_t remaining;
    RmaCompletion *done;
  };

  using Lock = std::unique_lock<std::mutex>;
  Lock guard() { return concurrent_ ? Lock(mu_) : Lock(mu_, std::defer_lock); }

  Out *new_out(size_t body);
  void free_out(Out *o);
  void enqueue(uint32_t peer, int stream, Out *o);
  void transmit(uint32_t peer, int stream);
  // Adds an AM (an Out of op kAm) to the stream's unsent tail when it can
  // join it; true if it did (`o` is then freed).
  bool join_tail(Stream &s, Out *o);
  void release_held(uint32_t peer);
  bool send_datagram(uint32_t peer, Out *o);
  void send_ack(uint32_t peer, bool nack, int stream);
  void take_acks(uint32_t peer, const uint32_t ack[2]);
  void resend_oldest(uint32_t peer, int stream, uint64_t now, bool force);
  void timers(uint64_t now);
  // An AM or a bundle of AMs to run: the body of one datagram.
  struct Ams {
    char *body = nullptr;
    size_t len = 0;
    bool bundle = false;
  };
  // One datagram read from the socket; the AMs it brings for this poll to
  // run come back in `out` (true).
  bool receive(char *buf, size_t n, bool replies_only, uint64_t now, Ams &out);
  void apply(uint32_t peer, int stream, char *body, size_t len);
  void deliver(char *body, size_t len);
  // Runs every AM of `ams`, the lock dropped around each (concurrent), and
  // then sends the replies a bundle's handlers held; how many ran.
  int run(const Ams &ams, Lock &lock);
  // Sends every held burst; with keep_young, not one held for less than
  // util::kBurstGap.
  void release_all_held(bool keep_young = false);
  void backlog_wait(uint32_t peer, int stream, Lock &lock);
  char *recv_buffer(unsigned depth);

  bootstrap::Bootstrap &boot_;
  AmSink &sink_;
  Limits limits_;
  uint32_t rank_;
  uint64_t key_ = 0;
  int fd_ = -1;
  int rcvbuf_ = 0, sndbuf_ = 0;
  bool concurrent_ = false;
  std::mutex mu_;
  std::vector<Peer> peers_;
  std::vector<uint32_t> owing_;   // peers we owe an acknowledgement
  std::vector<uint32_t> active_;  // peers with datagrams queued toward them
  std::vector<uint32_t> gaps_;    // peers whose streams miss a datagram (ahead[] in use)
  struct Stashed {
    bool bundle;
    std::vector<char> body;
  };
  uint64_t last_poll_ = 0;               // cycle_clock() at the last poll's start
  std::deque<Stashed> stash_;            // requests read by a replies-only poll
  std::vector<uint32_t> held_;           // peers with a held stream
  std::deque<std::vector<char>> ready_;  // kept datagrams whose turn has come
  std::vector<Out *> free_small_, free_large_;
  char *seg_base_ = nullptr;
  uint64_t seg_size_ = 0;
  Stats stats_;
  uint64_t received_ = 0;  // datagrams read (GASNET_UDP_TEST_DROP counts them)
};

}  // namespace gexx::transport::udp
