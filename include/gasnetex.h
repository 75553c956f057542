/* gasnetex.h: the GASNet-EX API of gexx.
 *
 * C99 and C++ clean. A client defines exactly one of GASNET_SEQ,
 * GASNET_PARSYNC or GASNET_PAR (the installed .mak, .pc and CMake package do
 * this for the library the client links) and compiles with
 * -I<prefix>/include -I<prefix>/include/<conduit>-conduit.
 */
#ifndef GASNETEX_H
#define GASNETEX_H

#include <stddef.h>
#include <stdint.h>

#include <gasnet_config.h>
#include <gasnet_core_fwd.h>
#include <gasnet_extended_fwd.h>

#if defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#undef GASNET_SEQ
#define GASNET_SEQ 1
#define GEXX_THREAD_MODEL SEQ
#define GEXX_CLIENT_INIT_FN gexx_Client_Init_GASNET_SEQ
#define GEXX_INIT_FN gexx_init_GASNET_SEQ
#define GEXX_THREAD_MODE_ID 0
#elif !defined(GASNET_SEQ) && defined(GASNET_PARSYNC) && !defined(GASNET_PAR)
#undef GASNET_PARSYNC
#define GASNET_PARSYNC 1
#define GEXX_THREAD_MODEL PARSYNC
#define GEXX_CLIENT_INIT_FN gexx_Client_Init_GASNET_PARSYNC
#define GEXX_INIT_FN gexx_init_GASNET_PARSYNC
#define GEXX_THREAD_MODE_ID 1
#elif !defined(GASNET_SEQ) && !defined(GASNET_PARSYNC) && defined(GASNET_PAR)
#undef GASNET_PAR
#define GASNET_PAR 1
#define GEXX_THREAD_MODEL PAR
#define GEXX_CLIENT_INIT_FN gexx_Client_Init_GASNET_PAR
#define GEXX_INIT_FN gexx_init_GASNET_PAR
#define GEXX_THREAD_MODE_ID 2
#else
#error \
    "gexx: define exactly one of GASNET_SEQ, GASNET_PARSYNC or GASNET_PAR before including gasnetex.h or gasnet.h (the installed .mak/.pc/CMake files add it for you)"
#endif

#ifdef __cplusplus
#define GEXX_BEGIN_EXTERNC extern "C" {
#define GEXX_END_EXTERNC }
#else
#define GEXX_BEGIN_EXTERNC
#define GEXX_END_EXTERNC
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GEXX_NORETURN __attribute__((__noreturn__))
#else
#define GEXX_NORETURN
#endif

GEXX_BEGIN_EXTERNC

/* ---- error codes (shared with GASNet-1; GASNET_OK is zero) ---- */
#define GASNET_OK 0
#define _GASNET_ERR_BASE 10000
#define GASNET_ERR_NOT_INIT (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* ---- basic types ---- */
typedef uint32_t gex_Rank_t;
#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)

typedef uint32_t gex_Flags_t;
typedef void *gex_Addr_t;
typedef uint16_t gex_EP_Index_t;
typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef uintptr_t gex_RMA_Value_t;
typedef uint32_t gex_EC_t;

/* Opaque objects; every handle is pointer-sized and zero is invalid. */
typedef struct gexx_client_s *gex_Client_t;
typedef struct gexx_ep_s *gex_EP_t;
typedef struct gexx_tm_s *gex_TM_t;
typedef struct gexx_segment_s *gex_Segment_t;
typedef struct gexx_token_s *gex_Token_t;
typedef struct gexx_event_s *gex_Event_t;

#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)

#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)

/* ---- flags (bits are disjoint within one API family) ---- */
#define GEX_FLAG_USES_GASNET1 ((gex_Flags_t)1u << 0)
#define GEX_FLAG_IMMEDIATE ((gex_Flags_t)1u << 1)
#define GEX_FLAG_RANK_IS_JOBRANK ((gex_Flags_t)1u << 2)

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

/* Not built yet: ends the job with a message naming the function. */
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

/* ---- NBI access regions (they do not nest) ---- */
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- events ----
 * Test calls do not poll and return 0 on success; Wait calls poll. */
extern int gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
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

/* Registration flags (gex_AM_Entry_t.gex_flags) */
#define GEX_FLAG_AM_SHORT ((gex_Flags_t)1u << 0)
#define GEX_FLAG_AM_MEDIUM ((gex_Flags_t)1u << 1)
#define GEX_FLAG_AM_LONG ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST ((gex_Flags_t)1u << 3)
#define GEX_FLAG_AM_REPLY ((gex_Flags_t)1u << 4)
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* Injection and query flags (disjoint from GEX_FLAG_IMMEDIATE) */
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT ((gex_Flags_t)1u << 8)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC ((gex_Flags_t)1u << 9)

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

GEXX_END_EXTERNC

#include <gexx_am_ex.h>

/* The conduit's own headers, in the order GASNet includes them. */
#include <gasnet_core_help.h>
#include <gasnet_core.h>
#include <gasnet_extended.h>

#endif /* GASNETEX_H */
