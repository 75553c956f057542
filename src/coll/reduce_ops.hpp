// The reduction kernels of the EX collectives: every built-in data type
// (GEX_DT_I32 U32 I64 U64 FLT DBL) with every reduction operation (AND OR
// XOR on integers only; ADD MULT MIN MAX on all), and the client's own
// function (GEX_OP_USER, GEX_OP_USER_NC) on any type, GEX_DT_USER included.
#pragma once

#include <gasnet_coll.h>

#include <cstddef>
#include <string>

namespace gexx::coll {

// The element size of a built-in type, 0 for GEX_DT_USER or an unknown one.
size_t dt_size(gex_DT_t dt);
const char *dt_name(gex_DT_t dt);  // "GEX_DT_I32" ..., null when unknown
const char *op_name(gex_OP_t op);  // "GEX_OP_ADD" ..., null when not a reduction

// One reduction as its call described it. `check` validates it (fatal,
// naming `api` and the offending value); `apply` then combines `count`
// elements: inout[i] = in[i] (op) inout[i]. For GEX_OP_USER_NC, `in` must
// be the operand of the lower ranks (the client function's first argument).
struct Reduction {
  gex_DT_t dt = 0;
  size_t dt_size = 0;
  gex_OP_t op = 0;
  gex_Coll_ReduceFn_t fn = nullptr;
  const void *cdata = nullptr;

  void check(const char *api) const;
  bool commutative() const { return op != GEX_OP_USER_NC; }
  // Any grouping and order of the values gives the same bits: a built-in
  // operation on an integer type (floating-point sums and products round
  // differently in another order; a client function may be anything).
  bool order_free() const {
    bool ints = dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_I64 || dt == GEX_DT_U64;
    return ints && op != GEX_OP_USER && op != GEX_OP_USER_NC;
  }
  void apply(const void *in, void *inout, size_t count) const;
  // out[i] = in[i] (op) b[i] in one pass; `out` may be `b` or `in`. With a
  // client function, b is copied to out first (when they differ).
  void combine3(const void *in, const void *b, void *out, size_t count) const;
  // out = in[0] (op) (in[1] (op) (... (op) in[n-1])), the n values combined
  // in order, n >= 1; `out` may be one of the inputs. Built-in operations
  // read each input once and write `out` once (a block at a time); a
  // client function folds pairwise from the right.
  void combine_all(const char *const *in, size_t n, void *out, size_t count) const;
};

}  // namespace gexx::coll
