// Workspace: reusable scratch memory on one device. Algorithms ask for numbered slots; a slot grows when
// too small and is kept between calls, so repeated calls (a training loop) allocate nothing.
#pragma once
#include <cstddef>
#include <vector>

#include "tilegrad/core/buffer.h"

namespace tilegrad {

class Workspace {
 public:
  explicit Workspace(Device device = Device::Cpu) : m_device(device) {}

  Device device() const { return m_device; }

  // Memory for `count` elements of T in slot `index`; contents are unspecified.
  template <class T>
  T* slot(std::size_t index, std::size_t count) {
    if (index >= m_slots.size()) m_slots.resize(index + 1);
    Buffer<std::byte>& b = m_slots[index];
    const std::size_t bytes = count * sizeof(T);
    if (b.size() < bytes || b.device() != m_device) b = Buffer<std::byte>(bytes + bytes / 4, m_device);
    return reinterpret_cast<T*>(b.data());
  }

  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& b : m_slots) total += b.size();
    return total;
  }
  void release() { m_slots.clear(); }

 private:
  Device m_device;
  std::vector<Buffer<std::byte>> m_slots;
};

}  // namespace tilegrad
