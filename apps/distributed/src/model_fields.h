// A Gaussian model's, parameters' and gradients' arrays as field lists (kernels.h's Fields: one pointer and
// width per array), so that rows of all of them are packed, exchanged and unpacked together; and the empty
// models and gradients a partitioned rank fills.
#pragma once
#include <cstddef>

#include "kernels.h"
#include "tilegrad/rasterizer/rasterizer.h"
#include "tilegrad/training/model.h"

namespace tilegrad::distributed::detail {

Fields param_fields(const raster::Gaussians& g);                 // means, log-scales, quats, opacity, SH
Fields gradient_fields(const raster::Gradients& g, int sh_degree);  // the same and the projected-mean gradient
Fields model_fields(const training::GaussianModel& m);           // parameters, both moments, the statistics

raster::Gradients zero_gradients(std::size_t n, int sh_degree, Device d);
training::GaussianModel empty_model(std::size_t n, int sh_degree, Device d);
// Rows [first, first + count) of a host model.
training::GaussianModel slice(const training::GaussianModel& m, std::size_t first, std::size_t count);

}  // namespace tilegrad::distributed::detail
