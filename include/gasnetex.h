/* gasnetex.h: the GASNet-EX API of gexx.
 *
 * C99 and C++ clean. A client defines exactly one of GASNET_SEQ,
 * GASNET_PARSYNC or GASNET_PAR (the installed .mak, .pc and CMake package do
 * this for the library the client links) and compiles with
 * -I<prefix>/include -I<prefix>/include/<conduit>-conduit.
 */
#ifndef GASNETEX_H
#define GASNETEX_H

#define _INCLUDED_GASNETEX_H
#define _IN_GASNETEX_H

/* The standard headers a GASNet client may rely on after including
 * gasnetex.h (the PRI* format macros among them). */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gasnet_config.h>
#include <gasnet_fwd.h>
#include <gasnet_core_fwd.h>
#include <gasnet_extended_fwd.h>

/* ---- identification ---- */
/* _STRINGIFY, _CONCAT and PRIuSZ come from gexx_basic.h (with the tools). */
#include <gexx_basic.h>

/* The conduit's core and extended API versions are the release's; the
 * names are bare tokens (SMP), the _STR forms strings. */
#ifndef GASNET_CORE_VERSION
#define GASNET_CORE_VERSION GASNETI_RELEASE_VERSION
#endif
#ifndef GASNET_EXTENDED_VERSION
#define GASNET_EXTENDED_VERSION GASNETI_RELEASE_VERSION
#endif
#define GASNET_RELEASE_VERSION_STR GEXX_VERSION_STRING
#define GASNETI_THREAD_MODEL_STR _STRINGIFY(GEXX_THREAD_MODEL)
#if UINTPTR_MAX == UINT64_MAX
#define GASNETI_PTR_CONFIG 64bit
#else
#define GASNETI_PTR_CONFIG 32bit
#endif
#if defined(GASNET_DEBUG)
#define GASNETI_DEBUG_CONFIG debug
#else
#define GASNETI_DEBUG_CONFIG nodebug
#endif
#define GASNETI_TOOLS_CONDUIT GASNET_CONDUIT_NAME

/* One line describing this build and the including client's choices, in the
 * form GASNet's launchers and the suites parse:
 * RELEASE=r,SPEC=s,CONDUIT=NAME(NAME-core/NAME-extended),THREADMODEL=m,
 * SEGMENT=FAST,PTR=64bit,noalign,debug|nodebug,notrace,nostats,... */
#define GASNET_CONFIG_STRING \
  "RELEASE=" _STRINGIFY(GASNETI_RELEASE_VERSION) ",SPEC=" _STRINGIFY(                    \
      GEX_SPEC_VERSION_MAJOR) "." _STRINGIFY(GEX_SPEC_VERSION_MINOR) ",CONDUIT="         \
      GASNET_CONDUIT_NAME_STR "(" GASNET_CORE_NAME_STR "-" _STRINGIFY(                   \
          GASNET_CORE_VERSION) "/" GASNET_EXTENDED_NAME_STR "-" _STRINGIFY(              \
          GASNET_EXTENDED_VERSION) "),THREADMODEL=" GASNETI_THREAD_MODEL_STR             \
      ",SEGMENT=FAST,PTR=" _STRINGIFY(GASNETI_PTR_CONFIG) ",noalign,pshm," _STRINGIFY(   \
          GASNETI_DEBUG_CONFIG) ",notrace,nostats,nodebugmalloc,nosrclines,timers_native," \
      "membars_native,atomics_native,atomic32_native,atomic64_native"

GEXX_BEGIN_EXTERNC

/* The identification strings GASNet puts in every executable ("ident" and
 * "strings" show them; launchers such as upcxx-run read them to recognise a
 * GASNet program). Weak definitions in the client's own objects, so they land
 * in the executable whether the library is linked statically or shared, and
 * one copy is kept however many files include this header. */
#if defined(__GNUC__) || defined(__clang__)
#ifdef __cplusplus
#define GEXX_IDENT_DEF(name, text) \
  extern __attribute__((__weak__, __used__)) const char name[] = text
#else
#define GEXX_IDENT_DEF(name, text) \
  extern const char name[];        \
  __attribute__((__weak__, __used__)) const char name[] = text
#endif
GEXX_IDENT_DEF(GASNetIdent_ConduitName, "$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $");
GEXX_IDENT_DEF(GASNetIdent_CoreLibraryName, "$GASNetCoreLibraryName: " GASNET_CORE_NAME_STR " $");
GEXX_IDENT_DEF(GASNetIdent_CoreLibraryVersion,
               "$GASNetCoreLibraryVersion: " _STRINGIFY(GASNET_CORE_VERSION) " $");
