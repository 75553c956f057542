// Atomic domains: creation, the misuse messages, and the active-message path
// (a request the target performs with atomics::apply, a reply carrying the
// prior value back).
#include "atomics/domain.hpp"

#include <string>

#include "core/am.hpp"
#include "core/handlers.hpp"
#include "util/config.hpp"
#include "util/gex_names.hpp"
#include "util/log.hpp"
#include "util/strings.hpp"

namespace gexx::atomics {

namespace {

constexpr gex_DT_t kTypeBits[kTypes] = {GEX_DT_I32, GEX_DT_U32, GEX_DT_I64,
                                        GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL};
constexpr size_t kTypeSize[kTypes] = {4, 4, 8, 8, 4, 8};
// The largest job for which a sub-team's domain keeps a table by job rank
// (24 bytes a rank; larger jobs take the general path for job ranks).
constexpr gex_Rank_t kByJobMax = 65536;

// "GEX_OP_ADD|GEX_OP_FADD", or "none".
std::string op_set_name(gex_OP_t ops) {
  return util::op_set_name(ops, "none");
}

// The internal AM pair. Request arguments: target address (2), operand1 (2),
// operand2 (2), code (operation bit index | type << 8), result pointer (2),
// completion (2). Reply arguments: result pointer (2), completion (2), prior
// value (2), code.
constexpr unsigned kRequestArgs = 11, kReplyArgs = 7;

using core::am::join_arg;
using core::am::split_arg;

template <typename T>
uint64_t apply_bits(uint64_t addr, gex_OP_t op, uint64_t a, uint64_t b) {
  T ta, tb;
  std::memcpy(&ta, &a, sizeof(T));
  std::memcpy(&tb, &b, sizeof(T));
  return to_bits(apply(reinterpret_cast<T *>(addr), op, ta, tb));
}

uint64_t apply_coded(uint32_t code, uint64_t addr, uint64_t a, uint64_t b) {
  gex_OP_t op = static_cast<gex_OP_t>(1u) << (code & 0xff);
  switch (static_cast<Type>(code >> 8)) {
    case Type::kI32:
      return apply_bits<int32_t>(addr, op, a, b);
    case Type::kU32:
      return apply_bits<uint32_t>(addr, op, a, b);
    case Type::kI64:
      return apply_bits<int64_t>(addr, op, a, b);
    case Type::kU64:
      return apply_bits<uint64_t>(addr, op, a, b);
    case Type::kFlt:
      return apply_bits<float>(addr, op, a, b);
    case Type::kDbl:
      return apply_bits<double>(addr, op, a, b);
  }
  util::fatal("remote atomic: a request from another rank carries type code %u", code >> 8);
}

void request_handler(gex_Token_t token, gex_AM_Arg_t addr_lo, gex_AM_Arg_t addr_hi,
                     gex_AM_Arg_t a_lo, gex_AM_Arg_t a_hi, gex_AM_Arg_t b_lo, gex_AM_Arg_t b_hi,
                     gex_AM_Arg_t code, gex_AM_Arg_t res_lo, gex_AM_Arg_t res_hi,
                     gex_AM_Arg_t done_lo, gex_AM_Arg_t done_hi) {
  uint64_t old = apply_coded(static_cast<uint32_t>(code), join_arg(addr_lo, addr_hi),
                             join_arg(a_lo, a_hi), join_arg(b_lo, b_hi));
  gex_AM_Arg_t args[kReplyArgs] = {res_lo, res_hi, done_lo, done_hi, 0, 0, code};
  split_arg(old, args + 4);
  core::am::Message m =
      core::am::internal_message("a remote atomic (the target's reply)", core::am::kShort,
                                 core::kAtomicReplyHandler, kReplyArgs, args);
  core::Runtime::get(m.api).am().internal_reply(token, m);
}

void reply_handler(gex_Token_t, gex_AM_Arg_t res_lo, gex_AM_Arg_t res_hi, gex_AM_Arg_t done_lo,
                   gex_AM_Arg_t done_hi, gex_AM_Arg_t v_lo, gex_AM_Arg_t v_hi, gex_AM_Arg_t code) {
  auto *done = reinterpret_cast<transport::RmaCompletion *>(join_arg(done_lo, done_hi));
  // Pairs with the initiator's release in send(): what it wrote before the
  // request (the counter itself, the result buffer) happens before what this
  // thread writes now, in this process's terms. The chain through the
  // target is another process, which a checker such as TSan cannot follow.
  (void)done->pending.load(std::memory_order_acquire);
  if (void *result = reinterpret_cast<void *>(join_arg(res_lo, res_hi))) {
    uint64_t value = join_arg(v_lo, v_hi);
    unsigned type = static_cast<uint32_t>(code) >> 8;
    std::memcpy(result, &value, kTypeSize[type < kTypes ? type : 0]);
  }
  done->pending.fetch_sub(1, std::memory_order_release);  // its last use here
}

}  // namespace

void register_handlers(core::HandlerTable &handlers) {
  handlers.register_internal(
      core::kAtomicRequestHandler, reinterpret_cast<gex_AM_Fn_t>(&request_handler),
      GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, kRequestArgs, "remote atomic request");
  handlers.register_internal(
      core::kAtomicReplyHandler, reinterpret_cast<gex_AM_Fn_t>(&reply_handler),
      GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, kReplyArgs, "remote atomic reply");
}

const char *op_name(gex_OP_t op) {
  const char *name = util::op_name(op);
  return name ? name : "an unknown operation";
}

const char *type_name(gex_DT_t dt) {
  const char *name = util::dt_name(dt);
  return name ? name : "an unknown type";
}

void create(const char *api, gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
            gex_Flags_t flags) {
  core::Runtime &rt = core::Runtime::get(api);
  if (!ad_p) util::fatal("%s: ad_p is null; it must point to where the new domain goes", api);
  if (!tm) util::fatal("%s: the team argument is invalid (null)", api);
  unsigned type = kTypes;
  for (unsigned t = 0; t < kTypes; ++t)
    if (dt == kTypeBits[t]) type = t;
  if (type == kTypes) {
    util::fatal(
        "%s: dt 0x%x (%s) is not a type gexx's atomic domains support: pass exactly one of "
        "GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL",
        api, dt, type_name(dt));
  }
  Type t = static_cast<Type>(type);
  if (ops & (GEX_OP_USER | GEX_OP_USER_NC)) {
    util::fatal("%s: ops include %s: user-defined operations are not implemented in gexx", api,
                op_set_name(ops & (GEX_OP_USER | GEX_OP_USER_NC)).c_str());
  }
  if (gex_OP_t extra = ops & ~ops_of(t)) {
    if (!is_integer(t) && (extra & ~(kBitwiseOps | GEX_OP_TO_FETCHING(kBitwiseOps))) == 0) {
      util::fatal(
          "%s: ops include %s for %s: bitwise operations (AND, OR, XOR and their fetching "
          "forms) are defined on integer types only",
          api, op_set_name(extra).c_str(), type_name(kTypeBits[type]));
    }
    util::fatal("%s: ops 0x%x include bits that name no operation (0x%x)", api, ops, extra);
  }
  if (!rt.attached()) util::fatal("%s: called before the segment is attached", api);
  auto *ad = new gexx_ad_s;
  ad->tm = tm;
  ad->dt = dt;
  ad->head.ops = ops;
  ad->flags = flags;
  ad->type = t;
  // The path: the same on every member (the knob must agree, the transport's
  // capabilities are the same everywhere, and mapping is symmetric).
  std::string knob = config::get_string("GASNET_AD_PATH");
  gex_Rank_t mapped = 0, size = tm->team.size();
  for (gex_Rank_t r = 0; r < size; ++r)
    if (rt.transport().segment(tm->team.to_job(r)).local) ++mapped;
  const transport::Capabilities &caps = rt.transport().capabilities();
  bool native = (ops & ~caps.atomic_ops[type]) == 0;
  using Path = gexx_ad_s::Path;
  if (knob == "am") {
    ad->path = Path::kAllAm;
  } else if (mapped == size) {
    ad->path = Path::kCpu;
  } else if (native && knob != "cpu-am") {
    ad->path = Path::kNative;
  } else {
    ad->path = Path::kAm;
  }
  if (ad->path == Path::kCpu || ad->path == Path::kAm) {
    // What the inline check (direct) reads: every member's segment, by team
    // rank, with the last offset where a word of this type fits.
    auto *direct = new gexx_ad_direct[size];
    for (gex_Rank_t r = 0; r < size; ++r) {
      const transport::PeerSegment &seg = rt.transport().segment(tm->team.to_job(r));
      gexx_ad_direct &d = direct[r];
      d = gexx_ad_direct{seg.owner_base, 0, nullptr};
      if (seg.local && seg.size >= kTypeSize[type]) {
        d.limit = seg.size - kTypeSize[type];
        d.local = seg.local;
      }
    }
    ad->head.direct = direct;
    ad->head.direct_size = size;
    // By job rank (GEX_FLAG_RANK_IS_JOBRANK, on every UPC++ operation): the
    // same table for the job's team; for a smaller team one entry per job
    // rank, non-members unmapped (the general path names them), unless the
    // job is too large for a table per domain (then the general path).
    const gex_Rank_t job = rt.size();
    if (tm->team.shape() == core::Team::Shape::Identity) {
      ad->head.by_job = direct;
      ad->head.by_job_size = size;
    } else if (job <= kByJobMax) {
      auto *by_job = new gexx_ad_direct[job];
      for (gex_Rank_t j = 0; j < job; ++j) by_job[j] = gexx_ad_direct{0, 0, nullptr};
      for (gex_Rank_t r = 0; r < size; ++r) by_job[tm->team.to_job(r)] = direct[r];
      ad->head.by_job = by_job;
      ad->head.by_job_size = job;
    }
  }
  ad->live = kLiveDomain;
  ad->head.key = kLiveDomain ^ dt;
  if (util::verbose() && tm->team.rank() == 0) {
    const char *how = "";
    switch (ad->path) {
      case Path::kAllAm:
        how = "every operation as an active message (GASNET_AD_PATH=am)";
        break;
      case Path::kCpu:
        how = "cpu atomics: every member's segment is mapped here";
        break;
      case Path::kNative:
        how = "the network's native atomics for every member";
        break;
      case Path::kAm:
        how =
            "cpu atomics toward members mapped here, active messages performed by the "
            "target toward the others";
        break;
    }
    util::note("atomic domain (%s, ops %s): %u of %u members mapped here; %s",
               type_name(kTypeBits[type]), op_set_name(ops).c_str(), mapped, size, how);
  }
  // No synchronisation: the handlers were registered at start-up and a
  // request names no domain, so a member may use its domain at once, before
  // the others have created theirs (as GASNet's; UPC++ relies on it).
  *ad_p = ad;
}

gex_AD_t checked(const char *api, gex_AD_t ad) {
  if (!ad || ad->live != kLiveDomain) {
    util::fatal("%s: the atomic domain argument is %s", api,
                ad ? "not a live domain (destroyed already?)" : "invalid (null)");
  }
  return ad;
}

void destroy(const char *api, gex_AD_t ad) {
  checked(api, ad);
  ad->live = 0;
  ad->head.key = 0;
  if (ad->head.by_job != ad->head.direct) delete[] ad->head.by_job;
  delete[] ad->head.direct;
  delete ad;
}

void bad_domain(const char *api, gex_AD_t ad, gex_DT_t called_for) {
  checked(api, ad);
  util::fatal(
      "%s: the domain was created for %s, but this call is for %s: use the gex_AD_Op*_<T> "
      "whose T is the domain's type",
      api, type_name(ad->dt), type_name(called_for));
}

void bad_op(const char *api, gex_AD_t ad, gex_OP_t op) {
  if (op == 0 || (op & (op - 1))) {
    util::fatal("%s: opcode 0x%x (%s) is not one operation: pass exactly one GEX_OP_*", api, op,
                op_set_name(op).c_str());
  }
  if (!is_integer(ad->type) && (op & (kBitwiseOps | GEX_OP_TO_FETCHING(kBitwiseOps)))) {
    util::fatal(
        "%s: opcode %s (0x%x) is a bitwise operation and the domain's type is %s: bitwise "
        "operations (AND, OR, XOR and their fetching forms) are defined on integer types only",
        api, op_name(op), op, type_name(ad->dt));
  }
  util::fatal(
      "%s: opcode %s (0x%x) is not in the domain's operation set (%s): a domain performs only "
      "the operations it was created with",
      api, op_name(op), op, op_set_name(ad->head.ops).c_str());
}

void misaligned(const char *api, const void *addr, size_t size) {
  util::fatal("%s: target address %p is not aligned to %zu bytes, the size of the domain's type",
              api, addr, size);
}

void no_result(const char *api, gex_OP_t op) {
  util::fatal("%s: result_p is null, but %s fetches a value: pass where it goes", api, op_name(op));
}

void not_my_rank(const char *api, gex_Rank_t jr, gex_Flags_t) {
  util::fatal(
      "%s: GEX_FLAG_AD_MY_RANK was given, but the target is job rank %u, not this rank: the "
      "flag promises the target is the caller",
      api, jr);
}

int send(const char *api, const gex_AD_t ad, gex_Rank_t jr, void *addr, gex_OP_t op, uint64_t a,
         uint64_t b, void *result, transport::RmaCompletion &done, gex_Flags_t flags,
         bool deferrable) {
  if (ad->path == gexx_ad_s::Path::kNative) {
    if (flags & GEX_FLAG_AD_REL) std::atomic_thread_fence(std::memory_order_seq_cst);
    core::Runtime::get(api).transport().atomic(
        jr, reinterpret_cast<uint64_t>(addr),
        static_cast<transport::Capabilities::AtomicType>(ad->type), op, a, b,
        fetches(op) ? result : nullptr, done);
    return 0;
  }
  gex_AM_Arg_t args[kRequestArgs];
  split_arg(reinterpret_cast<uint64_t>(addr), args);
  split_arg(a, args + 2);
  split_arg(b, args + 4);
  args[6] = static_cast<gex_AM_Arg_t>(static_cast<uint32_t>(__builtin_ctz(op)) |
                                      (static_cast<uint32_t>(ad->type) << 8));
  split_arg(reinterpret_cast<uint64_t>(result), args + 7);
  split_arg(reinterpret_cast<uint64_t>(&done), args + 9);
  core::am::Message m = core::am::internal_message(api, core::am::kShort,
                                                   core::kAtomicRequestHandler, kRequestArgs, args);
  m.flags = flags & GEX_FLAG_IMMEDIATE;
  m.deferrable = deferrable;
  if (flags & GEX_FLAG_AD_REL) std::atomic_thread_fence(std::memory_order_seq_cst);
  done.pending.fetch_add(1, std::memory_order_release);  // see reply_handler
  if (core::Runtime::get(api).am().internal_request(jr, m) != 0) {
    done.pending.fetch_sub(1, std::memory_order_relaxed);
    return 1;
  }
  return 0;
}

}  // namespace gexx::atomics

namespace gexx::transport {
void no_native_atomics(const char *transport) {
  util::fatal("the %s transport was asked for a native remote atomic, which it does not offer",
              transport);
}
}  // namespace gexx::transport
