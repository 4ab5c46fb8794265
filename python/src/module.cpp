// tilegrad._core: the extension module. Library exceptions become Python exceptions: InvalidArgument ->
// tilegrad.InvalidArgument (a ValueError), IoError -> tilegrad.IoError (an OSError), Unsupported ->
// tilegrad.Unsupported (a RuntimeError), OutOfMemory -> tilegrad.OutOfMemory (a MemoryError), others ->
// tilegrad.Error (a RuntimeError).
#include <nanobind/nanobind.h>

#include "tilegrad/core/config.h"
#include "tilegrad/core/error.h"

namespace nb = nanobind;

namespace tilegrad::python {
void bind_render(nb::module_& m);
void bind_io(nb::module_& m);
void bind_train(nb::module_& m);
void bind_benchmark(nb::module_& m);
}  // namespace tilegrad::python

NB_MODULE(_core, m) {
  m.doc() = "tilegrad's C++ library (rasterizer, file formats, trainer); use the tilegrad package";
  m.attr("version") = TILEGRAD_VERSION;
  // A Render kept alive at exit by another framework's objects (an autograd graph in a global) is no leak of ours.
  nb::set_leak_warnings(false);
  nb::exception<tilegrad::Error> error(m, "Error", PyExc_RuntimeError);
  nb::exception<tilegrad::InvalidArgument> invalid(m, "InvalidArgument", PyExc_ValueError);
  nb::exception<tilegrad::IoError> io_error(m, "IoError", PyExc_OSError);
  nb::exception<tilegrad::Unsupported> unsupported(m, "Unsupported", PyExc_RuntimeError);
  nb::exception<tilegrad::OutOfMemory> out_of_memory(m, "OutOfMemory", PyExc_MemoryError);
  tilegrad::python::bind_render(m);
  tilegrad::python::bind_io(m);
  tilegrad::python::bind_train(m);
  tilegrad::python::bind_benchmark(m);
}
