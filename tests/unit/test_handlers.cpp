#include <gtest/gtest.h>

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
