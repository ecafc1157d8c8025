#include <gtest/gtest.h>
#include "calc.h"

TEST(Calc, Add) {
  EXPECT_EQ(add(2, 2), 4);
  EXPECT_TRUE(add(1, 2) == 3);
}
