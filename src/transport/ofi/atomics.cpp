// Native remote atomics over libfabric (fi_atomic, fi_fetch_atomic,
// fi_compare_atomic) toward a word of a peer's registered segment. What the
// provider can do is asked per type and operation (fi_atomicvalid ...); an
// atomic domain uses this path only when every operation of its set is
// offered (atomics/domain.cpp). SUB, INC and DEC are FI_SUM of the negated
// operand, 1 and -1.
//
// Offered is not enough to be worth it: the Ethernet and shared-memory
// providers (tcp, net, sockets, udp, shm, and anything under a utility
// provider such as ofi_rxm) perform a "native" atomic in software at the
// target, behind a protocol of their own that is slower than one gexx AM
// request and its reply. Under GASNET_AD_PATH=auto only a provider whose
// atomics the hardware performs (cxi, verbs, efa, opx, with no utility
// layer) reports its operations; the others report none, so their domains
// take the AM path. GASNET_AD_PATH=native reports whatever the provider
// offers, but for shm: libfabric 1.17's shm answers every atomic as valid,
// yet concurrent fetch-adds from several ranks' threads fetch stale values
// (atomiccheck's shared-word test fails), so it never reports any.
#include <gasnet_fwd.h>
#include <rdma/fi_atomic.h>

#include <cstring>
#include <string>

#include "transport/ofi/rma.hpp"
#include "util/config.hpp"
#include "util/log.hpp"

namespace gexx::transport::ofi {

namespace {

constexpr fi_datatype kTypes[Capabilities::kAtomicTypes] = {FI_INT32,  FI_UINT32, FI_INT64,
                                                            FI_UINT64, FI_FLOAT,  FI_DOUBLE};
constexpr size_t kSizes[Capabilities::kAtomicTypes] = {4, 4, 8, 8, 4, 8};

enum class Kind { kPlain, kFetch, kCompare };

// FAND ... FDEC: the fetching form of an arithmetic or bitwise operation.
bool fetching_form(uint32_t op) {
  return op >= GEX_OP_FAND && op <= GEX_OP_FDEC;
}

struct Mapping {
  fi_op op;
  Kind kind;
};

// The libfabric operation behind one gex_OP_t bit; false for none.
bool map(uint32_t op, Mapping &m) {
  bool fetch = fetching_form(op);
  uint32_t base = fetch ? op >> GEXX_OP_FETCH_SHIFT : op;
  Kind k = fetch ? Kind::kFetch : Kind::kPlain;
  switch (base) {
    case GEX_OP_SET:
      m = {FI_ATOMIC_WRITE, Kind::kPlain};
      return true;
    case GEX_OP_GET:
      m = {FI_ATOMIC_READ, Kind::kFetch};
      return true;
    case GEX_OP_SWAP:
      m = {FI_ATOMIC_WRITE, Kind::kFetch};
      return true;
    case GEX_OP_CAS:
    case GEX_OP_FCAS:
      m = {FI_CSWAP, Kind::kCompare};
      return true;
    case GEX_OP_AND:
      m = {FI_BAND, k};
      return true;
    case GEX_OP_OR:
      m = {FI_BOR, k};
      return true;
    case GEX_OP_XOR:
      m = {FI_BXOR, k};
      return true;
    case GEX_OP_ADD:
    case GEX_OP_SUB:
    case GEX_OP_INC:
    case GEX_OP_DEC:
      m = {FI_SUM, k};
      return true;
    case GEX_OP_MULT:
      m = {FI_PROD, k};
      return true;
    case GEX_OP_MIN:
      m = {FI_MIN, k};
      return true;
    case GEX_OP_MAX:
      m = {FI_MAX, k};
      return true;
    default:
      return false;
  }
}

// -v, or v + delta, in the type's own arithmetic, as the low bytes.
uint64_t negate(Capabilities::AtomicType t, uint64_t v) {
  switch (t) {
    case Capabilities::kFlt:
      return v ^ 0x80000000u;
    case Capabilities::kDbl:
      return v ^ 0x8000000000000000ull;
    default:
      return ~v + 1;  // two's complement: the low 4 bytes are right for 32-bit types too
  }
}
uint64_t one(Capabilities::AtomicType t) {
  if (t == Capabilities::kFlt) {
    float f = 1.0f;
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof f);
    return bits;
  }
  if (t == Capabilities::kDbl) {
    double d = 1.0;
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof d);
    return bits;
  }
  return 1;
}

}  // namespace

