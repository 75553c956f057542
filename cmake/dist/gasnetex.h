/* gasnetex.h at the top of a gexx source release: marks the folder as a
 * GASNet-EX source tree for client configure scripts that look for this
 * file. The header itself is include/gasnetex.h; compile against a built or
 * installed gexx (docs/clients.md), not against this folder. */
#include "include/gasnetex.h"
