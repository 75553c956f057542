#include "coll/reduce_ops.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "util/gex_names.hpp"
#include "util/log.hpp"

namespace gexx::coll {

namespace {

constexpr gex_OP_t kBitwise = GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR;

// out[i] = a[i] (f) b[i]; `out` may be `b` (an in-place fold) or `a`. The
// elements go through memcpy (client buffers need not be aligned for T),
// which the compiler turns into plain (vector) loads and stores: one loop
// per operation, the operation chosen outside it (this file is built with
// -O3 so that these loops vectorize).
template <typename T, typename F>
void each(const char *a, const char *b, char *out, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    T r = f(x, y);
    std::memcpy(out + i * sizeof(T), &r, sizeof(T));
  }
}

// The type integer arithmetic runs in (unsigned: it wraps); T itself otherwise.
template <typename T, bool = std::is_integral_v<T>>
struct Wrap {
  using type = T;
};
template <typename T>
struct Wrap<T, true> {
  using type = std::make_unsigned_t<T>;
};

// Calls run(T{}, f) with the element type of `dt` and the function of the
// built-in operation `op` on it (nothing for an operation the type does not
// take): the one place both kernels below get their loops from, each loop
// chosen outside the loop.
template <typename Run>
void dispatch(gex_DT_t dt, gex_OP_t op, Run run) {
  auto with = [&](auto zero) {
    using T = decltype(zero);
    // Integers wrap, as unsigned arithmetic does.
    using U = typename Wrap<T>::type;
    switch (op) {
      case GEX_OP_ADD:
        run(zero, [](T x, T y) { return static_cast<T>(U(x) + U(y)); });
        break;
      case GEX_OP_MULT:
        run(zero, [](T x, T y) { return static_cast<T>(U(x) * U(y)); });
        break;
      case GEX_OP_MIN:
        run(zero, [](T x, T y) { return x < y ? x : y; });
        break;
      case GEX_OP_MAX:
        run(zero, [](T x, T y) { return x > y ? x : y; });
        break;
      default:
        if constexpr (std::is_integral_v<T>) {
          if (op == GEX_OP_AND) run(zero, [](T x, T y) { return T(x & y); });
          if (op == GEX_OP_OR) run(zero, [](T x, T y) { return T(x | y); });
          if (op == GEX_OP_XOR) run(zero, [](T x, T y) { return T(x ^ y); });
        }
        break;
    }
  };
  switch (dt) {
    case GEX_DT_I32:
      with(int32_t{});
      break;
    case GEX_DT_U32:
      with(uint32_t{});
      break;
    case GEX_DT_I64:
      with(int64_t{});
      break;
    case GEX_DT_U64:
      with(uint64_t{});
      break;
    case GEX_DT_FLT:
      with(float{});
      break;
    case GEX_DT_DBL:
      with(double{});
      break;
    default:
      break;
  }
}

// out = in[0] (f) (in[1] (f) (... (f) in[m-1])), a block of elements at a
// time: the running values stay in a buffer on the stack (L1) while each
// input's block is read once, and `out` is written once per block (after
// every input's block was read, so `out` may be one of them).
template <typename T, typename F>
void each_all(const char *const *in, size_t m, char *out, size_t n, F f) {
  constexpr size_t kBlock = 256;
  T acc[kBlock];
  for (size_t i0 = 0; i0 < n; i0 += kBlock) {
    const size_t len = n - i0 < kBlock ? n - i0 : kBlock;
    std::memcpy(acc, in[m - 1] + i0 * sizeof(T), len * sizeof(T));
    for (size_t j = m - 1; j-- > 0;) {
      const char *a = in[j] + i0 * sizeof(T);
      for (size_t k = 0; k < len; ++k) {
        T x;
        std::memcpy(&x, a + k * sizeof(T), sizeof(T));
        acc[k] = f(x, acc[k]);
      }
    }
    std::memcpy(out + i0 * sizeof(T), acc, len * sizeof(T));
  }
}

}  // namespace

size_t dt_size(gex_DT_t dt) {
  switch (dt) {
    case GEX_DT_I32:
    case GEX_DT_U32:
    case GEX_DT_FLT:
      return 4;
    case GEX_DT_I64:
    case GEX_DT_U64:
    case GEX_DT_DBL:
      return 8;
    default:
      return 0;
  }
}

const char *dt_name(gex_DT_t dt) {
  return util::dt_name(dt);
}

const char *op_name(gex_OP_t op) {
  constexpr gex_OP_t kReductions = GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_ADD | GEX_OP_MULT |
                                   GEX_OP_MIN | GEX_OP_MAX | GEX_OP_USER | GEX_OP_USER_NC;
  return (op & ~kReductions) ? nullptr : util::op_name(op);
}

void Reduction::check(const char *api) const {
  // The common call first: a built-in type of its own size and one built-in
  // operation that applies to it (no name lookups on every collective).
  constexpr gex_OP_t kBuiltin =
      GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_ADD | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX;
  const size_t size = coll::dt_size(dt);
  if (size != 0 && size == dt_size && (op & kBuiltin) == op && op && !(op & (op - 1)) &&
      !((op & kBitwise) && (dt == GEX_DT_FLT || dt == GEX_DT_DBL)))
    return;
  const char *dn = dt_name(dt);
  if (!dn) util::fatal("%s: unknown data type (gex_DT_t 0x%x)", api, static_cast<unsigned>(dt));
  const char *on = op_name(op);
  if (!on) {
    util::fatal("%s: 0x%x is not a reduction operation (AND OR XOR ADD MULT MIN MAX USER USER_NC)",
                api, static_cast<unsigned>(op));
  }
  bool user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
  if (user && !fn) util::fatal("%s: %s needs a gex_Coll_ReduceFn_t (it was null)", api, on);
  if (dt == GEX_DT_USER) {
    if (!user)
      util::fatal("%s: GEX_DT_USER reduces only with GEX_OP_USER or _USER_NC, not %s", api, on);
    if (dt_size == 0) util::fatal("%s: GEX_DT_USER with an element size of 0", api);
    return;
  }
  if (dt_size != coll::dt_size(dt)) {
    util::fatal("%s: %s elements are %zu bytes, the call says %zu", api, dn, coll::dt_size(dt),
                dt_size);
  }
  if ((op & kBitwise) && (dt == GEX_DT_FLT || dt == GEX_DT_DBL))
    util::fatal("%s: %s is a bitwise operation and %s is a floating-point type", api, on, dn);
}

void Reduction::apply(const void *in, void *inout, size_t count) const {
  combine3(in, inout, inout, count);
}

void Reduction::combine3(const void *in, const void *b, void *out, size_t count) const {
  if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
    if (!count) return;
    if (out != b) std::memmove(out, b, count * dt_size);
    fn(in, out, count, cdata);
    return;
  }
  dispatch(dt, op, [&](auto zero, auto f) {
    each<decltype(zero)>(static_cast<const char *>(in), static_cast<const char *>(b),
                         static_cast<char *>(out), count, f);
  });
}

void Reduction::combine_all(const char *const *in, size_t n, void *out, size_t count) const {
  if (n == 0 || count == 0) return;
  if (n == 1) {
    if (out != in[0]) std::memmove(out, in[0], count * dt_size);
    return;
  }
  if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
    combine3(in[n - 2], in[n - 1], out, count);
    for (size_t j = n - 2; j-- > 0;) apply(in[j], out, count);
    return;
  }
  dispatch(dt, op, [&](auto zero, auto f) {
    each_all<decltype(zero)>(in, n, static_cast<char *>(out), count, f);
  });
}

}  // namespace gexx::coll
