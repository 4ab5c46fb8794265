// Host build of the sphere hierarchy: recursive median split on the longest axis of the centroid bounds.
// A median split keeps the tree balanced (depth <= log2(n) + 1), which bounds the traversal stack.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tilegrad/pathtracer/bvh.h"

namespace tilegrad::pathtracer {
namespace {

constexpr int kLeafSize = 4;

struct Box {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  void grow(const float* a, const float* b) {
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], a[i]);
      hi[i] = std::max(hi[i], b[i]);
    }
  }
};

template <class T>
struct Builder {
  const std::vector<SphereGeometry<T>>& spheres;
  std::vector<Box> boxes;       // per sphere, rounded outwards to float
  std::vector<float> centroid;  // per sphere, 3 floats
  Bvh out;

  explicit Builder(const std::vector<SphereGeometry<T>>& s) : spheres(s) {
    boxes.resize(s.size());
    centroid.resize(3 * s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      const T c[3] = {s[i].x, s[i].y, s[i].z};
      for (int k = 0; k < 3; ++k) {
        // float boxes for a double scene: widen by a relative margin so that they stay conservative.
        const double lo = static_cast<double>(c[k]) - static_cast<double>(s[i].r);
        const double hi = static_cast<double>(c[k]) + static_cast<double>(s[i].r);
        const double pad = 1e-6 * (std::fabs(lo) + std::fabs(hi)) + 1e-30;
        boxes[i].lo[k] = std::nextafter(static_cast<float>(lo - pad), -INFINITY);
        boxes[i].hi[k] = std::nextafter(static_cast<float>(hi + pad), INFINITY);
        centroid[3 * i + k] = static_cast<float>(c[k]);
      }
    }
  }

  // Builds the subtree of order[begin, end) into node `index` (already allocated).
  void build(std::size_t index, std::uint32_t begin, std::uint32_t end) {
    Box box, cbox;
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t id = out.order[k];
      box.grow(boxes[id].lo, boxes[id].hi);
      cbox.grow(&centroid[3 * id], &centroid[3 * id]);
    }
    BvhNode& n = out.nodes[index];
    for (int i = 0; i < 3; ++i) {
      n.lo[i] = box.lo[i];
      n.hi[i] = box.hi[i];
    }
    if (end - begin <= kLeafSize) {
      n.first = static_cast<std::int32_t>(begin);
      n.count = static_cast<std::int32_t>(end - begin);
      return;
    }
    int axis = 0;
    for (int i = 1; i < 3; ++i)
      if (cbox.hi[i] - cbox.lo[i] > cbox.hi[axis] - cbox.lo[axis]) axis = i;
    const std::uint32_t mid = begin + (end - begin) / 2;
    // Ties broken by id: the same tree for the same scene on every run and platform.
    std::nth_element(out.order.begin() + begin, out.order.begin() + mid, out.order.begin() + end,
                     [&](std::uint32_t a, std::uint32_t b) {
                       const float ca = centroid[3 * a + axis], cb = centroid[3 * b + axis];
                       return ca < cb || (ca == cb && a < b);
                     });
    const std::size_t left = out.nodes.size();
    out.nodes.emplace_back();
    out.nodes.emplace_back();
    out.nodes[index].first = static_cast<std::int32_t>(left);
    out.nodes[index].count = 0;
    build(left, begin, mid);
    build(left + 1, mid, end);
  }
};

}  // namespace

template <class T>
Bvh build_bvh(const std::vector<SphereGeometry<T>>& spheres) {
  Builder<T> b(spheres);
  if (spheres.empty()) return {};
  b.out.order.resize(spheres.size());
  std::iota(b.out.order.begin(), b.out.order.end(), 0u);
  b.out.nodes.reserve(2 * spheres.size() / kLeafSize + 2);
  b.out.nodes.emplace_back();
  b.build(0, 0, static_cast<std::uint32_t>(spheres.size()));
  return std::move(b.out);
}

template Bvh build_bvh<float>(const std::vector<SphereGeometry<float>>&);
template Bvh build_bvh<double>(const std::vector<SphereGeometry<double>>&);

}  // namespace tilegrad::pathtracer
