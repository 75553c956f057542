#include <gtest/gtest.h>

#include <vector>

#include "core/handlers.hpp"

using gexx::core::HandlerTable;

namespace {
void f1() {}
void f2() {}
void f3() {}
}  // namespace

TEST(HandlerTable, IndexZeroGetsFreeIndicesDeterministically) {
  uint8_t idx[3] = {0, 255, 0};
  HandlerTable::LegacyEntry e[3] = {{&idx[0], f1}, {&idx[1], f2}, {&idx[2], f3}};
  HandlerTable t;
  EXPECT_EQ(t.register_legacy(e, 3), "");
  EXPECT_EQ(idx[1], 255);
  EXPECT_EQ(idx[0], 254);  // highest free index, in table order
  EXPECT_EQ(idx[2], 253);
  EXPECT_EQ(t.entry(254).fn, &f1);
  EXPECT_EQ(t.entry(255).fn, &f2);

  uint8_t again[3] = {0, 255, 0};
  HandlerTable::LegacyEntry e2[3] = {{&again[0], f1}, {&again[1], f2}, {&again[2], f3}};
  HandlerTable t2;
  t2.register_legacy(e2, 3);
  EXPECT_EQ(again[0], idx[0]);
  EXPECT_EQ(again[2], idx[2]);
}

TEST(HandlerTable, RejectsReservedAndDuplicateIndices) {
  uint8_t low = 5;
  HandlerTable::LegacyEntry e[1] = {{&low, f1}};
  HandlerTable t;
  EXPECT_NE(t.register_legacy(e, 1).find("128 to 255"), std::string::npos);
  uint8_t dup[2] = {200, 200};
  HandlerTable::LegacyEntry d[2] = {{&dup[0], f1}, {&dup[1], f2}};
  EXPECT_NE(t.register_legacy(d, 2).find("twice"), std::string::npos);
}

TEST(HandlerTable, InternalHandlersStayOutOfTheClientsWay) {
  HandlerTable t;
  gex_AM_Entry_t internal{};
  internal.gex_index = gexx::core::kBarrierHandler;
  internal.gex_fnptr = reinterpret_cast<gex_AM_Fn_t>(f1);
  internal.gex_flags = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST;
  internal.gex_nargs = 4;
  internal.gex_name = "barrier";
  t.register_internal(internal);
  EXPECT_EQ(t.entry(gexx::core::kBarrierHandler).fn, reinterpret_cast<gex_AM_Fn_t>(f1));
  EXPECT_TRUE(t.entry(gexx::core::kBarrierHandler).checked);
  // A client may neither name it nor be given it for index 0.
  uint8_t same = gexx::core::kBarrierHandler;
  HandlerTable::LegacyEntry e[1] = {{&same, f2}};
  EXPECT_NE(t.register_legacy(e, 1).find("128 to 255"), std::string::npos);
  std::vector<gex_AM_Entry_t> all(128);
  for (auto &c : all)
    c = {0,
         reinterpret_cast<gex_AM_Fn_t>(f3),
         GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP,
         0,
         nullptr,
         nullptr};
  EXPECT_EQ(t.register_ex(all.data(), all.size()), "");
  for (auto &c : all) EXPECT_GE(c.gex_index, 128);
  gex_AM_Entry_t one = all[0];
  one.gex_index = 0;
  EXPECT_NE(t.register_ex(&one, 1), "");
  EXPECT_EQ(t.entry(gexx::core::kBarrierHandler).fn, reinterpret_cast<gex_AM_Fn_t>(f1));
}
