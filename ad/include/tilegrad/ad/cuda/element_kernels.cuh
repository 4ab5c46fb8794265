// CUDA kernels of the element passes: one thread per element running the same element math as the CPU
// loops (element_cpu.h), keeping the element's duals in registers. Included by element_term.h under nvcc.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>

#include "tilegrad/core/cuda/block_reduce.cuh"
#include "tilegrad/ad/element_assembly.h"
#include "tilegrad/core/cuda/launch.cuh"

namespace tilegrad::element_cuda {

constexpr int kPartitionBlock = 256;  // passes that report energy partials
constexpr unsigned kElementBlock = 128;

struct AtomicAdd {
  template <class T>
  __device__ void operator()(T* dst, T v) const {
    atomicAdd(dst, v);
  }
};

// Element results per pass; `energy` is set where the pass computes it.
template <class Args>
struct ValueOp {
  Args a;
  template <class T>
  __device__ T operator()(std::size_t e, T& energy) const {
    energy = element_value(a.energy, a.variables(e), a.data_of(e));
    return energy;
  }
};
template <class Args>
struct GradientOp {
  Args a;
  template <class T>
  __device__ auto operator()(std::size_t e, T& energy) const {
    const auto r = element_gradient(a.energy, a.variables(e), a.data_of(e));
    energy = r.value;
    return r.gradient;
  }
};
template <class Args>
struct HvpDirectOp {
  Args a;
  const typename Args::Scalar* direction;
  template <class T>
  __device__ auto operator()(std::size_t e, T&) const {
    const auto v = gather_element<Args::kArity, Args::kDim>(direction, a.elements + e * Args::kArity);
    return element_hvp_direct(a.energy, a.variables(e), v, a.data_of(e));
  }
};

// Owned records pass through shared memory when a block's records fit in 24 KB: every thread of the block leaves
// its N values there, then the block stores the contiguous run of records of its elements [first, min(first +
// THREADS, end)) with consecutive threads on consecutive values. Stored directly, each store instruction of a
// warp would touch 32 records N values apart. Every thread of the block must call it (it synchronises); value(q)
// gives the calling thread's q-th value and is called only when `mine`.
template <class T, int N, unsigned THREADS>
constexpr bool kStageRecords = THREADS * N * sizeof(T) <= 24 * 1024;

template <class T, int N, unsigned THREADS, class Value>
__device__ TG_INLINE void store_records_staged(T* records, std::size_t first, std::size_t end, bool mine,
                                               const Value& value) {
  __shared__ T s_records[THREADS * N];
  if (mine) TG_UNROLL for (int q = 0; q < N; ++q) s_records[threadIdx.x * N + q] = value(q);
  __syncthreads();
  const std::size_t valid = first < end ? min(std::size_t(THREADS), end - first) : 0;
  T* dst = records + first * N;
  for (std::size_t k = threadIdx.x; k < valid * N; k += THREADS) dst[k] = s_records[k];
  __syncthreads();  // the buffer is reused by the caller's next round
}

template <class Args, class Result>
__device__ TG_INLINE void emit_vector(const Args& a, const TermPass<typename Args::Scalar>& pass, std::size_t e,
                                      const Result& r) {
  if (pass.owned) {
    write_vector_record(pass.records, e, r);
  } else {
    scatter_vector<Args::kArity, Args::kDim>(r, a.elements + e * Args::kArity, pass.out, AtomicAdd{});
  }
}

// One thread per element; no energy.
template <class Args, class Op>
__global__ void vector_pass_kernel(Op op, TermPass<typename Args::Scalar> pass) {
  using T = typename Args::Scalar;
  constexpr int N = Args::kArity * Args::kDim;
  const std::size_t e = cuda::global_thread();
  T energy = T(0);
  if constexpr (kStageRecords<T, N, kElementBlock>) {
    if (pass.owned) {  // uniform over the launch
      const bool mine = e < op.a.count;
      Vec<T, N> r{};
      if (mine) r = op(e, energy);
      store_records_staged<T, N, kElementBlock>(pass.records, std::size_t(blockIdx.x) * kElementBlock, op.a.count,
                                                mine, [&](int q) { return r[q]; });
      return;
    }
  }
  if (e >= op.a.count) return;
  emit_vector(op.a, pass, e, op(e, energy));
}

// Block p covers energy partition p of `parts` and writes its energy total to partials[p]. EMIT = false
// for the value pass, which has no vector result.
template <class Args, class Op, bool EMIT>
__global__ void __launch_bounds__(kPartitionBlock) partition_pass_kernel(Op op, TermPass<typename Args::Scalar> pass,
                                                                         int parts) {
  using T = typename Args::Scalar;
  const std::size_t begin = energy_partition_begin(op.a.count, parts, static_cast<int>(blockIdx.x));
  const std::size_t end = energy_partition_begin(op.a.count, parts, static_cast<int>(blockIdx.x) + 1);
  constexpr int N = Args::kArity * Args::kDim;
  constexpr bool kStage = EMIT && kStageRecords<T, N, kPartitionBlock>;
  double sum = 0.0;
  // Rounds of kPartitionBlock elements, the same for every thread of the block (the staged stores synchronise).
  for (std::size_t first = begin; first < end; first += kPartitionBlock) {
    const std::size_t e = first + threadIdx.x;
    const bool mine = e < end;
    T energy = T(0);
    if constexpr (EMIT) {
      Vec<T, N> r{};
      if (mine) r = op(e, energy);
      if (kStage && pass.owned) {
        store_records_staged<T, N, kPartitionBlock>(pass.records, first, end, mine, [&](int q) { return r[q]; });
      } else if (mine) {
        emit_vector(op.a, pass, e, r);
      }
    } else if (mine) {
      op(e, energy);
    }
    if (mine) sum += static_cast<double>(energy);
  }
  const double total = cuda::block_sum<kPartitionBlock>(sum);
  if (threadIdx.x == 0) pass.energy_partials[blockIdx.x] = total;
}

// Energy partitions (ENERGY) or one thread per element.
template <class Args, bool EMIT, bool ENERGY, class Op>
void launch_vector_pass(const Op& op, const TermPass<typename Args::Scalar>& pass) {
  const std::size_t count = op.a.count;
  if constexpr (ENERGY) {
    // Partials past `parts` stay as the caller zeroed them.
    const int parts = static_cast<int>(std::clamp<std::size_t>((count + kPartitionBlock - 1) / kPartitionBlock, 1,
                                                               static_cast<std::size_t>(kEnergyPartials)));
    partition_pass_kernel<Args, Op, EMIT><<<parts, kPartitionBlock>>>(op, pass, parts);
    TG_CUDA_CHECK_LAUNCH();
  } else {
    cuda::launch(vector_pass_kernel<Args, Op>, count, kElementBlock, nullptr, op, pass);
  }
}

// Everything that needs the whole local Hessian shares one kernel per projection flag (they differ only in
// what they keep of it), which keeps the number of heavy instantiations per energy at two.
enum class LocalHessianUse { Assemble, Diagonal, Product };

template <class Args, bool PROJECT>
__global__ void local_hessian_kernel(Args a, TermPass<typename Args::Scalar> pass, LocalHessianUse use) {
  constexpr int K = Args::kArity, D = Args::kDim;
  const std::size_t e = cuda::global_thread();
  using H = Hyper<typename Args::Scalar, K * D>;
  if constexpr (kStageRecords<typename Args::Scalar, H::kPacked, kElementBlock>) {
    if (use == LocalHessianUse::Assemble && pass.owned) {  // uniform over the launch (staged Owned records)
      const bool mine = e < a.count;
      H h;
      if (mine) h = element_hessian(a.energy, a.variables(e), a.data_of(e), PROJECT, pass.min_eigenvalue);
      store_records_staged<typename Args::Scalar, H::kPacked, kElementBlock>(
          pass.records, std::size_t(blockIdx.x) * kElementBlock, a.count, mine, [&](int q) { return h.h[q]; });
      return;
    }
  }
  if (e >= a.count) return;
  const auto h = element_hessian(a.energy, a.variables(e), a.data_of(e), PROJECT, pass.min_eigenvalue);
  switch (use) {
    case LocalHessianUse::Assemble:
      if (pass.owned) {
        write_hessian_record(pass.records, e, h);
      } else {
        scatter_hessian<K, D>(h, a.elements + e * K, pass.element_blocks + e * K * K, pass.block_row_offsets,
                              pass.out, AtomicAdd{});
      }
      break;
    case LocalHessianUse::Diagonal: emit_vector(a, pass, e, local_diagonal<K, D>(h, a.elements + e * K)); break;
    case LocalHessianUse::Product:
      emit_vector(a, pass, e, packed_multiply(h, gather_element<K, D>(pass.direction, a.elements + e * K)));
      break;
  }
}

template <class Args>
void local_hessian_pass(const Args& a, const TermPass<typename Args::Scalar>& pass, LocalHessianUse use) {
  if (pass.project) {
    cuda::launch(local_hessian_kernel<Args, true>, a.count, kElementBlock, nullptr, a, pass, use);
  } else {
    cuda::launch(local_hessian_kernel<Args, false>, a.count, kElementBlock, nullptr, a, pass, use);
  }
}

template <class Args>
void value(const Args& a, const TermPass<typename Args::Scalar>& pass) {
  launch_vector_pass<Args, false, true>(ValueOp<Args>{a}, pass);
}

template <class Args>
void gradient(const Args& a, const TermPass<typename Args::Scalar>& pass) {
  if (pass.energy_partials) {
    launch_vector_pass<Args, true, true>(GradientOp<Args>{a}, pass);
  } else {
    launch_vector_pass<Args, true, false>(GradientOp<Args>{a}, pass);
  }
}

template <class Args>
void hvp(const Args& a, const TermPass<typename Args::Scalar>& pass) {
  if (pass.project) return local_hessian_pass(a, pass, LocalHessianUse::Product);
  launch_vector_pass<Args, true, false>(HvpDirectOp<Args>{a, pass.direction}, pass);
}

template <class Args>
void hessian_diagonal(const Args& a, const TermPass<typename Args::Scalar>& pass) {
  local_hessian_pass(a, pass, LocalHessianUse::Diagonal);
}

template <class Args>
void hessian(const Args& a, const TermPass<typename Args::Scalar>& pass) {
  local_hessian_pass(a, pass, LocalHessianUse::Assemble);
}

}  // namespace tilegrad::element_cuda
