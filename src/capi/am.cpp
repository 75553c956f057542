// The GASNet-EX active-message entry points: unpack the arguments, then one
// call into core::am::Engine.
#include <gasnetex.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "capi/entry.hpp"
#include "core/am.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "util/gex_names.hpp"
#include "util/log.hpp"

using gexx::core::Runtime;
namespace am = gexx::core::am;

namespace {

am::Engine &engine(const char *api) {
  return Runtime::get(api).am();
}

void check_tm(gex_TM_t tm, const char *api) {
  if (!tm) gexx::util::fatal("%s: the team argument is invalid (null)", api);
}

// The job rank that `rank` of team `tm` names (GEX_FLAG_RANK_IS_JOBRANK:
// `rank` is one already).
inline gex_Rank_t job_rank(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, const char *api) {
  check_tm(tm, api);
  return tm->team.job_rank(api, rank, flags);
}

// The peer of gex_AM_Max*: a rank of the team, or GEX_RANK_INVALID (any).
void check_other_rank(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, const char *api) {
  check_tm(tm, api);
  if (rank != GEX_RANK_INVALID) (void)tm->team.job_rank(api, rank, flags);
}

static_assert(static_cast<int>(gexx::capi::AmForm::Short) == am::kShort &&
              static_cast<int>(gexx::capi::AmForm::Medium) == am::kMedium &&
              static_cast<int>(gexx::capi::AmForm::Long) == am::kLong);

am::Message message(const char *api, am::Category cat, gex_AM_Index_t handler, const void *src,
                    size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                    const am::ArgList &a) {
  return am::Message{api, cat, handler, a.n, a.v, src, nbytes, dest, lc_opt, flags};
}

size_t token_max(gex_Token_t token, const char *api, bool medium) {
  am::Engine &e = engine(api);
  e.reply_token(api, token);
  return medium ? e.max_medium() : e.max_long();
}

}  // namespace

namespace gexx::capi {

void register_legacy_handlers(const char *api, gasnet_handlerentry_t *table, int numentries) {
  Runtime &rt = Runtime::get(api);
  if (numentries < 0 || (numentries > 0 && !table)) {
    util::fatal("%s: the handler table has %d entries but its pointer is %p", api, numentries,
                static_cast<void *>(table));
  }
  std::vector<core::HandlerTable::LegacyEntry> entries;
  for (int i = 0; i < numentries; ++i) entries.push_back({&table[i].index, table[i].fnptr});
  std::string error = rt.handlers().register_legacy(entries.data(), numentries);
  if (!error.empty()) util::fatal("%s: %s", api, error.c_str());
}

int am_request(const char *api, AmForm form, gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
               const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
               unsigned nargs, const gex_AM_Arg_t *args) {
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  am::Message m{
      api, static_cast<am::Category>(form), handler, nargs, args, src, nbytes, dest, lc_opt, flags};
  return engine(api).request(jr, m);
}

int am_reply(const char *api, AmForm form, gex_Token_t token, gex_AM_Index_t handler,
             const void *src, size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
             unsigned nargs, const gex_AM_Arg_t *args) {
  am::Message m{
      api, static_cast<am::Category>(form), handler, nargs, args, src, nbytes, dest, lc_opt, flags};
  return engine(api).reply(token, m);
}

void check_numargs(const char *api, unsigned numargs) {
  if (numargs > am::kMaxArgs) am::too_many_args(api, numargs);
}

gex_Rank_t token_source(const char *api, gex_Token_t token) {
  Runtime::get(api);
  return am::live_token(api, token)->src;
}

}  // namespace gexx::capi

extern "C" {

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries) {
  Runtime &rt = Runtime::get(__func__);
  if (ep != rt.ep())
    gexx::util::fatal("%s: the endpoint argument is not this process's endpoint", __func__);
  if (numentries && !table)
    gexx::util::fatal("%s: %zu entries but the table is NULL", __func__, numentries);
  std::string error = rt.handlers().register_ex(table, numentries);
  if (!error.empty()) gexx::util::fatal("%s: %s", __func__, error.c_str());
  return GASNET_OK;
}

unsigned int gex_AM_MaxArgs(void) {
  return am::kMaxArgs;
}
size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *, gex_Flags_t flags,
                             unsigned int) {
  check_other_rank(tm, rank, flags, __func__);
  return engine(__func__).max_long();
}
size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *, gex_Flags_t flags,
                           unsigned int) {
  check_other_rank(tm, rank, flags, __func__);
  return engine(__func__).max_long();
}
size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *, gex_Flags_t flags,
                               unsigned int) {
  check_other_rank(tm, rank, flags, __func__);
  return engine(__func__).max_medium();
}
size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *, gex_Flags_t flags,
                             unsigned int) {
  check_other_rank(tm, rank, flags, __func__);
  return engine(__func__).max_medium();
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *, gex_Flags_t, unsigned int) {
  return token_max(token, __func__, false);
}
size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *, gex_Flags_t, unsigned int) {
  return token_max(token, __func__, true);
}
size_t gex_AM_LUBRequestLong(void) {
  return engine(__func__).max_long();
}
size_t gex_AM_LUBReplyLong(void) {
  return engine(__func__).max_long();
}
size_t gex_AM_LUBRequestMedium(void) {
  return engine(__func__).max_medium();
}
size_t gex_AM_LUBReplyMedium(void) {
  return engine(__func__).max_medium();
}

namespace {
// What the gasnett_format_* calls return: the bytes the text needs, its NUL
// included; the text itself when buf is not null.
size_t format_out(char *buf, const std::string &text) {
  if (buf) std::memcpy(buf, text.c_str(), text.size() + 1);
  return text.size() + 1;
}
}  // namespace

