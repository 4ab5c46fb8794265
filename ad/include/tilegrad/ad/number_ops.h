// What the derivative numbers (Dual, Hyper) share, written once: a number type with scalar T derives from
// NumberOps<Number, T> and defines its value v, zip (which visits the pairs of value and derivative parts of two
// numbers) and the products and quotients of numbers; NumberOps gives the linear operations (negation, sums,
// scaling), the rest of the arithmetic derived from them, the comparisons, which look at the value only, and
// value().
#pragma once
#include "tilegrad/core/common.h"

namespace tilegrad {

template <class Number, class T>
struct NumberOps {
  TG_HD friend T value(const Number& a) { return a.v; }  // the plain value (core/math.h's for scalars)

  // Linear operations act on the value and every derivative part alike (Number::zip visits the pairs of parts).
  TG_HD friend Number operator-(const Number& a) {
    Number r;
    Number::zip(r, a, [](T& x, T y) { x = -y; });
    return r;
  }
  TG_HD friend Number& operator+=(Number& a, const Number& b) {
    Number::zip(a, b, [](T& x, T y) { x += y; });
    return a;
  }
  TG_HD friend Number& operator-=(Number& a, const Number& b) {
    Number::zip(a, b, [](T& x, T y) { x -= y; });
    return a;
  }
  TG_HD friend Number& operator*=(Number& a, T b) {
    Number::zip(a, a, [b](T& x, T) { x *= b; });
    return a;
  }

  // A scalar changes the value only, or scales every part.
  TG_HD friend Number& operator+=(Number& a, T b) {
    a.v += b;
    return a;
  }
  TG_HD friend Number& operator-=(Number& a, T b) {
    a.v -= b;
    return a;
  }
  TG_HD friend Number& operator/=(Number& a, T b) { return a *= T(1) / b; }
  TG_HD friend Number& operator*=(Number& a, const Number& b) { return a = a * b; }
  TG_HD friend Number& operator/=(Number& a, const Number& b) { return a = a / b; }

  TG_HD friend Number operator+(Number a, const Number& b) { return a += b; }
  TG_HD friend Number operator-(Number a, const Number& b) { return a -= b; }
  TG_HD friend Number operator+(Number a, T b) { return a += b; }
  TG_HD friend Number operator+(T a, Number b) { return b += a; }
  TG_HD friend Number operator-(Number a, T b) { return a -= b; }
  TG_HD friend Number operator-(T a, const Number& b) {
    Number r = -b;
    r.v += a;
    return r;
  }
  TG_HD friend Number operator*(Number a, T b) { return a *= b; }
  TG_HD friend Number operator*(T a, Number b) { return b *= a; }
  TG_HD friend Number operator/(Number a, T b) { return a *= T(1) / b; }

  TG_HD friend bool operator<(const Number& a, const Number& b) { return a.v < b.v; }
  TG_HD friend bool operator>(const Number& a, const Number& b) { return a.v > b.v; }
  TG_HD friend bool operator<=(const Number& a, const Number& b) { return a.v <= b.v; }
  TG_HD friend bool operator>=(const Number& a, const Number& b) { return a.v >= b.v; }
  TG_HD friend bool operator==(const Number& a, const Number& b) { return a.v == b.v; }
  TG_HD friend bool operator!=(const Number& a, const Number& b) { return a.v != b.v; }
  TG_HD friend bool operator<(const Number& a, T b) { return a.v < b; }
  TG_HD friend bool operator>(const Number& a, T b) { return a.v > b; }
  TG_HD friend bool operator<=(const Number& a, T b) { return a.v <= b; }
  TG_HD friend bool operator>=(const Number& a, T b) { return a.v >= b; }
  TG_HD friend bool operator<(T a, const Number& b) { return a < b.v; }
  TG_HD friend bool operator>(T a, const Number& b) { return a > b.v; }
  TG_HD friend bool operator<=(T a, const Number& b) { return a <= b.v; }
  TG_HD friend bool operator>=(T a, const Number& b) { return a >= b.v; }
};

}  // namespace tilegrad