GEXX_IDENT_DEF(GASNetIdent_ExtendedLibraryName,
               "$GASNetExtendedLibraryName: " GASNET_EXTENDED_NAME_STR " $");
GEXX_IDENT_DEF(GASNetIdent_ReleaseVersion,
               "$GASNetReleaseVersion: " _STRINGIFY(GASNETI_RELEASE_VERSION) " $");
GEXX_IDENT_DEF(GASNetIdent_SpecVersion,
               "$GASNetEXAPIVersion: " _STRINGIFY(GEX_SPEC_VERSION_MAJOR) "." _STRINGIFY(
                   GEX_SPEC_VERSION_MINOR) " $");
GEXX_IDENT_DEF(GASNetIdent_Config, "$GASNetConfig: (gasnetex.h) " GASNET_CONFIG_STRING " $");
GEXX_IDENT_DEF(GASNetIdent_ThreadModel,
               "$GASNetThreadModel: GASNET_" GASNETI_THREAD_MODEL_STR " $");
#endif

/* The GEX_FLAG_* values are in gasnet_fwd.h (clients use them with it alone). */

/* ---- job and system queries ---- */
extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
/* Locality. A neighbourhood is the set of ranks that share memory with the
 * caller (their segments are mapped in its address space); a host, the
 * ranks on its machine. The Info calls give the set, sorted by job rank,
 * in memory owned by gexx (valid until exit), its size, and the caller's
 * index in it; any pointer may be NULL. MyPosition gives the number of
 * neighbourhoods in the job and the index of the caller's, then the same
 * for hosts. */
typedef const struct { gex_Rank_t gex_jobrank; } gex_RankInfo_t;
extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                       gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank);
extern int gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);

/* ---- client, endpoint, team member ---- */
/* Collective over the job; one client per process. clientName is the
 * client's own name (letters, digits and '_', starting with a letter). */
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
/* A call to gex_Client_Init becomes a call to gexx_Client_Init_GASNET_<MODE>,
 * the mode the client was compiled with. Each library defines only its own
 * mode's name, so a client compiled for one thread mode and linked with
 * another mode's library fails to link, and the undefined symbol the linker
 * reports names both modes. (With SEQ or PARSYNC gexx also skips the atomic
 * instructions only PAR needs.) Called without the macro, gex_Client_Init
 * takes the library's mode. */
extern int GEXX_CLIENT_INIT_FN(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                               const char *clientName, int *argc, char ***argv, gex_Flags_t flags);
#define gex_Client_Init(client_p, ep_p, tm_p, clientName, argc, argv, flags) \
  GEXX_CLIENT_INIT_FN(client_p, ep_p, tm_p, clientName, argc, argv, flags)
extern const char *gex_Client_QueryName(gex_Client_t client);
extern gex_Flags_t gex_Client_QueryFlags(gex_Client_t client);
extern void gex_Client_SetCData(gex_Client_t client, const void *val);
extern void *gex_Client_QueryCData(gex_Client_t client);

extern gex_Client_t gex_EP_QueryClient(gex_EP_t ep);
extern gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep);
extern gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep);
extern gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
extern void gex_EP_SetCData(gex_EP_t ep, const void *val);
extern void *gex_EP_QueryCData(gex_EP_t ep);

extern gex_Rank_t gex_TM_QueryRank(gex_TM_t tm);
extern gex_Rank_t gex_TM_QuerySize(gex_TM_t tm);
extern gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
extern gex_EP_t gex_TM_QueryEP(gex_TM_t tm);
extern gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm);
extern void gex_TM_SetCData(gex_TM_t tm, const void *val);
extern void *gex_TM_QueryCData(gex_TM_t tm);
extern gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);

/* An endpoint somewhere in the job: its process's job rank and its index
 * there (gexx has one endpoint per process, index 0). */
typedef struct {
  gex_Rank_t gex_rank;
  gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags);
/* A team of two for point-to-point calls only: its ranks are job ranks and
 * it names remote endpoint remote_ep_index (0 in gexx). */
extern gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);

