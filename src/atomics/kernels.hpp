// The operations of remote atomics on one word, as a CPU performs them: what
// an operation computes from the target's prior value and its operands
// (next_value), and the operation done atomically on memory (apply). Every
// path of an atomic domain ends here for the targets a CPU reaches: this
// process's mapped segments and, for active-message atomics, the target
// rank's own handler. Header-only: the entry points inline them.
#pragma once

#include <gasnet_fwd.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace gexx::atomics {

// The operand types, in gex_DT_t bit order (transport::Capabilities keeps
// native support per type in this order too).
enum class Type : uint8_t { kI32, kU32, kI64, kU64, kFlt, kDbl };
constexpr unsigned kTypes = 6;

// A C type's Type and gex_DT_t.
template <Type V, gex_DT_t D>
struct TypeCodes {
  static constexpr Type value = V;
  static constexpr gex_DT_t dt = D;
};
template <typename T>
struct TypeOf;
template <>
struct TypeOf<int32_t> : TypeCodes<Type::kI32, GEX_DT_I32> {};
template <>
struct TypeOf<uint32_t> : TypeCodes<Type::kU32, GEX_DT_U32> {};
template <>
struct TypeOf<int64_t> : TypeCodes<Type::kI64, GEX_DT_I64> {};
template <>
struct TypeOf<uint64_t> : TypeCodes<Type::kU64, GEX_DT_U64> {};
template <>
struct TypeOf<float> : TypeCodes<Type::kFlt, GEX_DT_FLT> {};
template <>
struct TypeOf<double> : TypeCodes<Type::kDbl, GEX_DT_DBL> {};

// Every operation gexx knows, and the ones that deliver the prior value.
constexpr gex_OP_t kArithmeticOps =
    GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX | GEX_OP_INC | GEX_OP_DEC;
constexpr gex_OP_t kBitwiseOps = GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR;
constexpr gex_OP_t kAccessOps = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS;
constexpr gex_OP_t kFetchingOps =
    GEX_OP_TO_FETCHING(kArithmeticOps | kBitwiseOps) | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS;
constexpr gex_OP_t kIntegerOps =
    kArithmeticOps | kBitwiseOps | GEX_OP_TO_FETCHING(kArithmeticOps | kBitwiseOps) | kAccessOps;
constexpr gex_OP_t kFloatOps = kArithmeticOps | GEX_OP_TO_FETCHING(kArithmeticOps) | kAccessOps;

constexpr bool is_integer(Type t) {
  return t != Type::kFlt && t != Type::kDbl;
}
constexpr gex_OP_t ops_of(Type t) {
  return is_integer(t) ? kIntegerOps : kFloatOps;
}
constexpr bool fetches(gex_OP_t op) {
  return (op & kFetchingOps) != 0;
}

// An operation's name as a client writes it ("GEX_OP_FADD"), for messages;
// "an unknown operation" for anything else (not exactly one known bit).
const char *op_name(gex_OP_t op);
// "GEX_DT_I32" ... ; "an unknown type" otherwise.
const char *type_name(gex_DT_t dt);

