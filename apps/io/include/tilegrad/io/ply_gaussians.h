// Standard 3D Gaussian splatting .ply files: the layout written by the original 3DGS trainer and read by its
// viewers and by gsplat. One `vertex` element of little-endian floats, in this order:
//   x y z | nx ny nz | f_dc_0..2 | f_rest_0..M-1 | opacity | scale_0..2 | rot_0..3
// f_dc_c is SH coefficient 0 of colour channel c; f_rest is channel-major: f_rest[c * (K - 1) + (k - 1)] is
// coefficient k of channel c, K = (degree + 1)^2, so M = 3 (K - 1) = 0, 9, 24 or 45 for degree 0..3.
// opacity is the logit, scale_i the log-scale, rot_0..3 the quaternion (w, x, y, z), as raster::Gaussians
// stores them, so values pass through unchanged.
#pragma once
#include <string>

#include "tilegrad/io/ply.h"
#include "tilegrad/rasterizer/gaussians.h"

namespace tilegrad::io {

// f_rest properties for an SH degree: 3 ((degree + 1)^2 - 1).
constexpr int gaussians_ply_rest_count(int degree) { return 3 * ((degree + 1) * (degree + 1) - 1); }

// Reads a 3DGS .ply into host buffers. Properties are found by name (any order; float or any other scalar
// type, converted), normals and unknown properties are ignored (gsplat writes none, other tools add some).
// The SH degree comes from the number of f_rest_i (which must be i = 0..M-1 with M as above). Missing
// properties, list properties, an f_rest count that is no degree's and non-finite values (naming the vertex
// and property) are IoErrors.
raster::Gaussians read_gaussians_ply(const std::string& path);
raster::Gaussians gaussians_from_ply(const PlyData& ply);

// Writes exactly the layout above (normals written as 0), from any device. Float values round-trip
// bit-exactly through read_gaussians_ply. Non-finite parameters are an InvalidArgument naming the Gaussian
// and property (the file would not load back); precomputed colours are not part of the format and are ignored.
void write_gaussians_ply(const std::string& path, const raster::GaussiansView& gaussians);
void write_gaussians_ply(const std::string& path, const raster::Gaussians& gaussians);

}  // namespace tilegrad::io
