// Rendering settings of the rasterizer, including the numerical thresholds of 3DGS compositing.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tilegrad/ad/accumulation.h"

namespace tilegrad::raster {

// The thresholds make the image piecewise in the parameters; tests of derivatives against finite differences
// switch them off with Thresholds::none().
struct Thresholds {
  float min_alpha = 1.0f / 255.0f;    // fragments fainter than one 8-bit step are skipped (and cost nothing)
  float max_alpha = 0.99f;            // keeps 1 - alpha away from 0 so the backward can divide by it
  float min_transmittance = 1e-4f;    // a pixel stops once nearly opaque
  float extent_sigmas = 3.0f;         // footprint radius in standard deviations of the 2D Gaussian

  static Thresholds none() { return {0.0f, 1.0f, 0.0f, 10.0f}; }
};

// How the CUDA forward sorts the (Gaussian, tile) instances. Both give the same order (by tile, then depth, then
// Gaussian index), so images and gradients have the same bits; they differ in time and memory only. The CPU
// reference ignores it.
enum class Binning {
  // Default: a 4-byte depth sort of the visible Gaussians, then a stable sort of the instances by tile id alone
  // (cuda/bin.cu).
  TwoPassCub,
  // The original 3DGS binning, kept for comparison (`tilegrad profile raster --sort thrust`): one 8-byte key
  // tile << 32 | depth bits per instance, sorted by thrust over all instances (cuda/bin_thrust.cu).
  ThrustKeys,
};

struct RasterSettings {
  float background[3] = {0.0f, 0.0f, 0.0f};
  int sh_degree = -1;          // active SH degree (<= stored degree); -1: all stored bands
  bool antialiased = false;    // EWA blur with opacity compensation (Mip-Splatting style)
  float blur = 0.3f;           // added to the diagonal of the 2D covariance (a pixel's footprint)
  // Also output the expected depth (ForwardOutput::depth; needed for a dL/ddepth in the backward). Off, the
  // forward keeps one float less per pixel (8.3 MB at 1920x1080).
  bool render_depth = false;
  Thresholds thresholds{};
  Binning binning = Binning::TwoPassCub;  // CUDA instance sort (see Binning); the profiler compares the two
};

struct BackwardSettings {
  Accumulation accumulation = Accumulation::Owned;
  // Also accumulate sum over pixels of |dL/dmean2d| (Gradients::mean2d_abs, an absolute-gradient statistic
  // some densification schemes use). Off, the backward carries three fewer floats per (pixel, Gaussian) pair.
  bool absolute_mean2d = false;
  // Check dL/d* for NaN and infinities: refused with InvalidArgument naming the input. On the GPU the check runs
  // beside the backward's work (on a second stream) and its answer is read after that work is queued (one
  // device-to-host read per call, which waits for the work queued before the backward and for the check, not for
  // the backward). Callers whose gradients are finite by construction (the trainer checks its loss) turn it off to
  // keep a step free of host round trips.
  bool check_finite = true;
  // CUDA, Owned: the most bytes the per-instance records (width x 4 bytes per (Gaussian, tile) pair) may take at
  // once; 0: no limit. Above it the tiles are processed in strips of tile rows, each blended backward and summed
  // into the per-Gaussian gradients before the next (one strip is at least one row of tiles). This trades time
  // for memory: see docs/PERFORMANCE.md. Gaussians whose tiles span several strips get their sum as one exact
  // sum per strip, added in strip order: reproducible for a given limit, equal to the one-pass sum within
  // rounding. The CPU reference ignores it.
  std::size_t max_record_bytes = 0;
  // CUDA: the most instances of one tile's depth list that one block of the blend backward takes. A denser tile
  // is split into chunks of this many instances, one block each, and each block first replays the fragments
  // behind its chunk (their transmittance and colour only, no derivatives): the densest tiles no longer run alone
  // at the end of the kernel. Every value gives the same bits; 0 runs whole tiles; kAutoDepthChunk (the default)
  // takes auto_depth_chunk of each launch's instance count. The CPU reference ignores it.
  static constexpr std::uint32_t kAutoDepthChunk = 0xFFFFFFFFu;
  std::uint32_t depth_chunk = kAutoDepthChunk;
};

// The depth chunk kAutoDepthChunk stands for, for a blend-backward launch over `instances` instances on a GPU
// of `multiprocessors` SMs: about one resident block's even share of the launch (instances / (4 x SMs); the
// kernel keeps 3 to 4 blocks per SM), rounded to the nearest power of two and held to [512, 4096]. A chunk much
// longer than that share leaves the densest tiles running alone at the end of the kernel; a much shorter one
// pays more replays than the balance gains. Measured (docs/PERFORMANCE.md, "Depth chunks"): 1024 for a trained
// lego frame at 400x400 (570k instances on 625 tiles), 4096 for the garden grids at 1080p.
std::uint32_t auto_depth_chunk(std::size_t instances, int multiprocessors);

// settings.depth_chunk, with kAutoDepthChunk resolved for that launch.
std::uint32_t depth_chunk_for(const BackwardSettings& settings, std::size_t instances, int multiprocessors);

}  // namespace tilegrad::raster