/* Collective over parent_tm: the callers with the same color (>= 0 and a
 * non-null new_tm_p) form a team ordered by key, then by parent rank;
 * the others get GEX_TM_INVALID (when new_tm_p is not null). With
 * GEX_FLAG_TM_SCRATCH_SIZE_MIN or _RECOMMENDED it is a local query
 * instead and returns the scratch size (0 when new_tm_p is null or color
 * < 0). gexx's collectives need no scratch: both sizes are 0 and a given
 * scratch is only kept to be handed back by gex_TM_Destroy. */
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                           void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
/* ---- segments ---- */
/* Collective over the primordial team; at most one per process. */
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t length);
extern void *gex_Segment_QueryAddr(gex_Segment_t seg);
extern uintptr_t gex_Segment_QuerySize(gex_Segment_t seg);
extern gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
extern gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg);
extern void gex_Segment_SetCData(gex_Segment_t seg, const void *val);
extern void *gex_Segment_QueryCData(gex_Segment_t seg);
/* Where rank's segment lives: owneraddr_p gets its address in the owner's
 * address space, localaddr_p where this process can load and store it (NULL
 * when it is not mapped here), size_p its length. Any output may be NULL. */
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                  void **localaddr_p, uintptr_t *size_p);

/* ---- event categories ---- */
#define GEX_EC_GET ((gex_EC_t)1u << 0)
#define GEX_EC_PUT ((gex_EC_t)1u << 1)
#define GEX_EC_AM ((gex_EC_t)1u << 2)
#define GEX_EC_LC ((gex_EC_t)1u << 3)
#define GEX_EC_RMW ((gex_EC_t)1u << 4)
#define GEX_EC_ALL ((gex_EC_t)0x1Fu)

/* ---- one-sided RMA ----
 * Local addresses may be anywhere; the remote range must lie inside the
 * target rank's segment. Non-zero returns (GEX_EVENT_NO_OP for NB forms)
 * happen only with GEX_FLAG_IMMEDIATE when resources are short. */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                               gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                                 gex_Flags_t flags);
/* Value forms: the low-order `nbytes` bytes of the value (nbytes at most
 * sizeof(gex_RMA_Value_t)). */
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                                  size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                                    size_t nbytes, gex_Flags_t flags);

/* A vector of memory ranges (the VIS interfaces of a later issue take them). */
typedef struct {
  void *gex_addr;
  size_t gex_len;
} gex_Memvec_t;

/* Collective over parent_tm: the members of the new team are the numargs
 * endpoints in args, in team order; a caller not among them passes
 * numargs 0 and gets no team. num_new_tms must be 1 in gexx. The scratch
 * query flags make it local, as for gex_TM_Split. */
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                            gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                            size_t scratch_size, gex_Flags_t flags);
/* Collective over tm (a barrier) unless GEX_FLAG_GLOBALLY_QUIESCED. Returns
 * non-zero, with the scratch the team was given in *scratch_p, when
 * scratch_p is not null and the team had scratch; else 0. */
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);

/* ---- NBI access regions (they do not nest) ---- */
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- events ----
 * Test calls do not poll and return 0 on success; Wait calls poll. */
extern int gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
/* ABI 1's word for the inline tests and waits (clients built against that
 * header read it); gexx_inline_rma.h's forms read gexx_rma_fast.sync_traced. */
extern uint32_t gexx_sync_traced;
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);
extern int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);

/* ---- active messages ---- */
/* Handlers: Short  void fn(gex_Token_t t, gex_AM_Arg_t a0, ...);
 *           Medium/Long  void fn(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t a0, ...) */
typedef void (*gex_AM_Fn_t)();
#define GEX_AM_INDEX_BASE 128
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GASNET_MAXARGS 16

typedef struct {
  gex_AM_Index_t gex_index; /* 0 (gexx picks, highest free first) or GEX_AM_INDEX_BASE..255 */
  gex_AM_Fn_t gex_fnptr;
  gex_Flags_t gex_flags; /* one category flag OR one request/reply flag */
  unsigned int gex_nargs;
  const void *gex_cdata;
  const char *gex_name;
} gex_AM_Entry_t;

/* The registration flags GEX_FLAG_AM_* are in gasnet_fwd.h. */

extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

extern unsigned int gex_AM_MaxArgs(void);
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                  gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                      gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_LUBRequestLong(void);
extern size_t gex_AM_LUBReplyLong(void);
extern size_t gex_AM_LUBRequestMedium(void);
extern size_t gex_AM_LUBReplyMedium(void);

typedef struct {
  gex_Rank_t gex_srcrank;
  gex_EP_t gex_ep;
  const gex_AM_Entry_t *gex_entry;
  int gex_is_req;
  int gex_is_long;
} gex_Token_Info_t;

