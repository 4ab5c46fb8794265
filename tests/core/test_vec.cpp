// Small vector and matrix algebra.
#include <gtest/gtest.h>

#include "tilegrad/core/vec.h"

using namespace tilegrad;

TEST(Vec, CrossDotNorm) {
  Vec3<double> a{{1, 2, 3}}, b{{-2, 0.5, 4}};
  Vec3<double> c = cross(a, b);
  EXPECT_DOUBLE_EQ(dot(c, a), 0.0);
  EXPECT_DOUBLE_EQ(dot(c, b), 0.0);
  EXPECT_DOUBLE_EQ(norm(Vec3<double>{{3, 4, 12}}), 13.0);
}

TEST(Mat, ProductTransposeDeterminant) {
  Mat3<double> a{{{1, 2, 0}, {0, 1, 3}, {4, 0, 1}}};
  Mat3<double> i = Mat3<double>::identity();
  Mat3<double> p = a * i;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(p(r, c), a(r, c));
  EXPECT_DOUBLE_EQ(determinant(a), 1 * (1 - 0) - 2 * (0 - 12) + 0);
  EXPECT_DOUBLE_EQ(determinant(a.transposed()), determinant(a));
  Vec3<double> x{{1, -1, 2}};
  Vec3<double> y = a * x;
  EXPECT_DOUBLE_EQ(y[0], -1);
  EXPECT_DOUBLE_EQ(y[1], 5);
  EXPECT_DOUBLE_EQ(y[2], 6);
}
