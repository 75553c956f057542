// The AM engine's credit accounting, on a fake transport that records what
// the engine sends and lets the test play the peer (Engine::deliver).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/am.hpp"
#include "core/handlers.hpp"
#include "transport/transport.hpp"

namespace am = gexx::core::am;
namespace tp = gexx::transport;

namespace {

struct Sent {
  uint32_t peer;
  tp::AmLane lane;
  tp::AmHeader h;
  std::vector<int32_t> args;
};

// Carries nothing: every message is recorded, none arrives (poll finds
// nothing), and no segment is mapped. `room` false: the queues are full.
class FakeTransport final : public tp::Transport {
 public:
  explicit FakeTransport(uint32_t ranks) : segs_(ranks) { caps_.max_medium = 1024; }
  std::vector<Sent> sent;
  bool room = true;
  tp::Capabilities caps_;

  const char *name() const override { return "fake"; }
  const tp::Capabilities &capabilities() const override { return caps_; }
  uint64_t max_segment_size() const override { return 0; }
  void attach_segment(uint64_t) override {}
  const tp::PeerSegment &segment(uint32_t rank) const override { return segs_[rank]; }
  void *host_area() const override { return nullptr; }
  Locality locality() const override { return {}; }
  uint32_t ranks_on_host() const override { return 1; }
  bool job_in_host_area() const override { return false; }
  bool oversubscribed() const override { return false; }
  tp::Result am_reserve(uint32_t peer, tp::AmLane lane, unsigned, size_t payload,
                        tp::AmSlot &slot) override {
    if (!room) return tp::Result::retry;
    buffer_.assign(payload, 0);
    slot.payload = buffer_.data();
    slot.capacity = payload;
    slot.peer = peer;
    slot.lane = lane;
    return tp::Result::done;
  }
  void am_commit(tp::AmSlot &slot, const tp::AmHeader &h, const int32_t *args) override {
    sent.push_back({slot.peer, slot.lane, h, std::vector<int32_t>(args, args + h.nargs)});
  }
  bool poll(bool) override { return false; }
  void am_set_concurrent(bool) override {}
  tp::Result rma_put(uint32_t, uint64_t, const void *, size_t, tp::RmaCompletion &,
                     tp::PutSource) override {
    ADD_FAILURE() << "rma_put";
    return tp::Result::done;
  }
  void rma_get(void *, uint32_t, uint64_t, size_t, tp::RmaCompletion &) override {
    ADD_FAILURE() << "rma_get";
  }
  std::string segment_limits() const override { return "none"; }
  std::string describe() const override { return "fake"; }

 private:
  std::vector<tp::PeerSegment> segs_;
  std::vector<char> buffer_;
};

struct NoSegments final : am::Segments {
  char *locate(const char *, uint32_t, const void *, size_t) override { return nullptr; }
};

constexpr gex_AM_Index_t kSilent = 200;   // a request handler that sends no reply
constexpr gex_AM_Index_t kReplies = 201;  // one that replies (kReplyHandler)
constexpr gex_AM_Index_t kReplyHandler = 202;

am::Engine *g_engine = nullptr;
int g_ran = 0;

void silent(gex_Token_t) {
  ++g_ran;
}
void replies(gex_Token_t token) {
  ++g_ran;
  am::Message m{"test reply",  am::kShort, kReplyHandler, 0, nullptr, nullptr, 0, nullptr,
                GEX_EVENT_NOW, 0};
  g_engine->reply(token, m);
}
void on_reply(gex_Token_t) {
  ++g_ran;
}

class Credits : public ::testing::Test {
 protected:
  static am::Limits limits(uint32_t per_peer, uint32_t slack) {
    am::Limits l;
    l.rank = 0;
    l.size = 3;
    l.max_medium = 1024;
    l.max_long = 1 << 20;
    l.credits_per_peer = per_peer;
    l.slack = slack;
    return l;
  }
  void start(uint32_t per_peer, uint32_t slack) {
    gex_AM_Entry_t entries[3] = {
        {kSilent, reinterpret_cast<gex_AM_Fn_t>(silent), GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0,
         nullptr, "silent"},
        {kReplies, reinterpret_cast<gex_AM_Fn_t>(replies), GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT,
         0, nullptr, "replies"},
        {kReplyHandler, reinterpret_cast<gex_AM_Fn_t>(on_reply),
         GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, nullptr, "on_reply"},
    };
    ASSERT_EQ(handlers_.register_ex(entries, 3), "");
    engine_ =
        std::make_unique<am::Engine>(transport_, handlers_, segments_, limits(per_peer, slack));
    g_engine = engine_.get();
    g_ran = 0;
  }
  void TearDown() override { g_engine = nullptr; }

