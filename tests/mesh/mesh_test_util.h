// Shared helpers of the mesh tests: finite differences of element problems, dense views of sparse matrices, a
// PSD check, and small meshes.
#pragma once
#include <functional>
#include <vector>

#include "tilegrad/ad/sparse_matrix.h"
#include "tilegrad/io/mesh.h"

namespace tilegrad::test {

// Central differences at x with step h (double): the gradient of f, and the Jacobian of g (row-major m x n).
std::vector<double> central_gradient(const std::function<double(const std::vector<double>&)>& f,
                                     std::vector<double> x, double h);
std::vector<double> central_jacobian(const std::function<std::vector<double>(const std::vector<double>&)>& g,
                                     std::vector<double> x, double h);
std::vector<double> dense(const HostCsr<double>& a);
// max |a_i - b_i| / max(1, max |b|).
double max_scaled_difference(const std::vector<double>& a, const std::vector<double>& b);
// True when the symmetric n x n matrix plus shift I has a Cholesky factorisation.
bool positive_semidefinite(std::vector<double> a, std::size_t n, double shift);
std::vector<double> random_vector(std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0);
// A small noisy icosphere (closed, genus 0).
io::TriangleMesh bumpy_sphere(int subdivisions, double noise, std::uint64_t seed);

}  // namespace tilegrad::test
