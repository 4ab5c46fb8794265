// Workspace: reusable scratch memory on one device. Algorithms ask for slots; a slot grows when too small and is
// kept between calls, so repeated calls (a training loop) allocate nothing. The owner of a workspace names its
// slots with an enum (one enumerator per slot, listed in one place), so no two users share a slot by accident.
#pragma once
#include <cstddef>
#include <type_traits>
#include <vector>

#include "tilegrad/core/buffer.h"

namespace tilegrad {

class Workspace {
 public:
  explicit Workspace(Device device = Device::Cpu) : m_device(device) {}

  Device device() const { return m_device; }

  // Memory for `count` elements of T in slot `index` (an enumerator of the owner's slot enum); contents are
  // unspecified.
  template <class T, class Slot>
  T* slot(Slot index, std::size_t count) {
    static_assert(std::is_enum_v<Slot>, "workspace slots are named by the owner's enum");
    const auto i = static_cast<std::size_t>(index);
    if (i >= m_slots.size()) m_slots.resize(i + 1);
    Buffer<std::byte>& b = m_slots[i];
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
