// DLPack intake checks and buffer export (arrays.h).
#include "arrays.h"

#include <sstream>

#include "ops.h"
#include "tilegrad/core/error.h"

namespace tilegrad::python {
namespace {

std::string shape_text(const Array& a) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < a.ndim(); ++i) os << (i ? ", " : "") << a.shape(i);
  os << "]";
  return os.str();
}

std::string shape_text(std::initializer_list<long> shape) {
  std::ostringstream os;
  os << "[";
  bool first = true;
  for (long s : shape) {
    os << (first ? "" : ", ");
    if (s < 0) {
      os << "*";
    } else {
      os << s;
    }
    first = false;
  }
  os << "]";
  return os.str();
}

const char* dtype_name(nb::dlpack::dtype t) {
  switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
    case nb::dlpack::dtype_code::Float:
      return t.bits == 64 ? "float64" : (t.bits == 16 ? "float16" : (t.bits == 32 ? "float32" : "float"));
    case nb::dlpack::dtype_code::Int:
      return "int";
    case nb::dlpack::dtype_code::UInt:
      return "uint";
    case nb::dlpack::dtype_code::Bfloat:
      return "bfloat16";
    case nb::dlpack::dtype_code::Bool:
      return "bool";
    default:
      return "a non-float type";
  }
}

void check(const Array& a, const char* name, Device device, std::initializer_list<long> shape) {
  TG_CHECK_ARG(a.is_valid(), name, ": missing array");
  TG_CHECK_ARG(a.dtype() == nb::dtype<float>(), name, " must be float32, got ", dtype_name(a.dtype()));
  const Device d = device_of(a, name);
  TG_CHECK_ARG(d == device, name, " is on ", to_string(d), " but the Gaussians are on ", to_string(device),
               " (all arrays of a call must be on one device)");
  bool ok = a.ndim() == shape.size();
  std::size_t i = 0;
  for (long s : shape) {
    if (ok && s >= 0 && a.shape(i) != static_cast<std::size_t>(s)) ok = false;
    ++i;
  }
  TG_CHECK_ARG(ok, name, " must have shape ", shape_text(shape), ", got ", shape_text(a));
  if (a.size() == 0 || a.stride_ptr() == nullptr) return;  // empty, or compact row-major (DLPack: no strides)
  std::int64_t expected = 1;
  for (std::size_t k = a.ndim(); k-- > 0;) {
    TG_CHECK_ARG(a.shape(k) <= 1 || a.stride(k) == expected, name,
                 " must be C-contiguous (the Python layer makes contiguous copies; this is a bug if seen there)");
    expected *= static_cast<std::int64_t>(a.shape(k));
  }
}

}  // namespace

Device device_of(const Array& a, const char* name) {
  if (a.device_type() == nb::device::cpu::value) return Device::Cpu;
  TG_CHECK_ARG(a.device_type() == nb::device::cuda::value, name,
               " is on an unsupported device (tilegrad takes CPU and CUDA arrays)");
  TG_CHECK_ARG(cuda_available(), name, " is a CUDA array but this tilegrad build or machine has no CUDA device: ",
               cuda_device_description());
  const int current = cuda::current_device();
  TG_CHECK_ARG(a.device_id() == current, name, " is on cuda:", a.device_id(), " but tilegrad renders on the current "
               "CUDA device cuda:", current, " (select it with torch.cuda.set_device / cudaSetDevice)");
  return Device::Cuda;
}

View<const float> float_view(const Array& a, const char* name, Device device, std::initializer_list<long> shape) {
  check(a, name, device, shape);
  return View<const float>(static_cast<const float*>(a.data()), a.size(), device);
}

template <class T>
OutArray to_array(Buffer<T>&& buffer, std::vector<std::size_t> shape) {
  auto* owned = new Buffer<T>(std::move(buffer));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Buffer<T>*>(p); });
  const int device_type = owned->device() == Device::Cpu ? nb::device::cpu::value : nb::device::cuda::value;
  const int device_id = owned->device() == Device::Cpu ? 0 : cuda::current_device();
  return OutArray(owned->data(), shape.size(), shape.data(), owner, nullptr, nb::dtype<T>(), device_type, device_id);
}

template OutArray to_array(Buffer<float>&&, std::vector<std::size_t>);
template OutArray to_array(Buffer<std::int32_t>&&, std::vector<std::size_t>);
template OutArray to_array(Buffer<std::uint8_t>&&, std::vector<std::size_t>);

}  // namespace tilegrad::python
