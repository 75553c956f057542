/* hello-gasnet: the GASNet-1 hello world.
 *
 *   gasnetrun -n 4 ./hello-gasnet      or      GASNET_PSHM_NODES=4 ./hello-gasnet
 */
#include <gasnet.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK) return 1;
  if (gasnet_attach(
          NULL, 0,
          gasnet_getMaxLocalSegmentSize() < (1 << 20) ? gasnet_getMaxLocalSegmentSize() : (1 << 20),
          0) != GASNET_OK)
    return 1;
  gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
  gasnet_seginfo_t info[1];
  gasnet_getSegmentInfo(info, 1);
  printf("Hello from node %u of %u (node 0's segment: %lu bytes)\n", me, n,
         (unsigned long)info[0].size);
  fflush(stdout);
  gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
  int rc = gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
  gasnet_exit(rc == GASNET_OK ? 0 : 1);
  return 0;
}
