// GASNet-1 entry points that complete the drop-in header surface (issue 17).
// Each is written on the public gex_* / gasnet_* calls.
#include <gasnet.h>

extern "C" {}  // extern "C"