size_t gasnett_format_ti(char *buf, gex_TI_t ti) {
  return format_out(buf, gexx::util::ti_set_name(ti, "0"));
}
size_t gasnett_format_dt(char *buf, gex_DT_t dt) {
  return format_out(buf, gexx::util::dt_set_name(dt, "0"));
}
size_t gasnett_format_op(char *buf, gex_OP_t op) {
  return format_out(buf, gexx::util::op_set_name(op, "0"));
}

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask) {
  Runtime &rt = Runtime::get(__func__);
  if (!info) gexx::util::fatal("%s: the info pointer is NULL", __func__);
  am::live_token(__func__, token);
  info->gex_srcrank = token->src;
  info->gex_ep = rt.ep();
  info->gex_entry = &token->entry->ex;
  info->gex_is_req = token->is_req ? 1 : 0;
  info->gex_is_long = token->category == am::kLong ? 1 : 0;
  (void)mask;
  return GEX_TI_ALL;
}

int gexx_AM_RequestShort(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, gex_Flags_t flags,
                         unsigned int numargs, ...) {
  const char *api = "gex_AM_RequestShort";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  return engine(api).request(
      jr, message(api, am::kShort, handler, nullptr, 0, nullptr, GEX_EVENT_NOW, flags, a));
}

int gexx_AM_RequestMedium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src,
                          size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                          unsigned int numargs, ...) {
  const char *api = "gex_AM_RequestMedium";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  return engine(api).request(
      jr, message(api, am::kMedium, handler, src, nbytes, nullptr, lc_opt, flags, a));
}

int gexx_AM_RequestLong(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src,
                        size_t nbytes, void *dest, gex_Event_t *lc_opt, gex_Flags_t flags,
                        unsigned int numargs, ...) {
  const char *api = "gex_AM_RequestLong";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  gex_Rank_t jr = job_rank(tm, rank, flags, api);
  return engine(api).request(jr,
                             message(api, am::kLong, handler, src, nbytes, dest, lc_opt, flags, a));
}

int gexx_AM_ReplyShort(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                       unsigned int numargs, ...) {
  const char *api = "gex_AM_ReplyShort";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  return engine(api).reply(
      token, message(api, am::kShort, handler, nullptr, 0, nullptr, GEX_EVENT_NOW, flags, a));
}

int gexx_AM_ReplyMedium(gex_Token_t token, gex_AM_Index_t handler, const void *src, size_t nbytes,
                        gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs, ...) {
  const char *api = "gex_AM_ReplyMedium";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  return engine(api).reply(
      token, message(api, am::kMedium, handler, src, nbytes, nullptr, lc_opt, flags, a));
}

int gexx_AM_ReplyLong(gex_Token_t token, gex_AM_Index_t handler, const void *src, size_t nbytes,
                      void *dest, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs,
                      ...) {
  const char *api = "gex_AM_ReplyLong";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  return engine(api).reply(token,
                           message(api, am::kLong, handler, src, nbytes, dest, lc_opt, flags, a));
}

// ---- negotiated payloads ----

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) {
  if (!sd) gexx::util::fatal("gex_AM_SrcDescAddr: GEX_AM_SRCDESC_NO_OP has no buffer");
  return sd->addr;
}
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) {
  if (!sd) gexx::util::fatal("gex_AM_SrcDescSize: GEX_AM_SRCDESC_NO_OP has no buffer");
  return sd->size;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                             size_t least_payload, size_t most_payload,
                                             gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs) {
  gex_Rank_t jr = job_rank(tm, rank, flags, __func__);
  return engine(__func__).prepare(__func__, false, am::kMedium, nullptr, jr, client_buf,
                                  least_payload, most_payload, nullptr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  return engine(__func__).prepare(__func__, true, am::kMedium, token, 0, client_buf, least_payload,
                                  most_payload, nullptr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs) {
  gex_Rank_t jr = job_rank(tm, rank, flags, __func__);
  return engine(__func__).prepare(__func__, false, am::kLong, nullptr, jr, client_buf,
                                  least_payload, most_payload, dest_addr, lc_opt, flags, numargs);
}
gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload, void *dest_addr,
                                         gex_Event_t *lc_opt, gex_Flags_t flags,
                                         unsigned int numargs) {
  return engine(__func__).prepare(__func__, true, am::kLong, token, 0, client_buf, least_payload,
                                  most_payload, dest_addr, lc_opt, flags, numargs);
}

void gexx_AM_CommitRequestMedium(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                 unsigned int numargs, ...) {
  const char *api = "gex_AM_CommitRequestMedium";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  engine(api).commit(api, sd, false, am::kMedium, handler, nbytes, nullptr, a.n, a.v);
}
void gexx_AM_CommitReplyMedium(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                               unsigned int numargs, ...) {
  const char *api = "gex_AM_CommitReplyMedium";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  engine(api).commit(api, sd, true, am::kMedium, handler, nbytes, nullptr, a.n, a.v);
}
void gexx_AM_CommitRequestLong(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                               void *dest, unsigned int numargs, ...) {
  const char *api = "gex_AM_CommitRequestLong";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  engine(api).commit(api, sd, false, am::kLong, handler, nbytes, dest, a.n, a.v);
}
void gexx_AM_CommitReplyLong(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes, void *dest,
                             unsigned int numargs, ...) {
  const char *api = "gex_AM_CommitReplyLong";
  am::ArgList a;
  GEXX_AM_READ_ARGS(api, numargs, numargs, a);
  engine(api).commit(api, sd, true, am::kLong, handler, nbytes, dest, a.n, a.v);
}

}  // extern "C"
