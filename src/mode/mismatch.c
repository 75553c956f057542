/* Link-time thread-mode check. The library of mode LIB_MODE carries one of
 * these objects for each other mode CLIENT_MODE: it defines the initialisers
 * a client compiled with -DGASNET_<CLIENT_MODE> calls, and each refers to a
 * symbol nobody defines whose name says what went wrong. A client whose mode
 * matches the library never pulls this object in (the library's own entry.cpp
 * defines its names first); a mismatched client fails to link with, e.g.:
 *
 *   undefined reference to `GASNet_thread_mode_mismatch__client_compiled_with_
 *   GASNET_PAR__linked_with_GASNET_SEQ_library__libgasnet_smp_seq'
 *
 * Compiled with -DGEXX_CLIENT_MODE=PAR -DGEXX_LIB_MODE=SEQ
 * -DGEXX_LIB_NAME=libgasnet_smp_seq. */

#define GEXX_CAT2(a, b) a##b
#define GEXX_CAT(a, b) GEXX_CAT2(a, b)
#define GEXX_ERROR_NAME3(client, lib, name) \
  GASNet_thread_mode_mismatch__client_compiled_with_GASNET_##client##__linked_with_GASNET_##lib##_library__##name
#define GEXX_ERROR_NAME2(client, lib, name) GEXX_ERROR_NAME3(client, lib, name)
#define GEXX_ERROR_NAME GEXX_ERROR_NAME2(GEXX_CLIENT_MODE, GEXX_LIB_MODE, GEXX_LIB_NAME)

extern int GEXX_ERROR_NAME(void);

int GEXX_CAT(gexx_Client_Init_GASNET_, GEXX_CLIENT_MODE)(void *client_p, void *ep_p, void *tm_p,
                                                         const char *name, int *argc, char ***argv,
                                                         unsigned flags);
int GEXX_CAT(gexx_Client_Init_GASNET_, GEXX_CLIENT_MODE)(void *client_p, void *ep_p, void *tm_p,
                                                         const char *name, int *argc, char ***argv,
                                                         unsigned flags) {
  (void)client_p, (void)ep_p, (void)tm_p, (void)name, (void)argc, (void)argv, (void)flags;
  return GEXX_ERROR_NAME();
}

int GEXX_CAT(gexx_init_GASNET_, GEXX_CLIENT_MODE)(int *argc, char ***argv);
int GEXX_CAT(gexx_init_GASNET_, GEXX_CLIENT_MODE)(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return GEXX_ERROR_NAME();
}
