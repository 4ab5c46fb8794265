// Arrays in and out of the extension through DLPack (nanobind ndarray): checked views of float32 C-contiguous
// arrays on the CPU or the current CUDA device (any framework: NumPy, PyTorch, JAX, CuPy), and library buffers
// handed out without a copy (the array owns the buffer).
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tilegrad/core/buffer.h"

namespace tilegrad::python {

namespace nb = nanobind;
using Array = nb::ndarray<nb::ro>;  // inputs are only read (JAX exports read-only arrays)
// Outputs: nanobind.nb_ndarray objects, which every framework takes through from_dlpack.
using OutArray = nb::ndarray<nb::array_api>;

// The device an array lives on: InvalidArgument naming it for other device types or a CUDA device other than the
// current one.
Device device_of(const Array& a, const char* name);

// A float32, C-contiguous array of the given shape (-1: any extent) on `device`; InvalidArgument naming the array
// and what is wrong otherwise.
View<const float> float_view(const Array& a, const char* name, Device device, std::initializer_list<long> shape);

// A buffer (moved into the array's owner) as an array of this shape.
template <class T>
OutArray to_array(Buffer<T>&& buffer, std::vector<std::size_t> shape);

}  // namespace tilegrad::python
