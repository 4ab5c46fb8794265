// 3DGS rasterizer benchmark: forward stages and the backward of every accumulation mode on one scene and
// camera, with agreement checks between modes and peak memory. Loss = sum of the RGB image.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "tilegrad/ad/accumulation.h"
#include "tilegrad/core/error.h"
#include "tilegrad/rasterizer/rasterizer.h"

namespace tilegrad::profiling {

// "cub" (Binning::TwoPassCub, the default) or "thrust" (Binning::ThrustKeys): the names of `--sort`.
const char* binning_name(raster::Binning binning);
raster::Binning parse_binning(const std::string& name);  // throws InvalidArgument naming the choices

struct RasterBenchConfig {
  Device device = Device::Cuda;
  int warmup = 3;
  int reps = 20;
  std::vector<Accumulation> modes = {kAllAccumulations.begin(), kAllAccumulations.end()};
  raster::RasterSettings settings;  // settings.binning: the instance sort measured
  std::size_t max_record_bytes = 0;  // Owned's record limit (BackwardSettings::max_record_bytes); 0: none
  std::uint32_t depth_chunk = raster::BackwardSettings{}.depth_chunk;  // BackwardSettings::depth_chunk, every mode
  // Non-empty: each workload's image and Owned gradients are also written there as raw floats (outputs_file).
  std::string dump_dir;
};

struct RasterModeResult {
  Accumulation mode = Accumulation::Owned;
  double backward_ms = 0;          // median, without stage timing
  // The stages' medians (blend_backward, reduce, project_backward), from runs with stage timing on, and those
  // runs' median: their events add host calls and a wait for the device inside each call.
  raster::StageTimes stages;
  double backward_staged_ms = 0;
  double relative_l2 = 0, cosine = 1;  // all gradients of this mode against the Owned ones
  bool bitwise_repeatable = false;     // two runs gave identical gradient bits
};

struct RasterBenchResult {
  std::string workload;
  std::string sort = "cub";        // binning_name of the forward's instance sort
  std::size_t gaussians = 0, visible = 0, instances = 0;
  std::uint32_t depth_chunk = 0;   // the backward's depth chunk for this workload (kAutoDepthChunk resolved; CUDA)
  int width = 0, height = 0;
  double forward_ms = 0;           // median, without stage timing
  raster::StageTimes forward_stages;  // medians, from runs with stage timing on
  double forward_staged_ms = 0;       // those runs' median
  std::vector<RasterModeResult> modes;
  std::size_t parameter_bytes = 0;
  std::size_t peak_bytes = 0;      // peak tilegrad allocations beyond the parameters during forward + backward
  std::size_t forward_peak_bytes = 0;  // the same during the forward alone
  std::size_t sort_peak_bytes = 0;     // the binning stage's peak beyond what the forward held before it
  // digest() of the image and of the Owned gradients (every group, mean2d included, in Gradients' order): equal
  // digests, equal bits.
  std::string image_digest, owned_digest;
  // Non-empty: the workload did not run to the end ("out of memory at <stage>: <bytes> bytes (<MiB> MiB)"); the
  // figures above are then zero, except the workload's size.
  std::string error;
  std::string oom_stage;           // of an OutOfMemory: the stage that asked, and the bytes it asked for
  std::size_t oom_bytes = 0;
};

// The file of a workload's outputs under RasterBenchConfig::dump_dir: the image, then the Owned gradients, as
// little-endian float32 in the order of the digests. `sort` (binning_name) is part of the name unless "cub".
std::string outputs_file(const std::string& dump_dir, const std::string& workload, const std::string& sort = "cub");

// The result of a workload that ran out of memory: recorded, and printed on `log`, so that a profile of several
// workloads goes on with the next one.
RasterBenchResult out_of_memory_result(const std::string& workload, std::size_t gaussians,
                                       const raster::Camera& camera, const RasterBenchConfig& config,
                                       const OutOfMemory& error, std::FILE* log);

RasterBenchResult run_raster_benchmark(const std::string& workload, const raster::Gaussians& gaussians,
                                       const raster::Camera& camera, const RasterBenchConfig& config, std::FILE* log);

nlohmann::json raster_results_to_json(const RasterBenchConfig& config, const std::vector<RasterBenchResult>& results);
std::string raster_results_to_markdown(const std::vector<RasterBenchResult>& results);
// One panel per workload, one bar per mode, stacked by backward stage.
void write_raster_chart(const std::string& path, const std::vector<RasterBenchResult>& results);

}  // namespace tilegrad::profiling
