// Small fixed-size vectors and matrices over any scalar (float, double, AD numbers), for host and device.
#pragma once
#include "tilegrad/core/common.h"
#include "tilegrad/core/math.h"

namespace tilegrad {

template <class T, int N>
struct Vec {
  T v[N];

  TG_HD T& operator[](int i) { return v[i]; }
  TG_HD const T& operator[](int i) const { return v[i]; }
  static constexpr int size() { return N; }

  TG_HD static Vec filled(const T& x) {
    Vec r;
    TG_UNROLL for (int i = 0; i < N; ++i) r.v[i] = x;
    return r;
  }
  TG_HD static Vec zero() { return filled(T(0)); }

  // Converts element-wise (e.g. Vec<float> -> Vec<Dual<float, K>>).
  template <class U>
  TG_HD Vec<U, N> cast() const {
    Vec<U, N> r;
    TG_UNROLL for (int i = 0; i < N; ++i) r.v[i] = U(v[i]);
    return r;
  }

  TG_HD Vec& operator+=(const Vec& o) {
    TG_UNROLL for (int i = 0; i < N; ++i) v[i] += o.v[i];
    return *this;
  }
  TG_HD Vec& operator-=(const Vec& o) {
    TG_UNROLL for (int i = 0; i < N; ++i) v[i] -= o.v[i];
    return *this;
  }
  TG_HD Vec& operator*=(const T& s) {
    TG_UNROLL for (int i = 0; i < N; ++i) v[i] *= s;
    return *this;
  }
};

template <class T>
using Vec2 = Vec<T, 2>;
template <class T>
using Vec3 = Vec<T, 3>;
template <class T>
using Vec4 = Vec<T, 4>;

template <class T, int N>
TG_HD Vec<T, N> operator+(Vec<T, N> a, const Vec<T, N>& b) {
  return a += b;
}
template <class T, int N>
TG_HD Vec<T, N> operator-(Vec<T, N> a, const Vec<T, N>& b) {
  return a -= b;
}
template <class T, int N>
TG_HD Vec<T, N> operator-(const Vec<T, N>& a) {
  Vec<T, N> r;
  TG_UNROLL for (int i = 0; i < N; ++i) r[i] = -a[i];
  return r;
}
template <class T, int N, class S>
TG_HD Vec<T, N> operator*(Vec<T, N> a, const S& s) {
  TG_UNROLL for (int i = 0; i < N; ++i) a[i] = a[i] * s;
  return a;
}
template <class T, int N, class S>
TG_HD Vec<T, N> operator*(const S& s, Vec<T, N> a) {
  TG_UNROLL for (int i = 0; i < N; ++i) a[i] = s * a[i];
  return a;
}
template <class T, int N, class S>
TG_HD Vec<T, N> operator/(Vec<T, N> a, const S& s) {
  TG_UNROLL for (int i = 0; i < N; ++i) a[i] = a[i] / s;
  return a;
}
// Element-wise product.
template <class T, int N>
TG_HD Vec<T, N> hadamard(Vec<T, N> a, const Vec<T, N>& b) {
  TG_UNROLL for (int i = 0; i < N; ++i) a[i] = a[i] * b[i];
  return a;
}

template <class T, int N>
TG_HD T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s = a[0] * b[0];
  TG_UNROLL for (int i = 1; i < N; ++i) s = s + a[i] * b[i];
  return s;
}
template <class T, int N>
TG_HD T squared_norm(const Vec<T, N>& a) {
  return dot(a, a);
}
template <class T, int N>
TG_HD T norm(const Vec<T, N>& a) {
  return sqrt(dot(a, a));
}
template <class T>
TG_HD Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}
template <class T>
TG_HD T cross(const Vec2<T>& a, const Vec2<T>& b) {
  return a[0] * b[1] - a[1] * b[0];
}

// Row-major R x C matrix.
template <class T, int R, int C>
struct Mat {
  T m[R][C];

  TG_HD T& operator()(int r, int c) { return m[r][c]; }
  TG_HD const T& operator()(int r, int c) const { return m[r][c]; }

  TG_HD static Mat zero() {
    Mat r;
    TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) r.m[i][j] = T(0);
    return r;
  }
  TG_HD static Mat identity() {
    Mat r = zero();
    TG_UNROLL for (int i = 0; i < (R < C ? R : C); ++i) r.m[i][i] = T(1);
    return r;
  }
  TG_HD Vec<T, C> row(int r) const {
    Vec<T, C> v;
    TG_UNROLL for (int j = 0; j < C; ++j) v[j] = m[r][j];
    return v;
  }
  TG_HD Vec<T, R> col(int c) const {
    Vec<T, R> v;
    TG_UNROLL for (int i = 0; i < R; ++i) v[i] = m[i][c];
    return v;
  }
  TG_HD Mat<T, C, R> transposed() const {
    Mat<T, C, R> t;
    TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) t.m[j][i] = m[i][j];
    return t;
  }
};

template <class T>
using Mat2 = Mat<T, 2, 2>;
template <class T>
using Mat3 = Mat<T, 3, 3>;

template <class T, int R, int K, int C>
TG_HD Mat<T, R, C> operator*(const Mat<T, R, K>& a, const Mat<T, K, C>& b) {
  Mat<T, R, C> r;
  TG_UNROLL for (int i = 0; i < R; ++i) {
    TG_UNROLL for (int j = 0; j < C; ++j) {
      T s = a.m[i][0] * b.m[0][j];
      TG_UNROLL for (int k = 1; k < K; ++k) s = s + a.m[i][k] * b.m[k][j];
      r.m[i][j] = s;
    }
  }
  return r;
}
template <class T, int R, int C>
TG_HD Vec<T, R> operator*(const Mat<T, R, C>& a, const Vec<T, C>& x) {
  Vec<T, R> r;
  TG_UNROLL for (int i = 0; i < R; ++i) r[i] = dot(a.row(i), x);
  return r;
}
template <class T, int R, int C>
TG_HD Mat<T, R, C> operator+(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) a.m[i][j] = a.m[i][j] + b.m[i][j];
  return a;
}
template <class T, int R, int C>
TG_HD Mat<T, R, C> operator-(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) a.m[i][j] = a.m[i][j] - b.m[i][j];
  return a;
}
template <class T, int R, int C, class S>
TG_HD Mat<T, R, C> operator*(Mat<T, R, C> a, const S& s) {
  TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) a.m[i][j] = a.m[i][j] * s;
  return a;
}
template <class T, int R, int C>
TG_HD Mat<T, R, C> outer(const Vec<T, R>& a, const Vec<T, C>& b) {
  Mat<T, R, C> r;
  TG_UNROLL for (int i = 0; i < R; ++i) TG_UNROLL for (int j = 0; j < C; ++j) r.m[i][j] = a[i] * b[j];
  return r;
}

template <class T>
TG_HD T determinant(const Mat2<T>& a) {
  return a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
}
template <class T>
TG_HD T determinant(const Mat3<T>& a) {
  return a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
         a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
}

}  // namespace tilegrad
