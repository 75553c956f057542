// The entry points a library of one thread mode adds to the shared objects.
// Compiled once per mode with that mode's GASNET_<MODE> defined, so the
// header's GEXX_CLIENT_INIT_FN / GEXX_INIT_FN name exactly this library's
// symbols (gexx_Client_Init_GASNET_SEQ, ...): a client compiled for another
// mode finds them missing at link time (see mismatch.c).
#include <gasnet.h>

#include "mode/entry.hpp"

extern "C" {

int GEXX_CLIENT_INIT_FN(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                        const char *clientName, int *argc, char ***argv, gex_Flags_t flags) {
  (void)argc;
  (void)argv;
  return gexx::mode::client_init(client_p, ep_p, tm_p, clientName, flags, GEXX_THREAD_MODE_ID);
}

int GEXX_INIT_FN(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return gexx::mode::gasnet1_init(GEXX_THREAD_MODE_ID);
}

// Reached without the headers' macros (through a function pointer, say):
// the library's own mode.
int(gex_Client_Init)(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                     int *argc, char ***argv, gex_Flags_t flags) {
  return GEXX_CLIENT_INIT_FN(client_p, ep_p, tm_p, clientName, argc, argv, flags);
}

int(gasnet_init)(int *argc, char ***argv) {
  return GEXX_INIT_FN(argc, argv);
}

}  // extern "C"
