// The thread-mode-independent initialisers behind gex_Client_Init and
// gasnet_init. Each library's per-mode object (entry.cpp) names them for its
// mode; thread_mode is 0 SEQ, 1 PARSYNC, 2 PAR.
#pragma once

#include <gasnetex.h>

namespace gexx::mode {

int client_init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                gex_Flags_t flags, int thread_mode);
int gasnet1_init(int thread_mode);

}  // namespace gexx::mode
