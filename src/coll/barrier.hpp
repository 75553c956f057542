// The job's barrier with GASNet's split-phase rules: notify, then wait or
// try; named, anonymous and forced-mismatch values. The algorithm under it
// (shared memory or active messages) only gathers the values.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "coll/split_barrier.hpp"

namespace gexx::coll {

class Barrier {
 public:
  explicit Barrier(std::unique_ptr<SplitBarrier> algorithm) : algo_(std::move(algorithm)) {}

  // Fatal when a notify is already outstanding.
  void notify(int id, int flags);
  // GASNET_OK or GASNET_ERR_BARRIER_MISMATCH once complete; GASNET_ERR_NOT_READY
  // from try() while it is not.
  int wait(int id, int flags);
  int try_finish(int id, int flags);
  // The value the last completed notify/wait barrier agreed on: returns
  // non-zero if it was anonymous, else 0 with *id set to its name.
  int last_result(int *id) const;

  // The EX form: an anonymous barrier whose completion an event observes.
  uint64_t start_anonymous();
  bool complete(uint64_t generation) { return algo_->done(generation); }
  void finish_anonymous(uint64_t generation);

 private:
  int finish(int id, int flags);
  uint64_t arrive(BarrierValue v);

  std::unique_ptr<SplitBarrier> algo_;
  bool notified_ = false;
  BarrierValue mine_;
  BarrierValue last_{0, 1};
  uint64_t generation_ = 0;
  uint64_t last_arrival_ = 0;
};

}  // namespace gexx::coll
