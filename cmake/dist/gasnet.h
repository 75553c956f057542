/* gasnet.h at the top of a gexx source release: marks the folder as a
 * GASNet source tree for client configure scripts that look for this file.
 * The header itself is include/gasnet.h; compile against a built or
 * installed gexx (docs/clients.md), not against this folder. */
#include "include/gasnet.h"