// The value the target holds after `op` (one gex_OP_t bit, fetching or not)
// given its prior value `old` and the operands. CAS and FCAS: `b` where
// `old` equals `a`, else `old`. GET: `old`. Integer arithmetic wraps.
template <typename T>
constexpr T next_value(gex_OP_t op, T old, T a, T b) {
  if (op & kFetchingOps & ~(GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS)) op = GEX_OP_TO_NONFETCHING(op);
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const U uo = static_cast<U>(old), ua = static_cast<U>(a);
    switch (op) {
      case GEX_OP_AND:
        return static_cast<T>(uo & ua);
      case GEX_OP_OR:
        return static_cast<T>(uo | ua);
      case GEX_OP_XOR:
        return static_cast<T>(uo ^ ua);
      case GEX_OP_ADD:
        return static_cast<T>(uo + ua);
      case GEX_OP_SUB:
        return static_cast<T>(uo - ua);
      case GEX_OP_MULT:
        return static_cast<T>(uo * ua);
      case GEX_OP_INC:
        return static_cast<T>(uo + 1u);
      case GEX_OP_DEC:
        return static_cast<T>(uo - 1u);
      default:
        break;
    }
  } else {
    switch (op) {
      case GEX_OP_ADD:
        return old + a;
      case GEX_OP_SUB:
        return old - a;
      case GEX_OP_MULT:
        return old * a;
      case GEX_OP_INC:
        return old + T(1);
      case GEX_OP_DEC:
        return old - T(1);
      default:
        break;
    }
  }
  switch (op) {
    case GEX_OP_MIN:
      return a < old ? a : old;
    case GEX_OP_MAX:
      return a > old ? a : old;
    case GEX_OP_SET:
    case GEX_OP_SWAP:
      return a;
    case GEX_OP_CAS:
    case GEX_OP_FCAS:
      return old == a ? b : old;
    default:  // GET
      return old;
  }
}

// The bit index of one gex_OP_t, which apply switches on: dense (0-24), so
// the switch is one table jump instead of a chain of compares.
constexpr unsigned op_index(gex_OP_t op) {
  return static_cast<unsigned>(__builtin_ctz(op));
}

// Performs `op` (one bit of ops_of(TypeOf<T>)) atomically on *p and returns
// the prior value. Sequentially consistent, which covers GEX_FLAG_AD_ACQ and
// GEX_FLAG_AD_REL. `p` is aligned to sizeof(T) (callers check). Inline: it is
// the whole of an operation toward a mapped segment.
template <typename T>
[[gnu::always_inline]] inline T apply(T *p, gex_OP_t op, T a, T b) {
  std::atomic_ref<T> word(*p);
  constexpr auto order = std::memory_order_seq_cst;
  switch (op_index(op)) {
    case op_index(GEX_OP_GET):
      return word.load(order);
    case op_index(GEX_OP_SET):
    case op_index(GEX_OP_SWAP):
      return word.exchange(a, order);
    case op_index(GEX_OP_CAS):
    case op_index(GEX_OP_FCAS): {
      T expected = a;
      word.compare_exchange_strong(expected, b, order, order);
      return expected;
    }
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op_index(op)) {
      case op_index(GEX_OP_ADD):
      case op_index(GEX_OP_FADD):
        return word.fetch_add(a, order);
      case op_index(GEX_OP_SUB):
      case op_index(GEX_OP_FSUB):
        return word.fetch_sub(a, order);
      case op_index(GEX_OP_INC):
      case op_index(GEX_OP_FINC):
        return word.fetch_add(T(1), order);
      case op_index(GEX_OP_DEC):
      case op_index(GEX_OP_FDEC):
        return word.fetch_sub(T(1), order);
      case op_index(GEX_OP_AND):
      case op_index(GEX_OP_FAND):
        return word.fetch_and(a, order);
      case op_index(GEX_OP_OR):
      case op_index(GEX_OP_FOR):
        return word.fetch_or(a, order);
      case op_index(GEX_OP_XOR):
      case op_index(GEX_OP_FXOR):
        return word.fetch_xor(a, order);
      default:
        break;  // MULT, MIN, MAX: a compare-and-swap loop
    }
  }
  // Floating-point operations and integer MULT/MIN/MAX: read, compute and
  // store only if nothing changed in between. A MIN or MAX whose operand
  // does not win stores nothing: the read is the operation.
  const bool extremum = (op & (GEX_OP_MIN | GEX_OP_MAX | GEX_OP_FMIN | GEX_OP_FMAX)) != 0;
  T old = word.load(order);
  for (;;) {
    T next = next_value(op, old, a, b);
    if (extremum && next == old) return old;
    if (word.compare_exchange_weak(old, next, order, order)) return old;
  }
}

}  // namespace gexx::atomics
