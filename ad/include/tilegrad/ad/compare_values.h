// Comparisons of derivative numbers (Dual, Hyper) look at the value only, written once: a number type with scalar
// T derives from CompareValues<Number, T> and gets ==, !=, <, >, <=, >= between numbers and with scalars.
#pragma once
#include "tilegrad/core/common.h"

namespace tilegrad {

template <class Number, class T>
struct CompareValues {
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
