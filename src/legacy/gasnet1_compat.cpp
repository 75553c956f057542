// GASNet-1 entry points that complete the drop-in header surface (issue 17).
// Each is written on the public gasnet_* calls.
#include <gasnet.h>

#include <atomic>
#include <cstdio>

namespace {
std::atomic<bool> g_coll_initialised{false};

[[noreturn]] void coll_init_fails(const char *why) {
  std::fprintf(stderr, "gexx: gasnet_coll_init: %s\n", why);
  std::fflush(stderr);
  gasnet_exit(1);
}
}  // namespace

extern "C" {

// The GASNet-1 collectives' set-up call, collective after gasnet_attach.
// gexx keeps no collective state to set up (its barrier needs none), so the
// call checks its arguments and the calling sequence: the collective
// operations themselves (gasnet_coll.h) come with a later issue, and images
// (several threads of one node as collective members) are not supported.
void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                      gasnet_seginfo_t *scratch_segs, int scratch_size, int flags) {
  (void)my_image;
  (void)scratch_segs;
  (void)flags;
  (void)gasnet_nodes();  // ends the job, naming the call, before gasnet_init
  if (images) coll_init_fails("images (threads as collective members) are not implemented");
  if (scratch_size < 0) coll_init_fails("negative scratch_size");
  if (g_coll_initialised.exchange(true)) coll_init_fails("called twice");
}

}  // extern "C"
