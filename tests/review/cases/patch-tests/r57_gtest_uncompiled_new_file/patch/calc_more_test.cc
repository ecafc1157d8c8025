#include <gtest/gtest.h>
#include "calc.h"

TEST(Calc, AddFive) {
  EXPECT_TRUE(add(5, 1) == 6);
}
