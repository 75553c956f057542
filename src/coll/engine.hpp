// The collective engine of the EX collectives on any team: barrier,
// broadcast, reduce-to-one and reduce-to-all, non-blocking, many in flight
// on one team and on several.
//
// Every collective is an operation keyed by (team id, sequence number): a
// team's members call its collectives in the same order, so the n-th
// collective of a team has the same key on every member. Messages are AM
// Medium requests to one internal handler carrying the key, a slot (what
// part of the algorithm the message is), a byte offset and the payload.
// The handler only queues a copy (it never sends, blocks on the engine or
// runs client code); `advance` hands queued messages to their operation,
// keeps early ones (for an operation this rank has not started yet) aside,
// and lets every operation send what it can (requests go out with
// GEX_FLAG_IMMEDIATE: one that cannot leave now is retried on the next
// advance). Advance runs from every poll while operations are pending
// (core/progress.hpp's hook), and from the events' test and wait.
//
// Algorithms (docs/collectives.md): dissemination barrier; binomial-tree
// broadcast pipelined in Medium-sized pieces; binomial-tree reduction to a
// root, combined and forwarded chunk by chunk; reduce-to-all is a reduction
// to team rank 0 and a broadcast from it.
#pragma once

#include <gasnet_coll.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "coll/reduce_ops.hpp"

namespace gexx::core {
class HandlerTable;
class Team;
namespace am {
class Engine;
}
}  // namespace gexx::core

namespace gexx::coll {

// One collective in flight (engine.cpp); the caller holds it until done.
class Op;
bool done(const Op &op);
using OpRef = std::shared_ptr<Op>;

// Registers the internal handler; before any poll (a peer may send first).
void open(core::am::Engine &engine, core::HandlerTable &handlers, bool concurrent);

// Initiate a collective over `team` (this process must be a member); `api`
// names the call in errors. They return a handle the caller waits on.
OpRef barrier(const char *api, core::Team &team);
OpRef broadcast(const char *api, core::Team &team, gex_Rank_t root, void *dst, const void *src,
                size_t nbytes);
// to_all: every member's dst gets the result (root is ignored).
OpRef reduce(const char *api, core::Team &team, bool to_all, gex_Rank_t root, void *dst,
             const void *src, const Reduction &red, size_t count);

// For the GASNet-1 collectives (legacy/gasnet1_coll.cpp), on a team whose
// members all share this host's memory (host_phase; every member finds the
// same answer): the data movements, each of `nbytes` blocks. `gate`, when
// set, is an operation of this rank (initiated before) that must complete
// before this one touches any memory; barrier(api, team, gate) likewise.
enum class Move : uint32_t {
  kBroadcast = 2,  // root's src to every dst
  kScatter = 5,    // root's src block r to rank r's dst
  kGather = 6,     // rank r's src to root's dst block r
  kGatherAll = 7,  // rank r's src to every dst's block r
  kExchange = 8,   // rank r's src block q to rank q's dst block r
  kFold = 9        // every rank's src, chunk by chunk, handed to the root's fold
};
// kFold: out = the combination of in[0..n) (one pointer per team rank),
// `bytes` bytes each (whole elements of the size given to host_move).
using Fold = std::function<void(char *out, const char *const *in, uint32_t n, size_t bytes)>;
bool host_phase(core::Team &team);
OpRef host_move(const char *api, core::Team &team, Move move, gex_Rank_t root, void *dst,
                const void *src, size_t nbytes, OpRef gate, Fold fold = {}, size_t elem = 1);
OpRef barrier(const char *api, core::Team &team, OpRef gate);

// Hands queued messages to their operations and lets each send what it can.
// Safe from any thread; a thread that finds another one advancing returns.
void advance();

// Waits (polling) until `op` completes.
void wait(const Op &op);

// The event of `h` for gex_Event_Test / gex_Event_Wait.
gex_Event_t event(OpRef op);

// A team is gone (gex_TM_Destroy): forgets its sequence numbers and hands
// back its shared-memory area.
void forget_team(core::Team &team);

// The host phase (host_area.hpp): the bytes of the host area it needs, and
// this process's mapping of them with, by job rank, whether that rank maps
// the same memory (the runtime calls this before any collective).
size_t host_area_size(uint32_t ranks);
void attach_host_area(void *area, uint32_t ranks, std::vector<uint8_t> shares);

// The next number of this process's team-id counter (ids are (job rank,
// counter) pairs: see capi/team.cpp).
uint32_t next_team_counter();

}  // namespace gexx::coll