void RmaChannel::atomic_ops(uint64_t ops[Capabilities::kAtomicTypes]) const {
  for (unsigned t = 0; t < Capabilities::kAtomicTypes; ++t) ops[t] = 0;
  if (!fabric_.atomics() || fabric_.mr_local()) return;
  if (fabric_.provider() == "shm") return;
  if (config::get_string("GASNET_AD_PATH") == "auto" && !fabric_.offloaded()) return;
  for (unsigned t = 0; t < Capabilities::kAtomicTypes; ++t) {
    for (unsigned bit = 0; bit < 32; ++bit) {
      uint32_t op = 1u << bit;
      Mapping m;
      if (!map(op, m)) continue;
      bool integer = t < Capabilities::kFlt;
      if (!integer && (m.op == FI_BAND || m.op == FI_BOR || m.op == FI_BXOR)) continue;
      // Asked of the endpoint (fi_*atomicvalid): not every provider answers
      // fi_query_atomic for its domain.
      size_t count = 0;
      int rc = m.kind == Kind::kFetch ? fi_fetch_atomicvalid(fabric_.ep(), kTypes[t], m.op, &count)
               : m.kind == Kind::kCompare
                   ? fi_compare_atomicvalid(fabric_.ep(), kTypes[t], m.op, &count)
                   : fi_atomicvalid(fabric_.ep(), kTypes[t], m.op, &count);
      if (rc == 0 && count >= 1) ops[t] |= op;
    }
  }
}

void RmaChannel::atomic(uint32_t peer, uint64_t remote, Capabilities::AtomicType type, uint32_t op,
                        uint64_t a, uint64_t b, void *result, RmaCompletion &done) {
  Mapping m;
  if (!map(op, m)) util::fatal("ofi: native atomic asked for gex_OP_t 0x%x, which has none", op);
  Fabric::Guard g(fabric_);
  Op *o = take_op(done);
  o->len = kSizes[type];
  switch (fetching_form(op) ? op >> GEXX_OP_FETCH_SHIFT : op) {
    case GEX_OP_SUB:
      a = negate(type, a);
      break;
    case GEX_OP_INC:
      a = one(type);
      break;
    case GEX_OP_DEC:
      a = negate(type, one(type));
      break;
    default:
      break;
  }
  o->operand = a;
  o->compare = a;                                // CAS: operand1 is compared ...
  if (m.kind == Kind::kCompare) o->operand = b;  // ... and operand2 stored
  o->fetched = 0;
  o->copy_to = m.kind == Kind::kPlain ? nullptr : result;
  const Peer &p = peers_[peer];
  fi_ioc buf{&o->operand, 1};
  fi_ioc cmp{&o->compare, 1};
  fi_ioc res{&o->fetched, 1};
  fi_rma_ioc rma{p.base + (remote - p.owner_base), 1, p.key};
  fi_msg_atomic msg{};
  msg.msg_iov = &buf;
  msg.iov_count = 1;
  msg.addr = fabric_.addr(peer);
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.datatype = kTypes[type];
  msg.op = m.op;
  msg.context = &o->ctx;
  uint32_t pauses = 0;
  for (;;) {
    ssize_t rc;
    const char *call;
    if (m.kind == Kind::kPlain) {
      call = "fi_atomicmsg";
      rc = fi_atomicmsg(fabric_.ep(), &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    } else if (m.kind == Kind::kFetch) {
      call = "fi_fetch_atomicmsg";
      rc = fi_fetch_atomicmsg(fabric_.ep(), &msg, &res, nullptr, 1, FI_COMPLETION);
    } else {
      call = "fi_compare_atomicmsg";
      rc = fi_compare_atomicmsg(fabric_.ep(), &msg, &cmp, nullptr, 1, &res, nullptr, 1,
                                FI_COMPLETION);
    }
    if (rc == 0) return;
    if (!fabric_.retry_post(rc, pauses)) {
      util::fatal("a remote atomic toward rank %u: %s", peer, fi_error(call, rc).c_str());
    }
  }
}

}  // namespace gexx::transport::ofi
