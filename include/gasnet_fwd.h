/* gasnet_fwd.h: the thread-mode selection and the basic GASNet-EX types
 * (ranks, flags, handles of the opaque objects), on their own so that a
 * header can name them without the whole API. Included by gasnetex.h; a
 * client may include it alone (one of GASNET_SEQ, GASNET_PARSYNC or
 * GASNET_PAR defined, as for gasnetex.h). */
#ifndef GASNET_FWD_H
#define GASNET_FWD_H
#define _GASNET_FWD_H

#include <stddef.h>
#include <stdint.h>

#include <gasnet_config.h>

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

/* ---- data types and operations of atomics and reductions ----
 * Each value is one bit, so a client may OR them into sets (gex_AD_Create
 * takes a set of operations). The fetching form of an operation (SWAP for
 * SET, FCAS for CAS) sits a fixed number of bits above the non-fetching one:
 * GEX_OP_TO_FETCHING / GEX_OP_TO_NONFETCHING move between the two. */
typedef uint32_t gex_DT_t;
#define GEX_DT_I32 ((gex_DT_t)1u << 0)
#define GEX_DT_U32 ((gex_DT_t)1u << 1)
#define GEX_DT_I64 ((gex_DT_t)1u << 2)
#define GEX_DT_U64 ((gex_DT_t)1u << 3)
#define GEX_DT_FLT ((gex_DT_t)1u << 4)
#define GEX_DT_DBL ((gex_DT_t)1u << 5)
#define GEX_DT_USER ((gex_DT_t)1u << 6)

typedef uint32_t gex_OP_t;
/* non-fetching: bits 0..11 */
#define GEX_OP_AND ((gex_OP_t)1u << 0)
#define GEX_OP_OR ((gex_OP_t)1u << 1)
#define GEX_OP_XOR ((gex_OP_t)1u << 2)
#define GEX_OP_ADD ((gex_OP_t)1u << 3)
#define GEX_OP_SUB ((gex_OP_t)1u << 4)
#define GEX_OP_MULT ((gex_OP_t)1u << 5)
#define GEX_OP_MIN ((gex_OP_t)1u << 6)
#define GEX_OP_MAX ((gex_OP_t)1u << 7)
#define GEX_OP_INC ((gex_OP_t)1u << 8)
#define GEX_OP_DEC ((gex_OP_t)1u << 9)
#define GEX_OP_SET ((gex_OP_t)1u << 10)
#define GEX_OP_CAS ((gex_OP_t)1u << 11)
/* their fetching forms, bits 12..23 (SET's is SWAP, CAS's is FCAS) */
#define GEXX_OP_FETCH_SHIFT 12
#define GEX_OP_FAND (GEX_OP_AND << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FOR (GEX_OP_OR << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FXOR (GEX_OP_XOR << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FADD (GEX_OP_ADD << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FSUB (GEX_OP_SUB << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FMULT (GEX_OP_MULT << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FMIN (GEX_OP_MIN << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FMAX (GEX_OP_MAX << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FINC (GEX_OP_INC << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FDEC (GEX_OP_DEC << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_SWAP (GEX_OP_SET << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_FCAS (GEX_OP_CAS << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)(op) << GEXX_OP_FETCH_SHIFT)
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)(op) >> GEXX_OP_FETCH_SHIFT)
#define GEX_OP_CSWAP GEX_OP_FCAS
/* the plain read: bit 24 */
#define GEX_OP_GET ((gex_OP_t)1u << 24)
/* client-supplied reductions (collectives only): commutative, and not */
#define GEX_OP_USER ((gex_OP_t)1u << 25)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 26)

/* The GEX_FLAG_* values, here as in GASNet's gasnet_fwd.h: headers that
 * include only this file (UPC++'s atomic.hpp) use them. */
/* ---- flags (bits are disjoint within one API family) ---- */
#define GEX_FLAG_USES_GASNET1 ((gex_Flags_t)1u << 0)
#define GEX_FLAG_IMMEDIATE ((gex_Flags_t)1u << 1)
#define GEX_FLAG_RANK_IS_JOBRANK ((gex_Flags_t)1u << 2)

/* Flags gexx accepts and needs nothing from: every segment is shared memory
 * registered at attach, so what a client says of where the local
 * (SELF_SEG_*) or remote (PEER_SEG_*) addresses of an RMA or AM Long lie
 * changes nothing, and a local-completion leaf is always available
 * (ENABLE_LEAF_LC). Their bits are disjoint from the injection flags above
 * and from each other. */
#define GEX_FLAG_ENABLE_LEAF_LC ((gex_Flags_t)1u << 12)
#define GEX_FLAG_SELF_SEG_UNKNOWN ((gex_Flags_t)1u << 13)
#define GEX_FLAG_SELF_SEG_SOME ((gex_Flags_t)1u << 14)
#define GEX_FLAG_SELF_SEG_BOUND ((gex_Flags_t)1u << 15)
#define GEX_FLAG_SELF_SEG_OFFSET ((gex_Flags_t)1u << 16)
#define GEX_FLAG_PEER_SEG_UNKNOWN ((gex_Flags_t)1u << 17)
#define GEX_FLAG_PEER_SEG_SOME ((gex_Flags_t)1u << 18)
#define GEX_FLAG_PEER_SEG_BOUND ((gex_Flags_t)1u << 19)
#define GEX_FLAG_PEER_SEG_OFFSET ((gex_Flags_t)1u << 20)
/* Team-construction flags (gex_TM_Split, gex_TM_Create). */
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN ((gex_Flags_t)1u << 21)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)1u << 22)
#define GEX_FLAG_TM_GLOBAL_SCRATCH ((gex_Flags_t)1u << 23)
#define GEX_FLAG_TM_LOCAL_SCRATCH ((gex_Flags_t)1u << 24)
#define GEX_FLAG_TM_NO_SCRATCH ((gex_Flags_t)1u << 25)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH ((gex_Flags_t)1u << 26)
#define GEX_FLAG_SCRATCH_SEG_OFFSET ((gex_Flags_t)1u << 27)
/* gex_TM_Destroy / gex_AD_Destroy: the caller promises no operation on the
 * object is in flight anywhere, so no synchronisation is needed. */
#define GEX_FLAG_GLOBALLY_QUIESCED ((gex_Flags_t)1u << 10)
/* Remote-atomic operation flags (gex_AD_Op*), beside GEX_FLAG_IMMEDIATE and
 * GEX_FLAG_RANK_IS_JOBRANK. */
#define GEX_FLAG_AD_MY_RANK ((gex_Flags_t)1u << 28)
#define GEX_FLAG_AD_MY_NBRHD ((gex_Flags_t)1u << 29)
#define GEX_FLAG_AD_ACQ ((gex_Flags_t)1u << 30)
#define GEX_FLAG_AD_REL ((gex_Flags_t)1u << 31)
/* Remote-atomic domain creation hints (gex_AD_Create). */
#define GEX_FLAG_AD_FAVOR_MY_RANK ((gex_Flags_t)1u << 5)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD ((gex_Flags_t)1u << 6)
#define GEX_FLAG_AD_FAVOR_REMOTE ((gex_Flags_t)1u << 7)

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

#endif /* GASNET_FWD_H */
