// Buffer<T>: owning, device-tagged array with explicit copies; View<T>: non-owning pointer + size + device,
// which is also how user code passes its own allocations (raw pointers) into tilegrad.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"

namespace tilegrad {

template <class T>
struct View {
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>>, "View holds trivially copyable elements");
  T* ptr = nullptr;
  std::size_t count = 0;
  Device device = Device::Cpu;

  View() = default;
  View(T* p, std::size_t n, Device d) : ptr(p), count(n), device(d) {}
  // A View<T> converts to View<const T>.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  View(const View<U>& other) : ptr(other.ptr), count(other.count), device(other.device) {}

  T* data() const { return ptr; }
  std::size_t size() const { return count; }
  bool empty() const { return count == 0; }
  std::size_t bytes() const { return count * sizeof(T); }
  View subview(std::size_t offset, std::size_t n) const {
    TG_CHECK_ARG(offset + n <= count, "subview [", offset, ", ", offset + n, ") out of range (size ", count, ")");
    return View(ptr + offset, n, device);
  }
};

// Checks a view's size and device; `what` names the argument in the error message.
template <class T>
void check_view(const View<T>& v, std::size_t expected, Device device, const char* what) {
  TG_CHECK_ARG(v.count == expected, what, ": expected ", expected, " elements, got ", v.count);
  TG_CHECK_ARG(v.device == device, what, ": expected a ", to_string(device), " buffer, got ", to_string(v.device));
  TG_CHECK_ARG(expected == 0 || v.ptr != nullptr, what, ": null pointer with non-zero size ", expected);
}

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer holds trivially copyable elements");

 public:
  Buffer() = default;
  Buffer(std::size_t count, Device device)
      : m_ptr(static_cast<T*>(memory::allocate(device, count * sizeof(T)))), m_count(count), m_device(device) {}
  ~Buffer() { memory::release(m_device, m_ptr); }

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : m_ptr(o.m_ptr), m_count(o.m_count), m_device(o.m_device) {
    o.m_ptr = nullptr;
    o.m_count = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      memory::release(m_device, m_ptr);
      m_ptr = std::exchange(o.m_ptr, nullptr);
      m_count = std::exchange(o.m_count, 0);
      m_device = o.m_device;
    }
    return *this;
  }

  static Buffer zeros(std::size_t count, Device device) {
    Buffer b(count, device);
    b.zero();
    return b;
  }
  static Buffer from(const T* host, std::size_t count, Device device) {
    Buffer b(count, device);
    memory::copy(b.m_ptr, device, host, Device::Cpu, count * sizeof(T));
    return b;
  }
  static Buffer from(const std::vector<T>& host, Device device) { return from(host.data(), host.size(), device); }
  static Buffer from(View<const T> src, Device device) {
    Buffer b(src.count, device);
    memory::copy(b.m_ptr, device, src.ptr, src.device, src.bytes());
    return b;
  }

  T* data() { return m_ptr; }
  const T* data() const { return m_ptr; }
  std::size_t size() const { return m_count; }
  std::size_t bytes() const { return m_count * sizeof(T); }
  bool empty() const { return m_count == 0; }
  Device device() const { return m_device; }

  View<T> view() { return View<T>(m_ptr, m_count, m_device); }
  View<const T> view() const { return View<const T>(m_ptr, m_count, m_device); }
  View<const T> cview() const { return view(); }

  void zero() { memory::fill_zero(m_ptr, m_device, bytes()); }
  // Reallocates (contents discarded) when the size or device differs.
  void reset(std::size_t count, Device device) {
    if (count != m_count || device != m_device) *this = Buffer(count, device);
  }
  // Reallocates (contents discarded) only when smaller than `count` or on another device. The device is
  // explicit: a default-constructed buffer is a CPU buffer, and growing it "on its device" would silently
  // give host memory to a CUDA caller.
  void reserve_discard(std::size_t count, Device device) {
    if (count > m_count || device != m_device) *this = Buffer(count, device);
  }
  // Becomes a copy of `src` on `device`, keeping its allocation when the size and device are unchanged.
  void assign(View<const T> src, Device device) {
    reset(src.count, device);
    memory::copy(m_ptr, m_device, src.ptr, src.device, src.bytes());
  }
  void copy_from(View<const T> src) {
    TG_CHECK_ARG(src.count == m_count, "copy_from: size mismatch (", src.count, " vs ", m_count, ")");
    memory::copy(m_ptr, m_device, src.ptr, src.device, bytes());
  }
  std::vector<T> to_vector() const {
    std::vector<T> host(m_count);
    memory::copy(host.data(), Device::Cpu, m_ptr, m_device, bytes());
    return host;
  }
  Buffer to(Device device) const { return from(view(), device); }
  Buffer clone() const { return to(m_device); }

 private:
  T* m_ptr = nullptr;
  std::size_t m_count = 0;
  Device m_device = Device::Cpu;
};

template <class T>
std::vector<std::remove_const_t<T>> to_vector(View<T> v) {
  std::vector<std::remove_const_t<T>> host(v.count);
  memory::copy(host.data(), Device::Cpu, v.ptr, v.device, v.bytes());
  return host;
}

}  // namespace tilegrad
