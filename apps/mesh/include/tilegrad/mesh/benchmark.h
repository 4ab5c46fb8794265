// The mesh-energy benchmark behind `tilegrad profile mesh`: for each mesh and energy, median times of the
// energy, gradient, Hessian assembly and HVP passes with Atomic and Owned accumulation (float), the hand-written
// gradients where they exist, agreement and bitwise-reproducibility checks, and an export of the same inputs
// for bench/mesh_pytorch.py.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "tilegrad/core/device.h"

namespace tilegrad::mesh {

struct BenchmarkConfig {
  Device device = Device::Cpu;
  // armadillo and igea (from data_dir, skipped when absent) and generated cloth grids "cloth-N" (N x N cells).
  std::vector<std::string> meshes = {"armadillo", "igea", "cloth-256", "cloth-1000"};
  std::string data_dir;
  // uniform, cotangent, symmetric-dirichlet, springs, bending
  std::vector<std::string> energies = {"uniform", "cotangent", "symmetric-dirichlet", "springs", "bending"};
  int warmup = 3;
  int reps = 20;
  bool psd = true;         // also time the Hessian with per-element PSD projection
  std::string export_dir;  // write the inputs for the PyTorch comparison here ("" = no export)
};

struct BenchmarkRow {
  std::string mesh, energy, pass, strategy;  // energy, gradient, value-gradient, hessian, hessian-psd, hvp, handwritten
  std::size_t vertices = 0, elements = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  // Against the Owned result of the same pass (hand-written: the AD gradient); < 0 where nothing was compared.
  double max_relative_error = -1;
  bool bitwise_repeatable = false;  // Owned: two runs gave the same bits
};

struct BenchmarkCaseInfo {
  std::string mesh, energy;
  std::size_t vertices = 0, elements = 0;
  double layout_ms = 0;          // first Hessian: pattern and maps
  std::size_t memory_bytes = 0;  // patterns, maps and records held by the problem
};

struct BenchmarkReport {
  std::vector<BenchmarkRow> rows;
  std::vector<BenchmarkCaseInfo> cases;
};

// Progress lines go to `log` (may be null).
BenchmarkReport run_mesh_benchmark(const BenchmarkConfig& config, std::FILE* log);

nlohmann::json benchmark_to_json(const BenchmarkConfig& config, const BenchmarkReport& report);
std::string benchmark_to_markdown(const BenchmarkReport& report);

}  // namespace tilegrad::mesh
