// GASNet-EX entry points that complete the drop-in header surface (issue
// 17): each is written on the public gex_* calls, so it follows whatever
// those do.
#include <gasnetex.h>

extern "C" {

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags) {
  gex_Event_Wait(gex_Coll_BarrierNB(tm, flags));
}

}  // extern "C"