  // A Short request to `rank`; 0 sent, 1 refused (GEX_FLAG_IMMEDIATE only).
  int request(uint32_t rank, gex_Flags_t flags = GEX_FLAG_IMMEDIATE) {
    am::Message m{"test request", am::kShort,    kSilent, 0, nullptr, nullptr, 0,
                  nullptr,        GEX_EVENT_NOW, flags};
    return engine_->request(rank, m);
  }
  // The peer `src` sends us a message.
  void arrive(uint32_t src, uint8_t kind, gex_AM_Index_t handler, uint32_t credits) {
    tp::AmHeader h;
    h.kind = kind;
    h.category = am::kShort;
    h.handler = handler;
    h.src = src;
    h.credits = credits;
    engine_->deliver(h, nullptr, nullptr);
  }

  FakeTransport transport_{3};
  gexx::core::HandlerTable handlers_;
  NoSegments segments_;
  std::unique_ptr<am::Engine> engine_;
};

}  // namespace

TEST_F(Credits, EachRequestTakesACreditAndTheReplyReturnsIt) {
  start(3, 2);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(request(1), 0) << "request " << i;
  EXPECT_EQ(request(1), 1) << "a 4th request with 3 credits";
  EXPECT_EQ(request(2), 0) << "credits are per peer";
  EXPECT_EQ(transport_.sent.size(), 4u);
  for (const Sent &s : transport_.sent) {
    EXPECT_EQ(s.h.kind, am::kRequest);
    EXPECT_EQ(s.lane, tp::AmLane::Request);
    EXPECT_EQ(s.h.credits, 0u) << "nothing banked yet";
  }
  arrive(1, am::kReply, kReplyHandler, 1);  // one reply: one credit back
  EXPECT_EQ(g_ran, 1);
  EXPECT_EQ(request(1), 0);
  EXPECT_EQ(request(1), 1);
  arrive(1, am::kCredit, 0, 3);  // a credit-only message runs no handler
  EXPECT_EQ(g_ran, 1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(request(1), 0);
  EXPECT_EQ(request(1), 1);
}

TEST_F(Credits, UnrepliedRequestsAreBankedAndReturnedAtTheSlack) {
  start(8, 3);
  arrive(1, am::kRequest, kSilent, 0);
  arrive(1, am::kRequest, kSilent, 0);
  EXPECT_EQ(g_ran, 2);
  EXPECT_TRUE(transport_.sent.empty()) << "2 banked, below the slack of 3";
  arrive(1, am::kRequest, kSilent, 0);
  ASSERT_EQ(transport_.sent.size(), 1u) << "the hidden reply";
  const Sent &hidden = transport_.sent[0];
  EXPECT_EQ(hidden.peer, 1u);
  EXPECT_EQ(hidden.lane, tp::AmLane::Reply);
  EXPECT_EQ(hidden.h.kind, am::kCredit);
  EXPECT_EQ(hidden.h.credits, 3u);
  EXPECT_EQ(hidden.h.src, 0u);
  // The bank is empty again: the next message toward 1 carries nothing.
  EXPECT_EQ(request(1), 0);
  EXPECT_EQ(transport_.sent.back().h.credits, 0u);
}

TEST_F(Credits, BankedCreditsRideOnTheNextRequest) {
  start(8, 4);
  arrive(2, am::kRequest, kSilent, 0);
  arrive(2, am::kRequest, kSilent, 0);
  EXPECT_TRUE(transport_.sent.empty());
  EXPECT_EQ(request(1), 0);
  EXPECT_EQ(transport_.sent.back().h.credits, 0u) << "banked toward 2, not 1";
  EXPECT_EQ(request(2), 0);
  EXPECT_EQ(transport_.sent.back().h.credits, 2u);
  EXPECT_EQ(request(2), 0);
  EXPECT_EQ(transport_.sent.back().h.credits, 0u);
}

TEST_F(Credits, AReplyReturnsItsOwnCreditAndTheBank) {
  start(8, 4);
  arrive(1, am::kRequest, kSilent, 0);
  arrive(1, am::kRequest, kSilent, 0);
  arrive(1, am::kRequest, kReplies, 0);
  EXPECT_EQ(g_ran, 3);
  ASSERT_EQ(transport_.sent.size(), 1u);
  const Sent &reply = transport_.sent[0];
  EXPECT_EQ(reply.h.kind, am::kReply);
  EXPECT_EQ(reply.lane, tp::AmLane::Reply);
  EXPECT_EQ(reply.h.handler, kReplyHandler);
  EXPECT_EQ(reply.h.credits, 3u) << "its own and the 2 banked";
  // A replied request is not banked: two more silent ones stay below the slack.
  arrive(1, am::kRequest, kSilent, 0);
  arrive(1, am::kRequest, kSilent, 0);
  arrive(1, am::kRequest, kSilent, 0);
  EXPECT_EQ(transport_.sent.size(), 1u);
  arrive(1, am::kRequest, kSilent, 0);
  ASSERT_EQ(transport_.sent.size(), 2u);
  EXPECT_EQ(transport_.sent[1].h.kind, am::kCredit);
  EXPECT_EQ(transport_.sent[1].h.credits, 4u);
}

TEST_F(Credits, ARefusedRequestKeepsItsCreditAndTheBank) {
  start(2, 2);
  arrive(1, am::kRequest, kSilent, 0);  // one banked toward 1
  transport_.room = false;
  EXPECT_EQ(request(1), 1) << "no queue room with GEX_FLAG_IMMEDIATE";
  transport_.room = true;
  EXPECT_EQ(request(1), 0);
  EXPECT_EQ(transport_.sent.back().h.credits, 1u) << "the bank survived the refusal";
  EXPECT_EQ(request(1), 0) << "and so did the credit";
  EXPECT_EQ(request(1), 1);
}

// A request to oneself runs its handler, and the reply's, inside the call:
// nothing reaches the transport, no credit is taken and none is banked.
TEST_F(Credits, ARequestToOneselfRunsInItsCallAndTakesNoCredit) {
  start(1, 1);
  am::Message m{"test request", am::kShort,    kReplies,          0, nullptr, nullptr, 0,
                nullptr,        GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE};
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(engine_->request(0, m), 0);
    EXPECT_EQ(g_ran, 2 * i) << "the request handler and its reply ran before the call returned";
  }
  EXPECT_EQ(request(0), 0);
  EXPECT_EQ(g_ran, 11) << "a handler that sends no reply";
  EXPECT_TRUE(transport_.sent.empty()) << "no message, no hidden reply";
  EXPECT_EQ(request(1), 0) << "credits toward the others untouched";
  EXPECT_EQ(request(1), 1);
}