typedef uint32_t gex_TI_t;
#define GEX_TI_SRCRANK ((gex_TI_t)1u << 0)
#define GEX_TI_EP ((gex_TI_t)1u << 1)
#define GEX_TI_ENTRY ((gex_TI_t)1u << 2)
#define GEX_TI_IS_REQ ((gex_TI_t)1u << 3)
#define GEX_TI_IS_LONG ((gex_TI_t)1u << 4)
#define GEX_TI_ALL ((gex_TI_t)0x1Fu)
extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);
/* The names of the GEX_TI_* (GEX_DT_*, GEX_OP_*) bits set, joined by '|'
 * ("0" for none), written to buf; with buf NULL, nothing is written.
 * Returns the bytes the text needs, its terminating NUL included. */
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);

/* Fixed-payload AMs. Call the numbered forms (gex_AM_RequestShort2(...)) or
 * the forms that count their arguments (gex_AM_RequestShort(tm, rank, h,
 * flags, a0, a1)); both call these entry points. A non-zero return means
 * GEX_FLAG_IMMEDIATE was given and nothing was sent. */
extern int gexx_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                gex_Flags_t flags, unsigned int numargs, ...);
extern int gexx_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                 const void *src, size_t nbytes, gex_Event_t *lc_opt,
                                 gex_Flags_t flags, unsigned int numargs, ...);
extern int gexx_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                               const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs, ...);
extern int gexx_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                              unsigned int numargs, ...);
extern int gexx_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                               size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                               unsigned int numargs, ...);
extern int gexx_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler, const void *src,
                             size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                             unsigned int numargs, ...);

/* Negotiated-payload AMs */
typedef struct gexx_srcdesc_s *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
#define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1
extern void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf, size_t least_payload,
                                                    size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf, size_t least_payload,
                                                  size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);
extern void gexx_AM_CommitRequestMedium(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                        unsigned int numargs, ...);
extern void gexx_AM_CommitReplyMedium(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                      unsigned int numargs, ...);
extern void gexx_AM_CommitRequestLong(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                      void *dest, unsigned int numargs, ...);
extern void gexx_AM_CommitReplyLong(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                    void *dest, unsigned int numargs, ...);

/* ---- collectives ---- */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
/* The barrier, waited for: gex_Event_Wait(gex_Coll_BarrierNB(tm, flags)). */
extern void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

/* ---- the library's self-test (GASNet's testinternal runs it) ----
 * gasnett_diagnostic_gethandlers gives the AM handlers the test uses, to be
 * registered with gex_EP_RegisterHandlers before gasnett_run_diagnostics is
 * called, collectively, by every rank with the same arguments. Sections (a
 * string of letters; NULL or "" for all): A timers, B atomics, C locks and
 * threadcnt threads, D checksum and number helpers, E put/get to peer's
 * segment (each rank writes only the first 64 KiB of its peer's), F active
 * messages to peer, G barriers. Returns the number of errors found (each is
 * also printed to stderr). */
extern void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt);
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   gex_TM_t myteam, void *myseg, gex_Rank_t peer, void *peerseg);

/* ---- handler-safe locks ----
 * A handler may take one and must release it before it returns; they do not
 * nest in one thread; while a thread holds one, gasnet_hold_interrupts and
 * gasnet_resume_interrupts are ignored. gasnet_hsl_t is the same type. */
typedef struct {
  volatile int gexx_locked;
  void *gexx_owner;
} gex_HSL_t;
#define GEX_HSL_INITIALIZER \
  { 0, 0 }
#define gex_HSL_Init(hsl) gasnet_hsl_init(hsl)
#define gex_HSL_Destroy(hsl) gasnet_hsl_destroy(hsl)
#define gex_HSL_Lock(hsl) gasnet_hsl_lock(hsl)
#define gex_HSL_Unlock(hsl) gasnet_hsl_unlock(hsl)
#define gex_HSL_Trylock(hsl) gasnet_hsl_trylock(hsl)

GEXX_END_EXTERNC

#include <gexx_am_ex.h>

/* The conduit's own headers, in the order GASNet includes them. */
#include <gasnet_core_help.h>
#include <gasnet_core.h>
#include <gasnet_extended.h>

/* As in GASNet-EX: the tools, then the legacy GASNet-1 API. */
#include <gasnet_tools.h>
#include <gexx_legacy.h>
/* Same-host put and get compiled into the client (after every declaration). */
#include <gexx_inline_rma.h>

#endif /* GASNETEX_H */