TEST(AmLimits, SlackAndCreditsMustFitTheWire) {
  am::Limits l;
  l.credits_per_peer = 256;
  l.slack = 64;
  EXPECT_EQ(l.problem(), "");
  l.wire_credit_max = UINT16_MAX;
  EXPECT_EQ(l.problem(), "");
  l.wire_credit_max = 63;
  EXPECT_NE(l.problem().find("GASNET_AM_CREDITS_SLACK=64: this conduit's AM header carries at "
                             "most 63 credits"),
            std::string::npos)
      << l.problem();
  l.wire_credit_max = 100;
  EXPECT_NE(l.problem().find("256 AM credits per peer"), std::string::npos) << l.problem();
  l.wire_credit_max = 256;
  EXPECT_EQ(l.problem(), "") << "a reply returns at most all of a peer's credits";
  l.slack = 300;
  EXPECT_NE(l.problem().find("GASNET_AM_CREDITS_SLACK=300 must be from 1"), std::string::npos);
}

TEST(AmLimitsDeathTest, AnEngineRefusesLimitsTheWireCannotCarry) {
  FakeTransport t(2);
  gexx::core::HandlerTable handlers;
  NoSegments segments;
  am::Limits l;
  l.size = 2;
  l.credits_per_peer = 70000;
  l.slack = 64;
  l.wire_credit_max = UINT16_MAX;
  EXPECT_DEATH(am::Engine(t, handlers, segments, l),
               "70000 AM credits per peer .*at most 65535 credits in one message");
}
